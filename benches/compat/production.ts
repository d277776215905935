import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The production rows made from a spec rather than kept as files: each is a project built like
 * shipped work (benches/README.md, "Compatibility with HyperFrames compositions"). An a-roll with a voice whose
 * words come at a steady pace (made at staging time, see `productionMedia`), word-by-word captions
 * timed to those words, overlays nesting a badge (and an icon inside it for three levels), a
 * transition between the a-roll scene and a b-roll card (a CSS animation, a GSAP cross-fade or an
 * @hyperframes/shader-transitions shader), sound effects (one inside the badge), and a CTA end card
 * whose buttons are visible by their own CSS inside a clip that ends before the video does (an
 * outro follows it). Fonts: several of HyperFrames' families and one it does not bundle.
 */
export interface ProductionSpec {
  name: string;
  width: 1080 | 1920;
  height: 1080 | 1920;
  seconds: number;
  /** Seconds from one spoken word to the next; each word lasts 70% of it. */
  wordSeconds: number;
  words: string[];
  fonts: { caption: string; title: string; lower: string; button: string; notBundled: string };
  transition: 'css' | 'gsap' | { shader: 'sdf-iris' | 'cinematic-zoom' | 'chromatic-split' };
  /** Sub-composition depth: 2 (overlays > badge) or 3 (overlays > badge > icon). */
  levels: 2 | 3;
  accent: string;
}

const SENTENCE = 'every word lands on time when the story moves fast and the picture keeps up with it so watch this until the end'.split(' ');
const PITCH = 'ship your first video today with templates your whole team can edit and render in the cloud before lunch'.split(' ');
const DEMO = 'here is the feature everyone asked for faster renders sharper captions and sound that stays in sync from start to finish'.split(' ');

export const PRODUCTION_SPECS: ProductionSpec[] = [
  { name: 'prod-portrait-captions', width: 1080, height: 1920, seconds: 15, wordSeconds: 0.42, words: SENTENCE, fonts: { caption: 'Montserrat', title: 'Oswald', lower: 'Inter', button: 'Poppins', notBundled: 'Fraunces' }, transition: 'gsap', levels: 3, accent: '#ff6b2b' },
  { name: 'prod-portrait-shader', width: 1080, height: 1920, seconds: 18, wordSeconds: 0.45, words: PITCH, fonts: { caption: 'Poppins', title: 'Archivo Black', lower: 'Nunito', button: 'Inter', notBundled: 'Barlow' }, transition: { shader: 'sdf-iris' }, levels: 2, accent: '#e63946' },
  { name: 'prod-portrait-css', width: 1080, height: 1920, seconds: 20, wordSeconds: 0.5, words: DEMO, fonts: { caption: 'Outfit', title: 'League Gothic', lower: 'Lato', button: 'Roboto', notBundled: 'Raleway' }, transition: 'css', levels: 3, accent: '#2a9d8f' },
  { name: 'prod-portrait-serif', width: 1080, height: 1920, seconds: 24, wordSeconds: 0.4, words: SENTENCE, fonts: { caption: 'Playfair Display', title: 'EB Garamond', lower: 'Open Sans', button: 'Montserrat', notBundled: 'Cormorant' }, transition: { shader: 'cinematic-zoom' }, levels: 3, accent: '#b5838d' },
  { name: 'prod-portrait-mono', width: 1080, height: 1920, seconds: 16, wordSeconds: 0.38, words: PITCH, fonts: { caption: 'JetBrains Mono', title: 'Space Mono', lower: 'IBM Plex Mono', button: 'Source Code Pro', notBundled: 'Fira Code' }, transition: 'gsap', levels: 2, accent: '#7c5cff' },
  { name: 'prod-portrait-long', width: 1080, height: 1920, seconds: 30, wordSeconds: 0.48, words: DEMO, fonts: { caption: 'Inter', title: 'Oswald', lower: 'Noto Sans JP', button: 'Nunito', notBundled: 'DM Sans' }, transition: 'css', levels: 2, accent: '#f4a261' },
  { name: 'prod-portrait-chromatic', width: 1080, height: 1920, seconds: 17, wordSeconds: 0.44, words: SENTENCE, fonts: { caption: 'Roboto', title: 'Archivo Black', lower: 'Outfit', button: 'Lato', notBundled: 'Fraunces' }, transition: { shader: 'chromatic-split' }, levels: 3, accent: '#06d6a0' },
  { name: 'prod-landscape-interview', width: 1920, height: 1080, seconds: 20, wordSeconds: 0.45, words: DEMO, fonts: { caption: 'Open Sans', title: 'Montserrat', lower: 'Inter', button: 'Poppins', notBundled: 'Merriweather' }, transition: 'gsap', levels: 3, accent: '#ff6b2b' },
  { name: 'prod-landscape-shader', width: 1920, height: 1080, seconds: 22, wordSeconds: 0.5, words: PITCH, fonts: { caption: 'Nunito', title: 'League Gothic', lower: 'Roboto', button: 'Outfit', notBundled: 'Libre Baskerville' }, transition: { shader: 'sdf-iris' }, levels: 2, accent: '#e63946' },
  { name: 'prod-landscape-css', width: 1920, height: 1080, seconds: 26, wordSeconds: 0.42, words: SENTENCE, fonts: { caption: 'Lato', title: 'Playfair Display', lower: 'EB Garamond', button: 'Inter', notBundled: 'Raleway' }, transition: 'css', levels: 3, accent: '#457b9d' },
  { name: 'prod-landscape-tutorial', width: 1920, height: 1080, seconds: 28, wordSeconds: 0.46, words: DEMO, fonts: { caption: 'Source Code Pro', title: 'JetBrains Mono', lower: 'Poppins', button: 'Montserrat', notBundled: 'Fira Code' }, transition: { shader: 'cinematic-zoom' }, levels: 3, accent: '#7c5cff' },
];

/** The a-roll a spec plays: its size (a quarter of the frame's area), length and word pace in the name. */
export function arollName(spec: ProductionSpec): string {
  return `aroll-${spec.width / 2}x${spec.height / 2}-${spec.seconds}s-${Math.round(spec.wordSeconds * 1000)}ms.mp4`;
}

/**
 * ffmpeg arguments for the a-roll: a moving picture (its hue turning once over the video) and a
 * voice-like 220 Hz tone sounding for 70% of each word period, so a caption shown at each period's
 * start is timed to a spoken word.
 */
export function productionMedia(spec: ProductionSpec): Record<string, string[]> {
  const [w, h] = [spec.width / 2, spec.height / 2];
  const period = spec.wordSeconds;
  return {
    [arollName(spec)]: [
      '-f', 'lavfi', '-i', `testsrc2=s=${w}x${h}:r=30:d=${spec.seconds},hue=H=2*PI*t/${spec.seconds}`,
      '-f', 'lavfi', '-i', `aevalsrc=0.35*sin(2*PI*220*t)*(0.7+0.3*sin(2*PI*5*t))*lt(mod(t\\,${period})\\,${(period * 0.7).toFixed(3)}):s=48000:d=${spec.seconds}`,
      '-c:v', 'libx264', '-crf', '20', '-g', '60', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '128k', '-shortest',
    ],
  };
}

const CTA_SECONDS = 4;
const OUTRO_SECONDS = 2;
const TRANSITION_AT = 0.35;

/** Writes the project of `spec` into `dir` (index.html and compositions/). */
export function writeProductionProject(spec: ProductionSpec, dir: string): void {
  fs.mkdirSync(path.join(dir, 'compositions'), { recursive: true });
  const files: Record<string, string> = {
    'index.html': indexHtml(spec),
    'compositions/captions.html': captionsHtml(spec),
    'compositions/overlays.html': overlaysHtml(spec),
    'compositions/badge.html': badgeHtml(spec),
    'compositions/cta.html': ctaHtml(spec),
  };
  if (spec.levels === 3) files['compositions/icon.html'] = iconHtml(spec);
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
}

function portrait(spec: ProductionSpec): boolean {
  return spec.height > spec.width;
}

/** When the spoken part ends and the CTA starts. */
function ctaStart(spec: ProductionSpec): number {
  return spec.seconds - CTA_SECONDS - OUTRO_SECONDS;
}

function transitionTime(spec: ProductionSpec): number {
  return Math.round(ctaStart(spec) * TRANSITION_AT * 10) / 10;
}

function indexHtml(spec: ProductionSpec): string {
  const { width: W, height: H, seconds: D } = spec;
  const cta = ctaStart(spec);
  const t = transitionTime(spec);
  const shader = typeof spec.transition === 'object' ? spec.transition.shader : null;
  const broll = spec.transition === 'css'
    ? `<div id="broll" class="scene wipe clip" data-start="${t}" data-duration="3" data-track-index="1"><div class="card">${spec.words.slice(0, 3).join(' ')}</div></div>`
    : `<div id="broll" class="scene"><div class="card">${spec.words.slice(0, 3).join(' ')}</div></div>`;
  const transitionScript = shader
    ? `HyperShader.init({ bgColor: '#000000', accentColor: '${spec.accent}', scenes: ['main', 'broll'], transitions: [{ time: ${t}, shader: '${shader}', duration: 0.8 }], timeline: tl });`
    : spec.transition === 'gsap'
      ? `tl.fromTo('#broll', { autoAlpha: 0 }, { autoAlpha: 1, duration: 0.6, ease: 'power1.inOut' }, ${t}).to('#broll', { autoAlpha: 0, duration: 0.6 }, ${t + 3});`
      : '';
  return `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<script src="gsap.min.js"></script>
${shader ? '<script src="index.global.js"></script>\n' : ''}<style>
  html, body { margin: 0; background: #000; }
  #root { position: relative; width: ${W}px; height: ${H}px; overflow: hidden; background: #000; font-family: '${spec.fonts.lower}', sans-serif; }
  .scene { position: absolute; inset: 0; }
  #aroll { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: cover; }
  #broll { background: linear-gradient(150deg, #0d1b2a, ${spec.accent}); ${spec.transition === 'gsap' ? 'visibility: hidden;' : ''} }
  .card { position: absolute; left: 8%; right: 8%; top: 30%; color: #fff; text-align: center; font-family: '${spec.fonts.title}', sans-serif; font-weight: 700; font-size: ${portrait(spec) ? 120 : 110}px; line-height: 1.05; text-transform: uppercase; }
  .wipe { animation: wipe 0.7s cubic-bezier(0.65, 0, 0.35, 1) both; }
  @keyframes wipe { from { clip-path: inset(0 100% 0 0); } to { clip-path: inset(0 0 0 0); } }
  .layer { position: absolute; inset: 0; }
  #outro { background: #0d1b2a; }
  #outro .card { top: 42%; font-size: 72px; font-family: '${spec.fonts.notBundled}', serif; text-transform: none; font-weight: 400; }
</style>
</head>
<body>
<div id="root" data-composition-id="${spec.name}" data-start="0" data-duration="${D}" data-width="${W}" data-height="${H}">
  <div id="main" class="scene">
    <video id="aroll" src="${arollName(spec)}" data-start="0" data-duration="${cta}" data-track-index="0"></video>
  </div>
  ${broll}
  <div class="layer" data-composition-src="compositions/captions.html" data-start="0" data-duration="${cta}" data-track-index="2"></div>
  <div class="layer" data-composition-src="compositions/overlays.html" data-start="0" data-duration="${cta}" data-track-index="3"></div>
  <div class="layer" data-composition-src="compositions/cta.html" data-start="${cta}" data-duration="${CTA_SECONDS}" data-track-index="4"></div>
  <div id="outro" class="scene clip" data-start="${cta + CTA_SECONDS}" data-duration="${OUTRO_SECONDS}" data-track-index="5"><div class="card">Made for the people who ship</div></div>
  <audio src="sfx-whoosh.wav" data-start="${t}" data-volume="0.9" data-track-index="6"></audio>
  <audio src="sfx-ding.wav" data-start="${cta + 0.6}" data-track-index="7"></audio>
  <audio src="sfx-whoosh.wav" data-start="${cta}" data-volume="0.7" data-track-index="8"></audio>
</div>
<script>
  window.__timelines = window.__timelines || {};
  const tl = gsap.timeline({ paused: true });
  tl.fromTo('#aroll', { scale: 1 }, { scale: 1.08, duration: ${cta}, ease: 'none' }, 0);
  ${transitionScript}
  window.__timelines['${spec.name}'] = tl;
</script>
</body>
</html>
`;
}

function captionsHtml(spec: ProductionSpec): string {
  const cta = ctaStart(spec);
  const count = Math.min(Math.floor(cta / spec.wordSeconds), 48);
  const perLine = portrait(spec) ? 4 : 6;
  const lines: string[][] = [];
  for (let i = 0; i < count; i++) {
    if (i % perLine === 0) lines.push([]);
    lines[lines.length - 1].push(spec.words[i % spec.words.length]);
  }
  const top = portrait(spec) ? 1240 : 820;
  const size = portrait(spec) ? 96 : 78;
  const html = lines
    .map((words, l) => `    <div class="line" data-line="${l}">${words.map((w) => `<span class="w">${w}</span>`).join(' ')}</div>`)
    .join('\n');
  return `<template id="captions-template">
  <div data-composition-id="captions" data-width="${spec.width}" data-height="${spec.height}">
${html}
    <style>
      .line { position: absolute; left: 6%; right: 6%; top: ${top}px; font-family: '${spec.fonts.caption}', sans-serif; font-weight: 700; font-size: ${size}px; line-height: 1.12; color: #fff; text-align: center; text-transform: uppercase; text-shadow: 0 4px 14px rgba(0,0,0,0.7); opacity: 0; }
      .w { opacity: 0.25; }
    </style>
    <script>
      // Each word lights up when it is spoken (every ${spec.wordSeconds} s); a line shows while its words are said.
      const tl = gsap.timeline({ paused: true });
      const period = ${spec.wordSeconds};
      document.querySelectorAll('.line').forEach((line, l) => {
        const words = line.querySelectorAll('.w');
        const start = l * ${perLine} * period;
        tl.set(line, { opacity: 1 }, start).set(line, { opacity: 0 }, start + words.length * period);
        words.forEach((w, i) => tl.to(w, { opacity: 1, scale: 1.06, duration: 0.08 }, start + i * period).to(w, { scale: 1, duration: 0.1 }, start + i * period + 0.08));
      });
      window.__timelines['captions'] = tl;
    </script>
  </div>
</template>
`;
}

function overlaysHtml(spec: ProductionSpec): string {
  const cta = ctaStart(spec);
  const lowerTop = portrait(spec) ? 1600 : 860;
  return `<template id="overlays-template">
  <div data-composition-id="overlays" data-width="${spec.width}" data-height="${spec.height}">
    <div class="lower"><div class="name">Ada Lovelace</div><div class="role">Founder, Analytical Engines</div></div>
    <div class="badge-host" data-composition-src="compositions/badge.html" data-start="1.2" data-duration="${Math.max(3, cta - 3)}"></div>
    <style>
      .lower { position: absolute; left: 60px; top: ${lowerTop}px; padding: 26px 40px; background: rgba(13, 27, 42, 0.85); border-left: 10px solid ${spec.accent}; color: #f1faee; }
      .name { font-family: '${spec.fonts.title}', serif; font-weight: 700; font-size: 60px; }
      .role { font-family: '${spec.fonts.notBundled}', serif; font-size: 38px; margin-top: 6px; }
      .badge-host { position: absolute; right: 60px; top: 120px; width: 360px; height: 120px; }
    </style>
    <script>
      window.__timelines['overlays'] = gsap.timeline({ paused: true })
        .from('.lower', { x: -1000, duration: 0.6, ease: 'power3.out' }, 0.8)
        .to('.lower', { x: -1000, duration: 0.5, ease: 'power3.in' }, ${Math.max(4, cta - 1.5)});
    </script>
  </div>
</template>
`;
}

function badgeHtml(spec: ProductionSpec): string {
  const icon = spec.levels === 3 ? '\n    <div class="icon-host" data-composition-src="compositions/icon.html" data-start="0.4" data-duration="2"></div>' : '';
  return `<template id="badge-template">
  <div data-composition-id="badge" data-width="360" data-height="120">
    <div class="pill">LIVE · 2026</div>${icon}
    <audio src="../sfx-ding.wav" data-start="0.1" data-volume="0.6"></audio>
    <style>
      .pill { position: absolute; inset: 0; border-radius: 60px; background: ${spec.accent}; color: #fff; font-family: '${spec.fonts.button}', monospace; font-weight: 700; font-size: 46px; display: flex; align-items: center; justify-content: center; }
      .icon-host { position: absolute; left: -70px; top: 20px; width: 80px; height: 80px; }
    </style>
    <script>
      window.__timelines['badge'] = gsap.timeline({ paused: true }).from('.pill', { scale: 0, duration: 0.4, ease: 'back.out(2)' }, 0).to('.pill', { rotation: 3, yoyo: true, repeat: 7, duration: 0.5 }, 0.4);
    </script>
  </div>
</template>
`;
}

function iconHtml(spec: ProductionSpec): string {
  return `<template id="icon-template">
  <div data-composition-id="icon" data-width="80" data-height="80">
    <div class="ring"></div>
    <style>.ring { position: absolute; inset: 8px; border-radius: 50%; border: 10px solid #fff; border-top-color: ${spec.accent}; box-sizing: border-box; }</style>
    <script>window.__timelines['icon'] = gsap.timeline({ paused: true }).to('.ring', { rotation: 720, duration: 2, ease: 'none' }, 0);</script>
  </div>
</template>
`;
}

function ctaHtml(spec: ProductionSpec): string {
  return `<template id="cta-template">
  <div data-composition-id="cta" data-width="${spec.width}" data-height="${spec.height}">
    <div class="card">
      <div class="title">Ship your first video today</div>
      <div class="buttons"><div class="button primary">Start free</div><div class="button secondary">Watch the demo</div></div>
    </div>
    <style>
      .card { position: absolute; inset: 0; background: linear-gradient(160deg, #0d1b2a, #1b263b); display: flex; flex-direction: column; align-items: center; justify-content: center; gap: 56px; }
      .title { width: 80%; text-align: center; color: #fff; font-family: '${spec.fonts.title}', sans-serif; font-weight: 700; font-size: ${portrait(spec) ? 110 : 96}px; line-height: 1.05; }
      .buttons { display: flex; flex-direction: ${portrait(spec) ? 'column' : 'row'}; gap: 36px; align-items: center; }
      /* Visible by their own CSS: they still go when the card's clip ends. */
      .button { padding: 30px 76px; border-radius: 24px; font-family: '${spec.fonts.button}', sans-serif; font-weight: 700; font-size: 52px; visibility: visible; }
      .primary { background: ${spec.accent}; color: #fff; }
      .secondary { border: 4px solid #fff; color: #fff; }
    </style>
    <script>
      window.__timelines['cta'] = gsap.timeline({ paused: true })
        .from('.card', { opacity: 0, duration: 0.5 }, 0)
        .from('.title', { y: 80, opacity: 0, duration: 0.6 }, 0.2)
        .from('.button', { scale: 0.6, opacity: 0, duration: 0.4, stagger: 0.2 }, 0.7);
    </script>
  </div>
</template>
`;
}
