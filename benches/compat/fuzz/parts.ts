/**
 * The parts a fuzzed composition is made of. Each part is independent: it owns one cell of the
 * 640x360 frame (3 columns x 2 rows), its element ids are named after that cell, and it brings its
 * own styles, script lines and files, so the reducer can drop any part and keep the rest as they
 * were. Each numeric option of a part has a simplest value the reducer tries in its place.
 */
import { Rect } from '../../lib/video';
import { Rng } from './prng';

export type OptionValue = string | number | boolean;
export type Options = Record<string, OptionValue>;

export interface Part {
  kind: Kind;
  /** 0-5: the cell of the frame the part draws in. */
  cell: number;
  options: Options;
}

/** What a part adds to the composition. */
export interface Fragment {
  /** CSS in the page's <style>. */
  style?: string;
  /** Elements inside the root. */
  body?: string;
  /** Lines of the page's script, run after the root with `main`, the registered GSAP timeline, in scope when `gsap` is set. */
  script?: string;
  /** Further files of the project, by path. */
  files?: Record<string, string>;
  /** Needs GSAP on the page (and so the registered root timeline). */
  gsap?: boolean;
  /** Draws text, which the two tools may rasterise differently. */
  text?: boolean;
}

interface KindSpec {
  generate(rng: Rng): Options;
  /** The value of each option the reducer tries first: the plainest form of the part. */
  simplest: Options;
  render(cell: number, o: Options): Fragment;
}

const COLOURS = ['#e63946', '#2a9d8f', '#e9c46a', '#f4a261', '#457b9d', '#8ecae6'];
const EASES = ['none', 'power2.inOut', 'back.out(1.7)', 'sine.in'];
const CSS_EASINGS = ['linear', 'ease-in-out', 'cubic-bezier(0.3,1.4,0.6,1)', 'steps(4)'];

/** The rectangle of the 640x360 frame a cell covers, px: what the oracle compares for the part in it. */
export function cellRect(cell: number): Rect {
  const column = cell % 3;
  return { x: column * 213, y: Math.floor(cell / 3) * 180, width: column === 2 ? 640 - 2 * 213 : 213, height: 180 };
}

/** Top-left corner of a cell's box, px. */
export function cellOrigin(cell: number): { x: number; y: number } {
  const { x, y } = cellRect(cell);
  return { x: x + 16, y: y + 16 };
}

function box(id: string, cell: number, extra = ''): string {
  const { x, y } = cellOrigin(cell);
  return `<div id="${id}" class="fz-box" style="left:${x}px;top:${y}px;background:${COLOURS[cell]};${extra}"></div>`;
}

/** GSAP vars for a property a tween moves, by name. */
const TWEEN_PROPS: Record<string, string> = {
  x: 'x: 120',
  y: 'y: 90',
  rotation: 'rotation: 180',
  scale: 'scale: 1.8',
  opacity: 'opacity: 0.1',
  colour: "backgroundColor: '#ffffff'",
};

/** Static fonts and font variation axes, as files the staging copies from the @fontsource packages. */
export const FONT_FILES: Record<string, { file: string; face: string; style: string }> = {
  liberation: { file: 'LiberationSans-Regular.ttf', face: 'font-weight: 400', style: '' },
  'static-oswald': { file: 'oswald-latin-400-normal.woff2', face: 'font-weight: 400', style: '' },
  'variable-width': { file: 'open-sans-latin-wdth-normal.woff2', face: 'font-stretch: 75% 100%; font-weight: 300 800', style: 'font-stretch: 75%;' },
  'variable-weight': { file: 'montserrat-latin-wght-normal.woff2', face: 'font-weight: 100 900', style: 'font-weight: 760;' },
};

function fontFace(family: string, font: string): string {
  const f = FONT_FILES[font];
  return `@font-face { font-family: "${family}"; src: url("${f.file}"); ${f.face}; }`;
}

const KINDS = {
  /** A tween of the registered root timeline. */
  'timeline-tween': {
    generate: (rng) => ({ prop: rng.pick(Object.keys(TWEEN_PROPS)), at: rng.seconds(0, 1.4), duration: rng.seconds(0.2, 1.5), ease: rng.pick(EASES) }),
    simplest: { prop: 'x', at: 0, duration: 1, ease: 'none' },
    render: (cell, o) => ({
      gsap: true,
      body: box(`p${cell}`, cell),
      script: `main.to('#p${cell}', { ${TWEEN_PROPS[String(o.prop)]}, duration: ${o.duration}, ease: '${o.ease}' }, ${o.at});`,
    }),
  },
  /** A child timeline (one or two levels) added to the registered one. */
  'timeline-nested': {
    generate: (rng) => ({ at: rng.seconds(0, 1.2), duration: rng.seconds(0.2, 0.8), depth: rng.int(1, 2), offset: rng.seconds(0, 0.4) }),
    simplest: { at: 0, duration: 0.5, depth: 1, offset: 0 },
    render: (cell, o) => {
      const inner = `gsap.timeline().to('#p${cell}', { x: 120, duration: ${o.duration}, ease: 'none' }).to('#p${cell}', { rotation: 90, duration: ${o.duration}, ease: 'none' })`;
      const child = o.depth === 2 ? `gsap.timeline().add(${inner}, ${o.offset})` : inner;
      return { gsap: true, body: box(`p${cell}`, cell), script: `main.add(${child}, ${o.at});` };
    },
  },
  /** Motion on GSAP's own clock: a tween or a delayedCall outside the registered timeline. */
  'gsap-global': {
    generate: (rng) => ({ mode: rng.pick(['tween', 'delayed-call', 'timeline-call']), delay: rng.seconds(0, 1), duration: rng.seconds(0.3, 1.2) }),
    simplest: { mode: 'tween', delay: 0, duration: 1 },
    render: (cell, o) => {
      const tween = `gsap.to('#p${cell}', { x: 120, opacity: 0.3, duration: ${o.duration}, ease: 'none' })`;
      const script =
        o.mode === 'tween'
          ? `gsap.to('#p${cell}', { x: 120, opacity: 0.3, duration: ${o.duration}, delay: ${o.delay}, ease: 'none' });`
          : o.mode === 'delayed-call'
            ? `gsap.delayedCall(${o.delay}, () => ${tween});`
            : `main.call(() => ${tween}, null, ${o.delay});`;
      return { gsap: true, body: box(`p${cell}`, cell), script };
    },
  },
  /** A CSS transition on a property that a timeline, a timer or a class set after load changes. */
  'css-transition': {
    generate: (rng) => ({
      trigger: rng.pick(['timeline-set', 'timeline-to', 'timeout', 'class-after-frame']),
      prop: rng.pick(['transform', 'opacity']),
      at: rng.seconds(0, 1),
      duration: rng.seconds(0.2, 0.9),
      easing: rng.pick(CSS_EASINGS),
    }),
    simplest: { trigger: 'timeout', prop: 'transform', at: 0, duration: 0.5, easing: 'linear' },
    render: (cell, o) => {
      const id = `p${cell}`;
      const target = o.prop === 'transform' ? { css: 'transform: translateX(120px)', gsap: 'x: 120' } : { css: 'opacity: 0.15', gsap: 'opacity: 0.15' };
      const style = `#${id} { transition: ${o.prop} ${o.duration}s ${o.easing}; }\n#${id}.on { ${target.css}; }`;
      const script = {
        'timeline-set': `main.set('#${id}', { ${target.gsap} }, ${o.at});`,
        'timeline-to': `main.to('#${id}', { ${target.gsap}, duration: 0.4, ease: 'none' }, ${o.at});`,
        timeout: `setTimeout(() => document.getElementById('${id}').classList.add('on'), ${Number(o.at) * 1000});`,
        'class-after-frame': `requestAnimationFrame(() => requestAnimationFrame(() => document.getElementById('${id}').classList.add('on')));`,
      }[String(o.trigger)];
      return { gsap: String(o.trigger).startsWith('timeline'), style, body: box(id, cell), script };
    },
  },
  /** A CSS animation, in a clip or not. */
  'css-animation': {
    generate: (rng) => ({
      duration: rng.seconds(0.3, 1.5),
      delay: rng.seconds(0, 0.6),
      iterations: rng.pick(['1', '2', 'infinite']),
      clipStart: rng.pick([-1, rng.seconds(0.1, 1.2)]),
      easing: rng.pick(CSS_EASINGS),
      prop: rng.pick(['transform', 'opacity', 'background-color']),
    }),
    simplest: { duration: 1, delay: 0, iterations: '1', clipStart: -1, easing: 'linear', prop: 'transform' },
    render: (cell, o) => {
      const id = `p${cell}`;
      const frames = {
        transform: 'from { transform: translateX(0) rotate(0); } to { transform: translateX(120px) rotate(90deg); }',
        opacity: 'from { opacity: 1; } to { opacity: 0.1; }',
        'background-color': 'from { background-color: #ffffff; } to { background-color: #1d3557; }',
      }[String(o.prop)];
      const style = `@keyframes k${cell} { ${frames} }\n#${id} { animation: k${cell} ${o.duration}s ${o.easing} ${o.delay}s ${o.iterations} both; }`;
      const body = Number(o.clipStart) < 0 ? box(id, cell) : `<div class="fz-layer" data-start="${o.clipStart}" data-duration="${(2 - Number(o.clipStart)).toFixed(2)}">${box(id, cell)}</div>`;
      return { style, body };
    },
  },
  /** Web Animations, played or paused by the page. */
  waapi: {
    generate: (rng) => ({ duration: rng.seconds(0.3, 1.5), delay: rng.seconds(0, 0.6), paused: rng.chance(0.4), iterations: rng.pick([1, 2]) }),
    simplest: { duration: 1, delay: 0, paused: false, iterations: 1 },
    render: (cell, o) => ({
      body: box(`p${cell}`, cell),
      script:
        `const a${cell} = document.getElementById('p${cell}').animate([{ transform: 'translateY(0) scale(1)' }, { transform: 'translateY(90px) scale(0.5)' }], ` +
        `{ duration: ${Number(o.duration) * 1000}, delay: ${Number(o.delay) * 1000}, iterations: ${o.iterations}, fill: 'both', easing: 'ease-in-out' });` +
        (o.paused ? ` a${cell}.pause();` : ''),
    }),
  },
  /**
   * A sub-composition from its own file with its own timeline, at any start and track, mounted by
   * the markup or by a script; its host names the composition or not, its playback start is on the
   * host or on the composition's root, and it may hold a timed clip or a video of its own.
   */
  'sub-composition': {
    generate: (rng) => ({
      start: rng.seconds(0, 1.4),
      duration: rng.pick([0, rng.seconds(0.3, 1.5)]),
      track: rng.int(0, 3),
      anim: rng.pick(['clip-path', 'opacity', 'scale', 'x']),
      mount: rng.pick(['markup', 'markup', 'script']),
      playbackStart: rng.pick([0, 0, rng.seconds(0.1, 0.5)]),
      named: rng.chance(0.3),
      offsetOn: rng.pick(['host', 'root']),
      inner: rng.pick(['none', 'none', 'clip', 'video']),
    }),
    simplest: { start: 0, duration: 0, track: 0, anim: 'x', mount: 'markup', playbackStart: 0, named: false, offsetOn: 'host', inner: 'none' },
    render: (cell, o) => {
      const { x, y } = cellOrigin(cell);
      const id = `s${cell}`;
      const from = { 'clip-path': "clipPath: 'inset(0% 100% 0% 0%)'", opacity: 'opacity: 0', scale: 'scale: 0.2', x: 'x: 0' }[String(o.anim)];
      const to = { 'clip-path': "clipPath: 'inset(0% 0% 0% 0%)'", opacity: 'opacity: 1', scale: 'scale: 1', x: 'x: 120' }[String(o.anim)];
      const offset = Number(o.playbackStart) > 0 ? ` data-playback-start="${o.playbackStart}"` : '';
      const inner = {
        none: '',
        clip: `    <div data-start="0.3" data-duration="0.6" style="position: absolute; left: 100px; top: 10px; width: 60px; height: 40px; background: #ffffff"></div>\n`,
        video: `    <video src="clip.mp4" data-start="0.2" muted playsinline style="position: absolute; left: 90px; top: 80px; width: 96px; height: 54px"></video>\n`,
      }[String(o.inner)];
      const file =
        `<template id="${id}-template">\n  <div data-composition-id="${id}" data-width="190" data-height="150"${o.offsetOn === 'root' ? offset : ''}>\n` +
        `    <div class="chip-${cell}"></div>\n` +
        inner +
        `    <style>.chip-${cell} { position: absolute; left: 10px; top: 10px; width: 60px; height: 60px; background: ${COLOURS[cell]}; border: 4px solid #ffffff; }</style>\n` +
        `    <script>\n      window.__timelines['${id}'] = gsap.timeline({ paused: true }).fromTo('.chip-${cell}', { ${from} }, { ${to}, duration: 0.8, ease: 'power1.inOut' });\n    </script>\n  </div>\n</template>\n`;
      const attrs: Array<[string, string]> = [
        ['id', `h${cell}`],
        ['style', `position:absolute;left:${x}px;top:${y}px;width:190px;height:150px`],
        ...(o.named ? [['data-composition-id', id] as [string, string]] : []),
        ['data-composition-src', `compositions/${id}.html`],
        ['data-start', String(o.start)],
        ...(Number(o.duration) > 0 ? [['data-duration', String(o.duration)] as [string, string]] : []),
        ['data-track-index', String(o.track)],
        ...(Number(o.playbackStart) > 0 && o.offsetOn === 'host' ? [['data-playback-start', String(o.playbackStart)] as [string, string]] : []),
      ];
      const files = { [`compositions/${id}.html`]: file };
      if (o.mount === 'markup') return { gsap: true, files, body: `<div ${attrs.map(([k, v]) => `${k}="${v}"`).join(' ')}></div>` };
      const set = attrs.map(([k, v]) => `h${cell}.setAttribute('${k}', '${v}');`).join(' ');
      return { gsap: true, files, script: `const h${cell} = document.createElement('div'); ${set} document.getElementById('root').appendChild(h${cell});` };
    },
  },
  /** An inline scene whose timeline is registered late: after load, a timer or the fonts; it starts hidden. */
  'late-scene': {
    generate: (rng) => ({ start: rng.seconds(0, 1), duration: rng.seconds(0.5, 1.5), when: rng.pick(['now', 'load', 'timeout', 'fonts-ready', 'dom-ready']) }),
    simplest: { start: 0, duration: 1, when: 'now' },
    render: (cell, o) => {
      const id = `sc${cell}`;
      const register = `window.__timelines['${id}'] = gsap.timeline({ paused: true }).fromTo('#p${cell}', { opacity: 0, x: 0 }, { opacity: 1, x: 120, duration: 0.6, ease: 'none' })`;
      const script = {
        now: `${register};`,
        load: `window.addEventListener('load', () => { ${register}; });`,
        timeout: `setTimeout(() => { ${register}; }, 50);`,
        'fonts-ready': `document.fonts.ready.then(() => { ${register}; });`,
        'dom-ready': `document.addEventListener('DOMContentLoaded', () => { ${register}; });`,
      }[String(o.when)];
      return {
        gsap: true,
        body: `<div id="${id}" class="fz-layer" data-composition-id="${id}" data-start="${o.start}" data-duration="${o.duration}" data-width="640" data-height="360">${box(`p${cell}`, cell)}</div>`,
        script,
      };
    },
  },
  /** A video or an image under an ancestor with an effect, still or moved by the timeline. */
  'media-ancestor': {
    generate: (rng) => ({
      media: rng.pick(['video', 'image']),
      effect: rng.pick(['opacity', 'transform', 'clip-path', 'filter', 'visibility', 'none']),
      animated: rng.chance(0.5),
      start: rng.seconds(0, 0.8),
      depth: rng.int(1, 2),
    }),
    simplest: { media: 'image', effect: 'none', animated: false, start: 0, depth: 1 },
    render: (cell, o) => {
      const { x, y } = cellOrigin(cell);
      const still = { opacity: 'opacity: 0.45', transform: 'transform: rotate(12deg) scale(0.8)', 'clip-path': 'clip-path: inset(10% 30% 10% 0%)', filter: 'filter: grayscale(1) blur(1px)', visibility: 'visibility: hidden', none: '' }[String(o.effect)];
      const tween = {
        opacity: 'opacity: 0',
        transform: 'rotation: 30, scale: 0.5',
        'clip-path': "clipPath: 'inset(0% 100% 0% 0%)'",
        filter: "filter: 'hue-rotate(180deg) brightness(0.4)'",
        visibility: "visibility: 'hidden'",
        none: 'x: 0',
      }[String(o.effect)];
      const media =
        o.media === 'video'
          ? `<video id="m${cell}" src="clip.mp4" data-start="${o.start}" muted playsinline style="width:100%;height:100%"></video>`
          : `<img id="m${cell}" src="still.png" data-start="${o.start}" data-duration="${(2 - Number(o.start)).toFixed(2)}" style="width:100%;height:100%">`;
      const inner = o.depth === 2 ? `<div style="width:100%;height:100%;transform:translateX(8px)">${media}</div>` : media;
      const style = o.animated ? '' : still;
      const body = `<div id="w${cell}" style="position:absolute;left:${x}px;top:${y}px;width:192px;height:108px;${style}">${inner}</div>`;
      if (!o.animated || o.effect === 'none') return { body };
      const script = o.effect === 'visibility' ? `main.set('#w${cell}', { ${tween} }, 0.9);` : `main.to('#w${cell}', { ${tween}, duration: 1, ease: 'none' }, 0.5);`;
      return { gsap: true, body, script };
    },
  },
  /** Text in a static or variable web font, or in the staged Liberation Sans. */
  'web-font': {
    generate: (rng) => ({ font: rng.pick(Object.keys(FONT_FILES)), animated: rng.chance(0.5), size: rng.pick([28, 40]) }),
    simplest: { font: 'liberation', animated: false, size: 28 },
    render: (cell, o) => {
      const { x, y } = cellOrigin(cell);
      const family = `Fuzz Font ${cell}`;
      const style = `${fontFace(family, String(o.font))}\n#p${cell} { position: absolute; left: ${x}px; top: ${y}px; font-family: "${family}"; font-size: ${o.size}px; color: #ffffff; white-space: nowrap; ${FONT_FILES[String(o.font)].style} }`;
      const body = `<div id="p${cell}">Kinetic 42</div>`;
      if (!o.animated) return { text: true, style, body };
      return { text: true, gsap: true, style, body, script: `main.from('#p${cell}', { y: 60, opacity: 0, duration: 0.8, ease: 'power2.out' }, 0.3);` };
    },
  },
  /** A caption whose size a script measures, at once, at load, or once the fonts are ready, and places a bar by. */
  'measured-text': {
    generate: (rng) => ({ font: rng.pick(Object.keys(FONT_FILES)), when: rng.pick(['now', 'load', 'fonts-ready']) }),
    simplest: { font: 'liberation', when: 'now' },
    render: (cell, o) => {
      const { x, y } = cellOrigin(cell);
      const family = `Fuzz Measured ${cell}`;
      const style = `${fontFace(family, String(o.font))}\n#p${cell} { position: absolute; left: ${x}px; top: ${y}px; font-family: "${family}"; font-size: 30px; color: #ffffff; white-space: nowrap; ${FONT_FILES[String(o.font)].style} }\n#q${cell} { position: absolute; left: ${x}px; height: 10px; background: ${COLOURS[cell]}; }`;
      const measure = `const r = document.getElementById('p${cell}').getBoundingClientRect(); const q = document.getElementById('q${cell}'); q.style.width = r.width + 'px'; q.style.top = (r.bottom - document.getElementById('root').getBoundingClientRect().top + 6) + 'px';`;
      const script = { now: `{ ${measure} }`, load: `window.addEventListener('load', () => { ${measure} });`, 'fonts-ready': `document.fonts.ready.then(() => { ${measure} });` }[String(o.when)];
      return { text: true, style, body: `<div id="p${cell}">Caption text</div><div id="q${cell}"></div>`, script };
    },
  },
  /** A same-origin iframe animated by CSS, requestAnimationFrame or a self-playing GSAP tween. */
  iframe: {
    generate: (rng) => ({ content: rng.pick(['css', 'raf', 'gsap']) }),
    simplest: { content: 'css' },
    render: (cell, o) => {
      const { x, y } = cellOrigin(cell);
      const file = `frame-${cell}.html`;
      const content = {
        css: `<style>@keyframes f { to { transform: translateX(110px) rotate(90deg); } } #b { animation: f 1.5s linear both; }</style>`,
        raf: `<script>let t0; const b = document.getElementById('b'); function step(t) { t0 ??= t; b.style.transform = 'translateX(' + Math.min(110, (t - t0) * 0.08) + 'px)'; requestAnimationFrame(step); } requestAnimationFrame(step);</script>`,
        gsap: `<script src="gsap.min.js"></script><script>gsap.to('#b', { x: 110, rotation: 90, duration: 1.5, ease: 'none' });</script>`,
      }[String(o.content)];
      const page =
        `<!doctype html>\n<html>\n<head>\n<meta charset="utf-8">\n<style>html, body { margin: 0; background: #1d3557; } #b { position: absolute; left: 10px; top: 40px; width: 50px; height: 50px; background: ${COLOURS[cell]}; }</style>\n</head>\n<body>\n` +
        `<div id="b"></div>\n${content}\n</body>\n</html>\n`;
      return { body: `<iframe src="${file}" style="position:absolute;left:${x}px;top:${y}px;width:190px;height:150px;border:0"></iframe>`, files: { [file]: page } };
    },
  },
  /** A cut: one clip ends on the frame the next starts, by absolute or relative start. */
  cut: {
    generate: (rng) => ({ at: rng.pick([rng.int(6, 54) / 30, rng.seconds(0.2, 1.8)]), media: rng.pick(['div', 'video', 'image']), relative: rng.chance(0.5) }),
    simplest: { at: 1, media: 'div', relative: false },
    render: (cell, o) => {
      const { x, y } = cellOrigin(cell);
      const at = Number(o.at);
      const rest = Number((2 - at).toFixed(4));
      const pos = `position:absolute;left:${x}px;top:${y}px;width:160px;height:90px`;
      const el = (id: string, start: string, duration: number, colour: string, mediaStart: number) =>
        o.media === 'video'
          ? `<video id="${id}" src="clip.mp4" data-start="${start}" data-duration="${duration}" data-media-start="${mediaStart}" muted playsinline style="${pos}"></video>`
          : o.media === 'image'
            ? `<img id="${id}" src="still.png" data-start="${start}" data-duration="${duration}" style="${pos};filter:hue-rotate(${mediaStart * 90}deg)">`
            : `<div id="${id}" data-start="${start}" data-duration="${duration}" style="${pos};background:${colour}"></div>`;
      return { body: el(`ca${cell}`, '0', at, COLOURS[cell], 0) + el(`cb${cell}`, o.relative ? `ca${cell}` : String(at), rest, '#ffffff', 2) };
    },
  },
} satisfies Record<string, KindSpec>;

export type Kind = keyof typeof KINDS;
export const KIND_NAMES = Object.keys(KINDS) as Kind[];

export function generatePart(rng: Rng, kind: Kind, cell: number): Part {
  return { kind, cell, options: KINDS[kind].generate(rng) };
}

export function renderPart(p: Part): Fragment {
  return KINDS[p.kind].render(p.cell, p.options);
}

export function simplestOptions(kind: Kind): Options {
  return KINDS[kind].simplest;
}

/** One line for a summary: the kind and its options. */
export function describePart(p: Part): string {
  return `${p.kind}[${Object.entries(p.options)
    .map(([k, v]) => `${k}=${v}`)
    .join(',')}]`;
}
