import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CliRun, errorLines, tempDir, vidkit } from '../../test-support/cli';
import { CaptureSession } from './capture-session';
import { encodedImage } from './frame-image';
import { EgressPolicy } from '../serve/egress-policy';
import { QUALITY_SETTINGS } from '../../values/quality';
import { createRenderContext } from '../render-context';
import { serveComposition } from '../serve/served-composition';
import { decodeGray, decodeImageRgb, decodeRgbFrame, pictureTypes, psnr, readCode, rgbAt, videoClockProblems, writeCodeVideo, writeVideoClockProject } from '../../test-support/media';

// <video> pictures from the native decoder (docs/reference/formats.md, "Media on the timeline"): decoded frames of
// every output frame checked against the source frame HyperFrames' timing gives.
const work = tempDir('vidkit-video-frames-test-');

const CLOCK = path.join(work, 'video-clock');
writeVideoClockProject(CLOCK);

function project(name: string, files: Record<string, string>): string {
  const dir = path.join(work, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
  return dir;
}

function page(size: string, duration: number, body: string, style = ''): string {
  const [w, h] = size.split('x');
  return `<!doctype html><html data-composition-variables='[]'><head><style>html,body{margin:0;background:#000}${style}</style></head>
<body><div data-composition-id="v" data-width="${w}" data-height="${h}" data-duration="${duration}" data-fps="30">${body}</div></body></html>`;
}

/** `dir` (320 wide, `height` high) rendered by one worker: each frame's codes in the strips from rows `tops`. */
function renderedCodes(dir: string, name: string, height: number, tops: number[]): number[][] {
  const output = path.join(work, `${name}.mp4`);
  const run = vidkit(['render', dir, '--output', output, '--workers', '1']);
  assert.is(run.status, 0, run.stderr);
  return decodeGray(output, 320, height).map((frame) => tops.map((top) => readCode(frame, top)));
}

const exact = suite('video pictures: the exact source frame at every output frame');

const clockRenders = new Map<string, { output: string; run: CliRun }>();
/** CLOCK rendered by `workers` workers, once: two tests below check the 1-worker render. */
function renderClock(workers: string): { output: string; run: CliRun } {
  let rendered = clockRenders.get(workers);
  if (!rendered) {
    const output = path.join(work, `clock-${workers}.mp4`);
    rendered = { output, run: vidkit(['render', CLOCK, '--output', output, '--workers', workers]) };
    clockRenders.set(workers, rendered);
  }
  return rendered;
}

for (const workers of ['1', '3']) {
  exact(`rates 0.5/1/2, a start, a trim, 24/25/29.97 fps sources, a held last frame and a loop, --workers ${workers}; begin-frame capture`, () => {
    const { output, run } = renderClock(workers);
    assert.is(run.status, 0, run.stderr);
    assert.match(run.stderr, /capture beginframe/);
    const frames = decodeGray(output, 320, 200);
    assert.is(frames.length, 60);
    assert.equal(frames.flatMap((f, i) => videoClockProblems(f, i)), []);
  });
}

/**
 * CLOCK with `head` put first in its <head>, rendered by 1 worker with `args`: every frame shows its
 * source frame, and the same picture as CLOCK's own 1-worker render.
 */
function assertClockWithHead(name: string, head: string, args: string[] = []): void {
  const dir = path.join(work, name);
  writeVideoClockProject(dir);
  const index = path.join(dir, 'index.html');
  fs.writeFileSync(index, fs.readFileSync(index, 'utf8').replace('<head>', `<head>${head}`));
  const output = path.join(work, `${name}.mp4`);
  const run = vidkit(['render', dir, '--output', output, '--workers', '1', ...args]);
  assert.is(run.status, 0, run.stderr);
  const frames = decodeGray(output, 320, 200);
  assert.equal(frames.flatMap((f, i) => videoClockProblems(f, i)), []);
  const reference = renderClock('1');
  assert.is(reference.run.status, 0, reference.run.stderr);
  assert.ok(decodeGray(reference.output, 320, 200).every((f, i) => f.equals(frames[i])), `${name}: the frames differ from the clock's own render`);
}

exact('a clip whose span ends inside a frame shows as many frames as its span rounds to, as HyperFrames extracts them: the last one again at 31.2 frames, its own at 31.8', () => {
  const dir = project('partial-last-frame', {
    'index.html': page(
      '320x40',
      1.5,
      '<video src="code30.mp4" data-start="0" data-duration="1.04" muted style="position:absolute;top:0;left:0;width:320px;height:20px"></video>' +
        '<video src="code30.mp4" data-start="0" data-duration="1.06" muted style="position:absolute;top:20px;left:0;width:320px;height:20px"></video>',
    ),
  });
  writeCodeVideo(path.join(dir, 'code30.mp4'), '30', 2);
  const codes = renderedCodes(dir, 'partial-last-frame', 40, [0, 20]);
  assert.is(codes.length, 45);
  // 1.04 s: frames 0-31 are shown (31/30 s < 1.04 s), 31 frames extracted, so frame 31 shows 30.
  // 1.06 s: frames 0-31 shown, round(31.8) = 32 extracted: each its own.
  const want = (i: number) => [i < 31 ? i : i === 31 ? 30 : 0, i < 32 ? i : 0].join();
  assert.equal(codes.flatMap((got, i) => (got.join() === want(i) ? [] : [`frame ${i}: ${got}, want ${want(i)}`])), []);
});

exact('a page whose Content-Security-Policy forbids WebAssembly shows the same pictures, converted without it', () => {
  // The reorder without WebAssembly is bit-exact, so the two renders encode the same pictures.
  assertClockWithHead('video-clock-csp', `<meta http-equiv="Content-Security-Policy" content="script-src 'self' 'unsafe-inline'">`);
});

exact('a picture file read the browser leaves unanswered is read again: the same pictures, no frame timeout', () => {
  // Chromium now and then never answers a read of a picture file; this page makes two reads hang
  // that way (a byte stream that never yields), the 3rd and the 20th. Without the read's own
  // deadline the frame would wait out the 10 s frame timeout and fail the render.
  const hang = `<script>(function () {
    var stream = Blob.prototype.stream, reads = 0;
    Blob.prototype.stream = function () {
      reads++;
      if (reads === 3 || reads === 20) return new ReadableStream({ type: 'bytes', pull: function () { return new Promise(function () {}); } });
      return stream.call(this);
    };
  })();</script>`;
  assertClockWithHead('video-clock-hung-read', hang, ['--frame-timeout', '10']);
});

exact('vidkit still and a warm pool (--batch) show the same source frames', () => {
  const still = path.join(work, 'still.png');
  const one = vidkit(['still', CLOCK, '--frame', '37', '-o', still]);
  assert.is(one.status, 0, one.stderr);
  const gray = execFileSync('ffmpeg', ['-v', 'error', '-i', still, '-f', 'rawvideo', '-pix_fmt', 'gray', '-'], { maxBuffer: 1 << 24 });
  assert.equal(videoClockProblems(gray, 37), []);

  const batch = path.join(work, 'rows.jsonl');
  fs.writeFileSync(batch, `${JSON.stringify({ outputKey: 'a.mp4', variables: {} })}\n${JSON.stringify({ outputKey: 'b.mp4', variables: {} })}\n`);
  const outDir = path.join(work, 'batch');
  const pool = vidkit(['render', CLOCK, '--batch', batch, '--output-dir', outDir, '--batch-concurrency', '1']);
  assert.is(pool.status, 0, pool.stderr);
  for (const name of ['a.mp4', 'b.mp4']) {
    const frames = decodeGray(path.join(outDir, name), 320, 200);
    assert.is(frames.length, 60, name);
    assert.equal(frames.flatMap((f, i) => videoClockProblems(f, i)), [], name);
  }
});

exact('ten 1080p videos on one page each show their frame at every output frame', () => {
  // Ten 3 MB pictures a frame: read all at once, Chromium left one read unanswered now and then
  // on a busy machine, and frame 0 waited for its timeout.
  // Each video shows its top-left 320x20, where the frame number is, in a row of its own.
  const videos = Array.from({ length: 10 }, (_, i) => `<video src="code.mp4" muted style="position:absolute;left:0;top:${i * 20}px;width:320px;height:20px;object-fit:none;object-position:0 0"></video>`);
  const dir = project('ten-videos', { 'index.html': page('320x200', 1, videos.join('')) });
  writeCodeVideo(path.join(dir, 'code.mp4'), '30', 1, '1920x1080');
  const output = path.join(work, 'ten-videos.mp4');
  const run = vidkit(['render', dir, '--output', output, '--workers', '1', '--frame-timeout', '20']);
  assert.is(run.status, 0, run.stderr);
  const frames = decodeGray(output, 320, 200);
  assert.is(frames.length, 30);
  const wrong = frames.flatMap((f, i) => Array.from({ length: 10 }, (_, row) => readCode(f, row * 20)).flatMap((code, row) => (code === i ? [] : [`frame ${i} row ${row}: ${code}`])));
  assert.equal(wrong, []);
});

const scripts = suite('video pictures: what scripts see');

scripts('a WebGL texture, a canvas drawImage and a VideoFrame of a hidden video show its frame at every output frame', () => {
  const dir = project('textures', {
    'index.html': page(
      '320x60',
      1,
      `<video id="src" src="code30.mp4" muted style="display:none"></video>
<canvas id="gl" width="320" height="20"></canvas><canvas id="two" width="320" height="20"></canvas><canvas id="wc" width="320" height="20"></canvas>
<script>
var video = document.getElementById('src');
var gl = document.getElementById('gl').getContext('webgl', { preserveDrawingBuffer: true });
function shader(type, text) { var s = gl.createShader(type); gl.shaderSource(s, text); gl.compileShader(s); return s; }
var program = gl.createProgram();
gl.attachShader(program, shader(gl.VERTEX_SHADER, 'attribute vec2 p; varying vec2 uv; void main() { uv = vec2((p.x + 1.0) / 2.0, (1.0 - p.y) / 2.0); gl_Position = vec4(p, 0.0, 1.0); }'));
gl.attachShader(program, shader(gl.FRAGMENT_SHADER, 'precision mediump float; uniform sampler2D t; varying vec2 uv; void main() { gl_FragColor = texture2D(t, uv); }'));
gl.linkProgram(program);
gl.useProgram(program);
gl.bindBuffer(gl.ARRAY_BUFFER, gl.createBuffer());
gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 1, -1, -1, 1, 1, 1]), gl.STATIC_DRAW);
gl.enableVertexAttribArray(0);
gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 0, 0);
gl.bindTexture(gl.TEXTURE_2D, gl.createTexture());
[gl.TEXTURE_WRAP_S, gl.TEXTURE_WRAP_T].forEach(function (p) { gl.texParameteri(gl.TEXTURE_2D, p, gl.CLAMP_TO_EDGE); });
gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
var two = document.getElementById('two').getContext('2d');
var wc = document.getElementById('wc').getContext('2d');
function draw() {
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, video);
  gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
  two.drawImage(video, 0, 0);
  var frame = new VideoFrame(video);
  wc.drawImage(frame, 0, 0);
  frame.close();
  requestAnimationFrame(draw);
}
requestAnimationFrame(draw);
</script>`,
      'canvas{display:block}',
    ),
  });
  writeCodeVideo(path.join(dir, 'code30.mp4'), '30', 1);
  const codes = renderedCodes(dir, 'textures', 60, [0, 20, 40]);
  assert.is(codes.length, 30);
  assert.equal(codes.flatMap((got, i) => (got.join() === [i, i, i].join() ? [] : [`frame ${i}: WebGL, drawImage, VideoFrame show ${got}, want ${i}`])), []);
});

scripts('the element reports its source: metadata events, size, duration, readyState, and a currentTime set before it plays starts it there', () => {
  // Bars from what the page read: videoWidth / 2, duration x 100 px (3 s: 300), a full bar once
  // canplaythrough came with readyState 4; the strip below plays from the currentTime the page set
  // once 'seeked' told it the seek ended.
  const dir = project('reports', {
    'index.html': page(
      '320x80',
      0.5,
      `<div id="a" class="bar"></div><div id="b" class="bar"></div><div id="c" class="bar"></div>
<video id="v" src="code30.mp4" muted style="position:absolute;left:0;top:60px;width:320px;height:20px"></video>
<script>
var v = document.getElementById('v');
var ready = new Promise(function (resolve) {
  v.addEventListener('loadedmetadata', function () {
    document.getElementById('a').style.width = v.videoWidth / 2 + 'px';
    document.getElementById('b').style.width = v.duration * 100 + 'px';
  });
  v.addEventListener('canplaythrough', function () {
    if (v.readyState === 4) document.getElementById('c').style.width = '320px';
    v.addEventListener('seeked', function () { resolve(); }, { once: true });
    v.currentTime = 1;
  });
});
window.__vidkit.waitFor(ready);
</script>`,
      '.bar{height:20px;background:#fff;width:0}',
    ),
  });
  writeCodeVideo(path.join(dir, 'code30.mp4'), '30', 3);
  const output = path.join(work, 'reports.mp4');
  const run = vidkit(['render', dir, '--output', output, '--workers', '1']);
  assert.is(run.status, 0, run.stderr);
  const frames = decodeGray(output, 320, 80);
  const edge = (f: Buffer, y: number) => {
    let x = 0;
    while (x < 320 && f[y * 320 + x] > 128) x++;
    return x;
  };
  assert.equal([edge(frames[0], 10), edge(frames[0], 30), edge(frames[0], 50)], [160, 300, 320]);
  assert.equal(frames.map((f) => readCode(f, 60)), frames.map((_, i) => 30 + i));
});

const looks = suite('video pictures: how the page shows them');

/**
 * Frame 0 of `dir` as the browser draws it playing its videos itself (a capture session without
 * the render's asset router), screenshot capture: what the native pictures must look like.
 */
async function browserPicture(dir: string): Promise<Buffer> {
  const context = await createRenderContext({
    projectDir: dir, overrides: {}, strictVariables: false, format: 'mp4', capture: 'screenshot', allowGpu: false, ...QUALITY_SETTINGS.standard, frameFormat: { type: 'png' },
  });
  const served = await serveComposition(context.composition, fs.mkdtempSync(path.join(work, 'served-')), {});
  const session = await CaptureSession.open({ ...context.sessionOptions(served.url, undefined), egress: new EgressPolicy({ projectServer: served.url }) });
  try {
    const file = path.join(work, `${path.basename(dir)}-browser.png`);
    fs.writeFileSync(file, encodedImage((await session.capture(0, true))!));
    return decodeImageRgb(file);
  } finally {
    await session.close();
    await served.close();
  }
}

// A video of one still picture: the element's CSS must draw the native picture as the browser draws its own.
const CSS_CASES = [
  'object-fit:contain;object-position:0 100%;background:#335',
  'object-fit:cover;border-radius:50%;box-shadow:0 0 12px #fff',
  'transform:rotate(12deg) scale(.8);opacity:.6',
  'object-fit:cover;filter:saturate(2) blur(1px);clip-path:polygon(50% 0,100% 50%,50% 100%,0 50%)',
  'padding:8px;border:6px solid #f80;border-radius:24px;object-fit:cover;width:152px;height:92px',
  'object-fit:none;object-position:30% 70%;translate:8px 4px;rotate:-6deg',
];

looks('object-fit, object-position, radii, transforms, opacity, filters and clip-path draw the picture as the browser draws its own video; a caption after it stays on top', async () => {
  const cells = CSS_CASES.map(
    (css, i) =>
      `<div class="cell" style="left:${(i % 3) * 210}px;top:${Math.floor(i / 3) * 210}px"><video class="m" src="still.mp4" muted style="${css}"></video>${i === 5 ? '<b class="cap"></b>' : ''}</div>`,
  ).join('');
  const style = '[data-composition-id]{background:#000}.cell{position:absolute;width:200px;height:200px;background:#575}.m{position:absolute;left:10px;top:40px;width:180px;height:120px}.cap{position:absolute;left:20px;top:90px;background:#fff;width:160px;height:20px}';
  const dir = project('css', { 'index.html': page('630x420', 0.1, cells, style) });
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=s=320x180:r=30:d=1', '-vf', 'select=eq(n\\,5),gblur=sigma=2,loop=30:1:0', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', path.join(dir, 'still.mp4')]);
  const output = path.join(work, 'css.png');
  const run = vidkit(['still', dir, '-o', output]);
  assert.is(run.status, 0, run.stderr);
  const shots = [decodeImageRgb(output), await browserPicture(dir)];
  const cell = (rgb: Buffer, i: number) => {
    const rows: Buffer[] = [];
    for (let y = 0; y < 200; y++) {
      const at = ((Math.floor(i / 3) * 210 + y) * 630 + (i % 3) * 210) * 3;
      rows.push(rgb.subarray(at, at + 200 * 3));
    }
    return Buffer.concat(rows);
  };
  // Placed to the pixel: a 2 px shift measures 19-24 dB here. What remains is how a scaled
  // picture is filtered (the browser's video layer keeps edges sharper than a scaled canvas): 34
  // dB on this blurred picture at two-thirds scale.
  const low = CSS_CASES.map((css, i) => ({ css, db: psnr(cell(shots[0], i), cell(shots[1], i)) })).filter((c) => c.db < 30);
  assert.equal(low, []);
  // The caption (white) over the picture.
  assert.ok(rgbAt(shots[0], 630, 2 * 210 + 100, 210 + 100).every((c) => c > 240), 'caption on top');
});

looks('a VP9 video with alpha keeps it: the page background shows through where the video is transparent', () => {
  const dir = project('alpha', { 'index.html': page('320x180', 0.2, '<video src="alpha.webm" muted style="display:block;width:320px;height:180px"></video>', 'html,body{background:#00f}') });
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=red@0.5:s=320x180:r=30:d=0.5,format=yuva420p', '-c:v', 'libvpx-vp9', '-deadline', 'realtime', path.join(dir, 'alpha.webm')]);
  const output = path.join(work, 'alpha.mp4');
  const run = vidkit(['render', dir, '--output', output, '--workers', '1']);
  assert.is(run.status, 0, run.stderr);
  const [r, g, b] = rgbAt(decodeRgbFrame(output, 3, 320, 180), 320, 160, 90);
  // Half red over blue.
  assert.ok(Math.abs(r - 128) < 16 && g < 16 && Math.abs(b - 128) < 16, `pixel ${[r, g, b]}`);
});

const failures = suite('video pictures: sources that cannot play');

failures('a video libav cannot decode fails the render before frame 0, naming the file and libav\'s reason; a missing one names its path, exit 2', () => {
  const dir = project('broken', { 'index.html': page('320x180', 0.5, '<video src="broken.mp4" muted></video>'), 'broken.mp4': 'this is not a video' });
  const run = vidkit(['render', dir, '--output', path.join(work, 'broken.mp4'), '--workers', '2']);
  assert.is(run.status, 2, run.stderr);
  assert.equal(errorLines(run.stderr), ['vidkit: error: media broken.mp4 cannot be played: cannot open it as a media file: Invalid data found when processing input']);
  assert.not.ok(fs.existsSync(path.join(work, 'broken.mp4')));

  fs.writeFileSync(path.join(dir, 'index.html'), page('320x180', 0.5, '<video src="gone.mp4" muted></video>'));
  const missing = vidkit(['render', dir, '--output', path.join(work, 'gone.mp4'), '--workers', '1']);
  assert.is(missing.status, 2, missing.stderr);
  assert.equal(errorLines(missing.stderr), ['vidkit: error: media gone.mp4 cannot be played: the project has no such file']);
});

const encoding = suite('video pages: how they are encoded');

encoding('a page with a <video> is encoded with one B-frame between references; a page without keeps x264 choosing up to three', () => {
  const box = project('moving-box', {
    'index.html': page('320x200', 2, '<div id="b"></div>', '#b{position:absolute;top:60px;width:80px;height:80px;background:linear-gradient(90deg,#f80,#08f);animation:m 2s linear forwards}@keyframes m{from{left:0}to{left:240px}}'),
  });
  const [video, graphics] = [CLOCK, box].map((dir, i) => {
    const output = path.join(work, `b-frames-${i}.mp4`);
    const run = vidkit(['render', dir, '--output', output, '--workers', '1']);
    assert.is(run.status, 0, run.stderr);
    return pictureTypes(output);
  });
  assert.is(video.length, 60);
  // Four cells of 15 frames, each encoded alone (render/plan/cell-grid.ts): each starts with a keyframe.
  assert.match(video, /^(I(BP)+P?){4}$/);
  assert.is(graphics.length, 60);
  assert.match(graphics, /BBB/);
});

encoding.after(() => fs.rmSync(work, { recursive: true, force: true }));

exact.run();
scripts.run();
looks.run();
failures.run();
encoding.run();
