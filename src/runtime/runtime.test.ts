import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT, tempDir, vidkit, vidkitAsync } from '../test-support/cli';
import { decodeGray, decodeRgbFrame, leftEdge, rgbAt } from '../test-support/media';

const clock = suite('virtual clock: GSAP timelines and timers');

/** A 640x360 project of white bars on black, with GSAP beside it: `css` and `bars` inside, `script` after. */
function gsapProject(prefix: string, seconds: number, css: string, bars: string, script: string): string {
  const project = tempDir(prefix);
  fs.copyFileSync(path.join(REPO_ROOT, 'node_modules', 'gsap', 'dist', 'gsap.min.js'), path.join(project, 'gsap.min.js'));
  fs.writeFileSync(
    path.join(project, 'index.html'),
    `<!doctype html><html><head><style>
      html,body{margin:0;background:#000} #root{position:relative;width:640px;height:360px;overflow:hidden}
      .bar{position:absolute;left:0;width:160px;height:100px;background:#fff}
      ${css}
    </style><script src="gsap.min.js"></script></head><body>
    <div id="root" data-composition-id="gsap" data-width="640" data-height="360" data-duration="${seconds}">${bars}</div>
    <script>${script}</script></body></html>`,
  );
  return project;
}

clock('a paused GSAP timeline and an animation started by setTimeout follow the clock across seams', () => {
  // #g: GSAP moves it 4 px a frame. #t: a CSS animation a timer starts at 2 s, 4 px a frame from then.
  const project = gsapProject(
    'vidkit-gsap-',
    4,
    `#g{top:40px} #t{top:200px;display:none}
      #t.go{display:block;animation:slide 2s linear both}
      @keyframes slide{from{transform:translateX(0)}to{transform:translateX(240px)}}`,
    '<div class="bar" id="g"></div><div class="bar" id="t"></div>',
    `var tl = gsap.timeline({ paused: true });
      tl.fromTo('#g', { x: 0 }, { x: 480, duration: 4, ease: 'none' });
      window.__timelines['main'] = tl;
      setTimeout(function () { document.getElementById('t').classList.add('go'); }, 2000);`,
  );
  const output = path.join(project, 'out.mp4');
  const run = vidkit(['render', project, '--output', output, '--workers', '3']);
  assert.is(run.status, 0, run.stderr);
  const frames = decodeGray(output, 640, 360);
  assert.is(frames.length, 120);
  for (const i of [0, 1, 39, 40, 41, 59, 60, 61, 79, 80, 81, 119]) {
    const g = leftEdge(frames[i], 90);
    assert.ok(Math.abs(g - 4 * i) <= 1, `GSAP edge at frame ${i}: ${g}, want ${4 * i}`);
    const t = leftEdge(frames[i], 250);
    const want = i < 60 ? -1 : 4 * (i - 60);
    assert.ok(i < 60 ? t === -1 : Math.abs(t - want) <= 1, `timer-started animation at frame ${i}: ${t}, want ${want}`);
  }
});

clock('a transition and a tween a timeline sets off between frames are where they would be at a later worker\'s first frame', () => {
  // #c: a CSS transition (0.8 s, linear) the timeline sets off at 0.5 s. #k: a tween on GSAP's own
  // clock that a callback of the timeline starts at 0.4 s, before that frame's tick of GSAP's clock:
  // it has moved one frame when frame 12 is drawn, as HyperFrames draws it. The second and third
  // workers start at frames 20 and 40, after both began: they must not start them again there.
  const project = gsapProject(
    'vidkit-stepped-',
    2,
    '#c{top:40px;transition:transform 0.8s linear} #k{top:200px}',
    '<div class="bar" id="c"></div><div class="bar" id="k"></div>',
    `var tl = gsap.timeline({ paused: true });
      tl.set('#c', { x: 320 }, 0.5);
      tl.call(function () { gsap.to('#k', { x: 300, duration: 1, ease: 'none' }); }, null, 0.4);
      tl.to({}, { duration: 2 }, 0);
      window.__timelines['gsap'] = tl;`,
  );
  const edges = (workers: number) => {
    const output = path.join(project, `out-${workers}.mp4`);
    const run = vidkit(['render', project, '--output', output, '--workers', String(workers)]);
    assert.is(run.status, 0, run.stderr);
    const frames = decodeGray(output, 640, 360);
    assert.is(frames.length, 60);
    return frames.map((frame) => [leftEdge(frame, 90), leftEdge(frame, 250)]);
  };
  const one = edges(1);
  const three = edges(3);
  for (const i of [14, 15, 19, 20, 21, 27, 39, 40, 41, 59]) {
    const transition = Math.round(320 * Math.min(1, Math.max(0, (i - 15) / 24)));
    const tween = Math.round(300 * Math.min(1, Math.max(0, (i - 11) / 30)));
    for (const [name, got] of [['1 worker', one[i]], ['3 workers', three[i]]] as const) {
      assert.ok(Math.abs(got[0] - transition) <= 2, `${name}: transition at frame ${i}: ${got[0]}, want ${transition}`);
      assert.ok(Math.abs(got[1] - tween) <= 2, `${name}: tween at frame ${i}: ${got[1]}, want ${tween}`);
    }
  }
});

clock.run();

const readiness = suite('readiness');

/** A loopback server answering each path in `files` after its delay (CORS open), 404 otherwise. */
async function serveSlowly(files: Record<string, { body: Buffer; delayMs: number }>): Promise<{ server: http.Server; base: string }> {
  const server = http.createServer((req, res) => {
    const file = files[req.url ?? ''];
    if (!file) return void res.writeHead(404).end();
    setTimeout(() => res.writeHead(200, { 'access-control-allow-origin': '*' }).end(file.body), file.delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

readiness('frame 0 waits for slow images and web fonts', async () => {
  const png = execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=red:s=320x180', '-frames:v', '1', '-f', 'image2', '-c:v', 'png', '-']);
  const font = fs.readFileSync('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf');
  // The font arrives well after the image, so waiting for images alone would not be enough.
  const { server, base } = await serveSlowly({ '/slow.png': { body: png, delayMs: 1000 }, '/slow.ttf': { body: font, delayMs: 2500 } });
  const project = tempDir('vidkit-ready-');
  fs.writeFileSync(
    path.join(project, 'index.html'),
    `<!doctype html><html><head><style>
      html,body{margin:0} @font-face{font-family:Slow;src:url(${base}/slow.ttf)}
      #root{position:relative;width:320px;height:180px;background:#000}
      #flag{position:absolute;right:0;bottom:0;width:40px;height:40px;background:#888}
    </style></head><body>
    <div id="root" data-composition-id="ready" data-width="320" data-height="180" data-duration="0.2">
      <div id="flag"></div>
    </div>
    <script>
      // Added after the load event, which would otherwise have waited for them itself.
      window.addEventListener('load', function () {
        document.getElementById('root').insertAdjacentHTML('afterbegin',
          '<img src="${base}/slow.png" style="display:block;width:320px;height:140px"><span style="font-family:Slow">Aa</span>');
      });
      requestAnimationFrame(function () {
        var face = Array.from(document.fonts).find(function (f) { return f.family === 'Slow'; });
        document.getElementById('flag').style.background = face && face.status === 'loaded' ? '#00ff00' : '#ff0000';
      });
    </script></body></html>`,
  );
  const output = path.join(project, 'out.mp4');
  // The slow server listens on loopback, which a render fetches from only when allowed.
  const run = await vidkitAsync(['render', project, '--output', output, '--allow-private-network']);
  server.close();
  assert.is(run.status, 0, run.stderr);
  const frame0 = decodeRgbFrame(output, 0, 320, 180);
  const [ir, ig, ib] = rgbAt(frame0, 320, 160, 60);
  assert.ok(ir > 220 && ig < 40 && ib < 40, `image shown at frame 0: ${[ir, ig, ib]}`);
  const [fr, fg, fb] = rgbAt(frame0, 320, 300, 160);
  assert.ok(fr < 40 && fg > 220 && fb < 40, `font loaded before frame 0: ${[fr, fg, fb]}`);
});

readiness('a CSS animation shorter than the page took to load still plays from frame 0', async () => {
  const png = execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=gray:s=64x64', '-frames:v', '1', '-f', 'image2', '-c:v', 'png', '-']);
  // The document's timeline runs on the wall clock: this image keeps the load event 1.5 s away, longer than the animation lasts.
  const { server, base } = await serveSlowly({ '/slow.png': { body: png, delayMs: 1500 } });
  const project = tempDir('vidkit-short-css-');
  fs.writeFileSync(
    path.join(project, 'index.html'),
    `<!doctype html><html><head><style>
      html,body{margin:0}
      #root{position:relative;width:640px;height:360px;background:#000}
      #box{position:absolute;left:40px;top:100px;width:40px;height:40px;background:#fff;animation:slide 1s linear}
      @keyframes slide{from{transform:translateX(0)}to{transform:translateX(300px)}}
    </style></head><body>
    <div id="root" data-composition-id="short-css" data-width="640" data-height="360" data-duration="1">
      <img src="${base}/slow.png" style="position:absolute;left:0;top:300px;width:32px;height:32px">
      <div id="box"></div>
    </div></body></html>`,
  );
  // A begin-frame browser draws nothing until the page is ready; a screenshot one draws, and starts the animation, while it loads.
  try {
    for (const capture of ['beginframe', 'screenshot']) {
      const output = path.join(project, `${capture}.mp4`);
      const run = await vidkitAsync(['render', project, '--output', output, '--allow-private-network', '--capture', capture]);
      assert.is(run.status, 0, run.stderr);
      const frames = decodeGray(output, 640, 360);
      assert.is(frames.length, 30);
      const edges = [0, 10, 20, 29].map((i) => leftEdge(frames[i], 120));
      const want = [0, 10, 20, 29].map((i) => 40 + 10 * i);
      assert.ok(edges.every((x, k) => Math.abs(x - want[k]) <= 2), `--capture ${capture}: box left edges at frames 0, 10, 20, 29: ${edges}, want ${want}`);
    }
  } finally {
    server.close();
  }
});

readiness.run();

const images = suite('animated images and SVG animations');

/** Writes `file` (GIF or WebP): 20 pictures of 100 ms, 160x40, a white bar 8 px further right on each, looping. */
function writeBarAnimation(file: string): void {
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'color=white:s=8x40', '-f', 'lavfi', '-i', 'color=black:s=160x40:r=10:d=2',
    '-filter_complex', "[1:v][0:v]overlay=x='8*n':shortest=1", '-loop', '0', file]);
}

/** Where the bar starts on row `y` of each picture of `file`, as ffmpeg decodes it, over `scale`; -1 where none. */
function barStarts(file: string, width: number, height: number, y: number, scale = 1): number[] {
  return decodeGray(file, width, height).map((picture) => {
    for (let x = 0; x < width; x++) if (picture[y * width + x] > 128) return x / scale;
    return -1;
  });
}

images('an animated GIF and WebP show the picture of the frame\'s time, an SVG animation moves with the clock, at any worker count', () => {
  // Each image has 20 pictures of 100 ms (160x40, one loop is 2 s), each a white bar further right.
  // The SVG's rect moves from x 0 to 300 in 1.5 s, then again.
  const project = tempDir('vidkit-animated-images-');
  for (const file of ['bar.gif', 'bar.webp']) writeBarAnimation(path.join(project, file));
  fs.writeFileSync(
    path.join(project, 'index.html'),
    `<!doctype html><html><head><style>
      html,body{margin:0;background:#000} #root{position:relative;width:640px;height:360px;overflow:hidden}
      img,svg{position:absolute;left:0}
    </style></head><body>
    <div id="root" data-composition-id="images" data-width="640" data-height="360" data-duration="2" data-no-timeline>
      <img src="bar.gif" style="top:20px;width:160px;height:40px"><img src="bar.webp" style="top:100px;width:160px;height:40px">
      <svg width="640" height="60" style="top:200px"><rect x="0" y="10" width="20" height="40" fill="#fff"><animate attributeName="x" from="0" to="300" dur="1.5s" repeatCount="indefinite"/></rect></svg>
    </div></body></html>`,
  );
  // Where each picture's bar is, as ffmpeg decodes the GIF (-1: past the image's right edge).
  const bars = barStarts(path.join(project, 'bar.gif'), 160, 40, 20);
  assert.is(bars.length, 20);
  const renders = [1, 3].map((workers) => {
    const output = path.join(project, `out-${workers}.mp4`);
    const run = vidkit(['render', project, '--output', output, '--workers', String(workers), '--quality', 'high']);
    assert.is(run.status, 0, run.stderr);
    return decodeGray(output, 640, 360);
  });
  for (const [k, frames] of renders.entries()) {
    assert.is(frames.length, 60);
    const wrong: string[] = [];
    frames.forEach((f, i) => {
      const bar = bars[Math.floor(i / 3)];
      const rect = (300 * ((i / 30) % 1.5)) / 1.5;
      const got = [leftEdge(f, 40), leftEdge(f, 120), leftEdge(f, 230)];
      if (got[0] !== bar || got[1] !== bar || Math.abs(got[2] - rect) > 1) wrong.push(`frame ${i}: gif ${got[0]}, webp ${got[1]}, svg ${got[2]}; want ${bar}, ${bar}, ${rect.toFixed(1)}`);
    });
    assert.equal(wrong, [], `${k === 0 ? 1 : 3} workers`);
  }
});

images('an animated GIF plays from its clip\'s start, or from when a script adds it or gives it a new source', () => {
  // 20 pictures of 100 ms, a white bar 8 px further right on each. #a: in a clip from 0.3 s, there
  // from the start. #b: added to that clip by a timer at 1 s. #c: a still image until a timer gives
  // it the GIF at 0.5 s.
  const project = tempDir('vidkit-animated-starts-');
  writeBarAnimation(path.join(project, 'bar.gif'));
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'color=black:s=160x40', '-frames:v', '1', path.join(project, 'still.png')]);
  fs.writeFileSync(
    path.join(project, 'index.html'),
    `<!doctype html><html><head><style>
      html,body{margin:0;background:#000} #root{position:relative;width:640px;height:360px;overflow:hidden}
      img{position:absolute;left:0;width:160px;height:40px}
    </style></head><body>
    <div id="root" data-composition-id="starts" data-width="640" data-height="360" data-duration="2" data-no-timeline>
      <div id="clip" data-start="0.3" data-duration="1.7"><img id="a" src="bar.gif" style="top:20px"></div>
      <img id="c" src="still.png" style="top:180px">
    </div>
    <script>
      setTimeout(function () { var b = document.createElement('img'); b.src = 'bar.gif'; b.style.top = '100px'; document.getElementById('clip').appendChild(b); }, 1000);
      setTimeout(function () { document.getElementById('c').src = 'bar.gif'; }, 500);
    </script></body></html>`,
  );
  const bars = barStarts(path.join(project, 'bar.gif'), 160, 40, 20);
  const output = path.join(project, 'out.mp4');
  const run = vidkit(['render', project, '--output', output, '--workers', '2', '--quality', 'high']);
  assert.is(run.status, 0, run.stderr);
  const frames = decodeGray(output, 640, 360);
  assert.is(frames.length, 60);
  const wrong: string[] = [];
  const at = (i: number, fromFrame: number) => (i < fromFrame ? -1 : bars[Math.floor((i - fromFrame) / 3) % 20]);
  frames.forEach((f, i) => {
    const want = [at(i, 9), at(i, 30), at(i, 15)];
    const got = [leftEdge(f, 40), leftEdge(f, 120), leftEdge(f, 200)];
    if (got.some((x, k) => x !== want[k])) wrong.push(`frame ${i}: ${got.join(', ')}; want ${want.join(', ')}`);
  });
  assert.equal(wrong, []);
});

images('a GIF whose pictures take more than the bytes kept for them shows the picture of every frame\'s time, loop after loop', () => {
  // 24 pictures of 100 ms at 1920x1080, looping every 2.4 s; above, a white bar 80 px further right
  // on each picture; below, noise, so that each picture made as a PNG takes about 5 MB, 120 MB in
  // all: more than the runtime keeps of one image (96 MB), so the second loop makes pictures again.
  const project = tempDir('vidkit-animated-big-');
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'color=white:s=80x180', '-f', 'lavfi', '-i', 'color=black:s=1920x180:r=10:d=2.4',
    '-f', 'lavfi', '-i', 'nullsrc=s=1920x900:r=10:d=2.4,geq=random(1)*255:random(2)*255:random(3)*255',
    '-filter_complex', "[1:v][0:v]overlay=x='80*n':shortest=1[top];[top][2:v]vstack", '-loop', '0', path.join(project, 'big.gif')]);
  fs.writeFileSync(
    path.join(project, 'index.html'),
    `<!doctype html><html><head><style>
      html,body{margin:0;background:#000} #root{position:relative;width:640px;height:360px;overflow:hidden}
      img{position:absolute;left:0;top:0;width:640px;height:360px}
    </style></head><body>
    <div id="root" data-composition-id="big" data-width="640" data-height="360" data-duration="5" data-no-timeline>
      <img src="big.gif">
    </div></body></html>`,
  );
  // Where each picture's bar starts, as ffmpeg decodes the GIF, in the 640 px drawn (-1: none).
  const bars = barStarts(path.join(project, 'big.gif'), 1920, 1080, 90, 3);
  assert.is(bars.length, 24);
  const output = path.join(project, 'out.mp4');
  const run = vidkit(['render', project, '--output', output, '--quality', 'high']);
  assert.is(run.status, 0, run.stderr);
  const frames = decodeGray(output, 640, 360);
  assert.is(frames.length, 150);
  const wrong: string[] = [];
  frames.forEach((f, i) => {
    const want = bars[Math.floor(i / 3) % 24];
    const got = leftEdge(f, 30);
    if (want < 0 ? got !== -1 : Math.abs(got - want) > 1) wrong.push(`frame ${i}: bar at ${got}, want ${want.toFixed(1)}`);
  });
  assert.equal(wrong, []);
});

images.run();
