import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT, tempDir, vidkit } from '../test-support/cli';
import { frameHashes } from '../test-support/media';

// Frame i of a render is the same picture whichever worker draws it: a worker whose range starts
// at frame 40 gets there from the page's load as one that drew frames 0-39 did, and its browser
// draws frame 40 as that one's does. Each page below moves in one of the ways a page reads time,
// at 320x180, 2 s at 30 fps, rendered as ProRes (intra-only, so each frame's bytes come from its
// own capture) by 1, 2 and 3 workers and as rows of a batch, whose browser renders one row after
// another in a reset page; the decoded frames must be byte for byte the same.

const SECONDS = 2;
const FRAMES = SECONDS * 30;
const work = tempDir('vidkit-range-starts-');

/** A 320x180 composition: `css` and `body` inside the root, `script` after it, `head` before. */
function page(name: string, css: string, body: string, script: string, head = ''): string {
  const dir = path.join(work, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html><head><style>
      html,body{margin:0;background:#102030} #root{position:relative;width:320px;height:180px;overflow:hidden}
      .box{position:absolute;width:40px;height:40px;background:#f80;border-radius:8px}
      ${css}
    </style>${head}</head><body>
    <div id="root" data-composition-id="${name}" data-width="320" data-height="180" data-duration="${SECONDS}" data-fps="30">${body}</div>
    <script>${script}</script></body></html>`,
  );
  return dir;
}

const PAGES: Record<string, () => string> = {
  // Positions from performance.now(), the rAF timestamp and Date, at fractional pixels.
  raf: () =>
    page(
      'raf',
      '#a{top:10px} #b{top:70px;background:#0cf} #c{top:130px;background:#fff}',
      '<div class="box" id="a"></div><div class="box" id="b"></div><div class="box" id="c"></div>',
      `var a = document.getElementById('a'), b = document.getElementById('b'), c = document.getElementById('c');
      var born = Date.now();
      function loop(ts) {
        var t = performance.now() / 1000;
        a.style.left = (5 + 137.3 * t) + 'px';
        b.style.transform = 'translateX(' + (ts * 0.1317) + 'px) rotate(' + (ts * 0.09) + 'deg)';
        c.style.left = ((Date.now() - born) * 0.0911) + 'px';
        c.style.opacity = String(0.4 + 0.6 * Math.abs(Math.sin(t * 3)));
        requestAnimationFrame(loop);
      }
      requestAnimationFrame(loop);`,
    ),
  // A paused timeline with eases and a stagger, a set() a CSS transition follows, and a tween on
  // GSAP's own clock that a callback starts.
  gsap: () => {
    const dir = page(
      'gsap',
      '#a{top:10px} #b{top:70px;background:#0cf;transition:transform 0.7s ease-in-out} .s{top:130px;width:20px;height:20px;background:#fff}',
      '<div class="box" id="a"></div><div class="box" id="b"></div>' + [0, 1, 2, 3, 4].map((i) => `<div class="box s" style="left:${i * 30}px"></div>`).join(''),
      `var tl = gsap.timeline({ paused: true });
      tl.fromTo('#a', { x: 0, rotation: 0 }, { x: 263.7, rotation: 217, duration: 1.8, ease: 'power2.inOut' }, 0);
      tl.set('#b', { x: 211 }, 0.55);
      tl.call(function () { gsap.to('.s', { y: 33.3, x: 77.7, duration: 0.9, stagger: 0.13, ease: 'sine.inOut' }); }, null, 0.35);
      tl.to({}, { duration: ${SECONDS} }, 0);
      window.__timelines['gsap'] = tl;`,
      '<script src="gsap.min.js"></script>',
    );
    fs.copyFileSync(path.join(REPO_ROOT, 'node_modules', 'gsap', 'dist', 'gsap.min.js'), path.join(dir, 'gsap.min.js'));
    return dir;
  },
  // Timers that move boxes now and then beside a still one: the frames between repeat a picture,
  // and the browser redraws only the part of the page that changed.
  timers: () =>
    page(
      'timers',
      '#a{left:10px;top:10px} #b{left:110px;top:10px;background:#0a6} #c{left:10px;top:100px;background:#a06} #d{left:150px;top:100px;background:#666}',
      '<div class="box" id="a">a</div><div class="box" id="b">b</div><div class="box" id="c">c</div><div class="box" id="d">still</div>',
      `var a = document.getElementById('a'), b = document.getElementById('b'), c = document.getElementById('c'), n = 0;
      setInterval(function () {
        n++;
        a.style.transform = 'scale(' + (1 - 0.03 * n) + ')';
        b.style.transform = 'translateX(' + (7.3 * n) + 'px) scale(' + (0.9 + 0.04 * n) + ')';
        c.style.transform = 'translateX(' + (11.1 * n) + 'px)';
      }, 233);`,
    ),
  // A CSS animation, one a timer starts, and a transition a timer retargets mid-flight.
  css: () =>
    page(
      'css',
      `#a{top:10px;animation:spin 1.7s cubic-bezier(.3,.1,.2,1) infinite alternate}
      #b{top:70px;background:#0cf;transition:transform 0.9s ease-out, background-color 0.6s linear}
      #c{top:130px;background:#fff;display:none} #c.go{display:block;animation:spin 0.8s ease-in 2 alternate}
      @keyframes spin{from{transform:translateX(0) rotate(0)}to{transform:translateX(253.3px) rotate(190deg)}}`,
      '<div class="box" id="a"></div><div class="box" id="b"></div><div class="box" id="c"></div>',
      `var b = document.getElementById('b');
      setTimeout(function () { b.style.transform = 'translateX(230.7px) rotate(80deg)'; }, 150);
      setTimeout(function () { b.style.transform = 'translateX(40.3px) rotate(-30deg)'; b.style.backgroundColor = '#f0c'; }, 620);
      setTimeout(function () { b.style.transform = 'translateX(170.9px)'; }, 1330);
      setTimeout(function () { document.getElementById('c').classList.add('go'); }, 710);`,
    ),
  // Web Animations: eased, delayed, one started by a timer, one the page paused and resumed, one at another rate.
  waapi: () =>
    page(
      'waapi',
      '#a{top:10px} #b{top:70px;background:#0cf} #c{top:130px;background:#fff}',
      '<div class="box" id="a"></div><div class="box" id="b"></div><div class="box" id="c"></div>',
      `document.getElementById('a').animate([{ transform: 'translateX(0)' }, { transform: 'translateX(271.3px) rotate(133deg)' }], { duration: 1300, delay: 170, easing: 'ease-in-out', iterations: 2, direction: 'alternate', fill: 'both' });
      var b;
      setTimeout(function () { b = document.getElementById('b').animate([{ transform: 'translateX(0)', opacity: 1 }, { transform: 'translateX(250.1px)', opacity: 0.3 }], { duration: 1100, easing: 'cubic-bezier(.5,0,.2,1)', fill: 'forwards' }); }, 260);
      setTimeout(function () { b.pause(); }, 700);
      setTimeout(function () { b.play(); }, 1050);
      var c = document.getElementById('c').animate([{ transform: 'translateX(0) scale(1)' }, { transform: 'translateX(260px) scale(0.6)' }], { duration: 1900, fill: 'both' });
      c.playbackRate = 1.37;`,
    ),
  // A canvas drawn in each animation frame from its time, over a trail it keeps from frame to frame.
  canvas: () =>
    page(
      'canvas',
      'canvas{position:absolute;left:0;top:0}',
      '<canvas id="cv" width="320" height="180"></canvas>',
      `var ctx = document.getElementById('cv').getContext('2d');
      var trail = document.createElement('canvas'); trail.width = 320; trail.height = 180;
      var tctx = trail.getContext('2d');
      function draw(ts) {
        var t = ts / 1000;
        tctx.fillStyle = 'rgba(16,32,48,0.08)'; tctx.fillRect(0, 0, 320, 180);
        tctx.fillStyle = '#0cf'; tctx.beginPath(); tctx.arc(160 + 120 * Math.cos(t * 2.3), 90 + 70 * Math.sin(t * 3.1), 6, 0, 7); tctx.fill();
        ctx.clearRect(0, 0, 320, 180);
        ctx.drawImage(trail, 0, 0);
        ctx.save(); ctx.translate(30 + 130.7 * t, 90); ctx.rotate(t * 1.9);
        ctx.fillStyle = '#f80'; ctx.fillRect(-20, -20, 40, 40); ctx.restore();
        ctx.fillStyle = '#fff'; ctx.font = '14px sans-serif'; ctx.fillText(t.toFixed(3), 8, 170);
        requestAnimationFrame(draw);
      }
      requestAnimationFrame(draw);`,
    ),
  // An animated GIF (Chromium would advance it with the frames it draws) and an SVG animation
  // (on the SVG's own clock).
  images: () => {
    const dir = page(
      'images',
      'img{position:absolute;left:20px;top:20px;width:200px;height:60px} svg{position:absolute;left:0;top:100px}',
      '<img src="spin.gif"><svg width="320" height="80"><rect x="0" y="20" width="30" height="40" fill="#0cf"><animateTransform attributeName="transform" type="rotate" from="0 15 40" to="360 15 40" dur="1.3s" repeatCount="indefinite"/><animate attributeName="x" values="0;250;40" dur="1.7s" repeatCount="indefinite"/></rect></svg>',
      '',
    );
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=s=100x30:r=12:d=1.5', '-loop', '0', path.join(dir, 'spin.gif')]);
    return dir;
  },
  // A video clip starting 0.3 s in, and text written from the video's currentTime.
  video: () => {
    const dir = page(
      'video',
      'video{position:absolute;left:20px;top:20px;width:200px;height:120px} #t{position:absolute;left:8px;bottom:4px;color:#fff;font:14px sans-serif}',
      '<video src="clip.mp4" data-start="0.3" data-media-start="0.5" muted></video><div id="t"></div>',
      `var v = document.querySelector('video'), t = document.getElementById('t');
      function show() { t.textContent = v.currentTime.toFixed(3) + ' ' + performance.now().toFixed(2); requestAnimationFrame(show); }
      requestAnimationFrame(show);`,
    );
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=s=200x120:r=30:d=3', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '15', path.join(dir, 'clip.mp4')]);
    return dir;
  },
};

/** The framemd5 of each decoded frame of a render of `project` (ProRes unless `format`) by `workers` workers. */
function render(project: string, workers: number, format = 'mov'): string[] {
  const output = path.join(project, 'out', `${workers}-workers.${format}`);
  const run = vidkit(['render', project, '--format', format, '--output', output, '--workers', String(workers)]);
  assert.is(run.status, 0, run.stderr);
  return frameHashes(output);
}

/** The frames of each of two rows of a ProRes batch of `project`, drawn one after the other by one browser. */
function batch(project: string): string[][] {
  const rows = path.join(work, `${path.basename(project)}-rows.jsonl`);
  fs.writeFileSync(rows, ['first.mov', 'second.mov'].map((key) => JSON.stringify({ outputKey: key, variables: {} })).join('\n') + '\n');
  const outDir = path.join(project, 'out', 'batch');
  const run = vidkit(['render', project, '--batch', rows, '--output-dir', outDir, '--format', 'mov', '--batch-concurrency', '1']);
  assert.is(run.status, 0, run.stderr);
  return ['first.mov', 'second.mov'].map((key) => frameHashes(path.join(outDir, key)));
}

/** The frames of `got` that differ from `want`, as "N of M (first at F)", or '' when none. */
function differences(got: string[], want: string[]): string {
  assert.is(got.length, want.length);
  const differ = got.flatMap((h, i) => (h === want[i] ? [] : [i]));
  return differ.length === 0 ? '' : `${differ.length} of ${want.length} frames differ (frames ${differ.slice(0, 8).join(', ')}${differ.length > 8 ? ', ...' : ''})`;
}

for (const [name, make] of Object.entries(PAGES)) {
  test(`${name}: ProRes frames are byte-identical at 1, 2 and 3 workers and in a batch`, () => {
    const project = make();
    const one = render(project, 1);
    assert.is(one.length, FRAMES);
    // The page moves: identical frames that were all the same picture would prove nothing.
    assert.ok(new Set(one).size >= 8, `${name}: only ${new Set(one).size} distinct frames`);
    const [first, second] = batch(project);
    const renders: Array<[string, string[]]> = [
      ['2 workers', render(project, 2)],
      ['3 workers', render(project, 3)],
      ['batch row 1', first],
      ['batch row 2', second],
    ];
    const problems = renders.flatMap(([how, frames]) => {
      const diff = differences(frames, one);
      return diff ? [`${how}: ${diff}`] : [];
    });
    assert.equal(problems, [], `${name}: ${problems.join('; ')}`);
  });
}

// H.264 predicts a frame from those before it in its encoder: every render encodes the same cells,
// each alone, with x264 on one thread (render/plan/cell-grid.ts), so the worker count changes nothing.
for (const name of ['gsap', 'video'] as const) {
  test(`${name}: mp4 frames decode byte-identical at 1, 2 and 3 workers`, () => {
    const project = PAGES[name]();
    const one = render(project, 1, 'mp4');
    assert.is(one.length, FRAMES);
    const problems = [2, 3].flatMap((workers) => {
      const diff = differences(render(project, workers, 'mp4'), one);
      return diff ? [`${workers} workers: ${diff}`] : [];
    });
    assert.equal(problems, [], `${name}: ${problems.join('; ')}`);
  });
}

test.after(() => fs.rmSync(work, { recursive: true, force: true }));

test.run();
