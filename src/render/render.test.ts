import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FIXTURES, errorLines, frameClock, tempDir, vidkit } from '../test-support/cli';
import { decodeGray, decodeRgbFrame, ffprobe, leftEdge, readBits, rgbAt } from '../test-support/media';

const out = tempDir('vidkit-render-test-');
const fixture = (name: string) => path.join(FIXTURES, name);

function render(name: string, file: string, extra: string[] = []) {
  const output = path.join(out, file);
  const run = vidkit(['render', fixture(name), '--output', output, ...extra]);
  return { output, run };
}

const clock = suite('frame accuracy');

for (const workers of ['1', '3']) {
  clock(`frame-clock decodes to frame i = i for every frame, --workers ${workers}`, () => {
    const { output, run } = render('frame-clock', `clock-${workers}.mp4`, ['--workers', workers]);
    assert.is(run.status, 0, run.stderr);
    assert.is(run.stdout.trim(), output);
    const frames = decodeGray(output, 640, 360);
    assert.is(frames.length, 150);
    const wrong: string[] = [];
    frames.forEach((f, i) => {
      const got = [readBits(f, 0), readBits(f, 1), readBits(f, 2)];
      if (got.some((v) => v !== i)) wrong.push(`frame ${i}: performance.now ${got[0]}, rAF ${got[1]}, Date ${got[2]}`);
    });
    assert.equal(wrong, []);
  });
}

/**
 * frame-clock made 10 s long, its clock stopping after frame 149: the second half holds still.
 * Until then, two layers of noise cross-fade every frame behind the clock's blocks, over the whole
 * picture: costly to capture and encode.
 */
function clockThenHold(): string {
  const dir = path.join(out, 'clock-hold');
  fs.mkdirSync(dir, { recursive: true });
  const noise = `
  <canvas class="noise" width="1280" height="720"></canvas><canvas class="noise" width="1280" height="720"></canvas>
</div>
<style>.noise{position:absolute;left:0;top:0;width:640px;height:360px}#c{position:relative;z-index:1}</style>
<script>
  var noise = document.querySelectorAll('.noise'), seed = 1;
  noise.forEach(function (c) {
    var g = c.getContext('2d'), img = g.createImageData(c.width, c.height);
    for (var i = 0; i < img.data.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      img.data[i] = i % 4 === 3 ? 255 : seed >> 23;
    }
    g.putImageData(img, 0, 0);
  });`;
  const html = fs
    .readFileSync(path.join(fixture('frame-clock'), 'index.html'), 'utf8')
    .replace('data-duration="5"', 'data-duration="10"')
    .replace('</div>\n<script>', noise)
    .replace('ctx.fillRect(0, 0, 640, 360);', 'ctx.clearRect(0, 0, 640, 360);')
    .replace(
      'function tick(ts) {',
      `function tick(ts) {
    if (Math.round(ts * 30 / 1000) >= 150) { noise[0].hidden = noise[1].hidden = true; return; }
    noise[1].style.opacity = (Math.round(ts * 30 / 1000) % 16) / 15;`,
    );
  assert.match(html, /data-duration="10"[\s\S]*class="noise"[\s\S]*>= 150\) \{ noise[\s\S]*clearRect/);
  fs.writeFileSync(path.join(dir, 'index.html'), html);
  return dir;
}

clock('a worker done early takes over half of the range left: more segments, every frame still exact', () => {
  const output = path.join(out, 'hold.mp4');
  // The animated half's frames are captured and their noise encoded; the still half's are
  // repeats, never captured again. Each worker's page runs every frame's script, so that is kept
  // cheap. The halves are [0, 152) and [152, 300), cut every 38 frames: a split of the first needs
  // its worker at frame 99 or before (cut 114, 15 frames each side). With noise under a third of
  // the picture, beside one busy core, 5 of 14 renders had no third segment (the still half's
  // worker done at frames 101-110); with noise over the whole picture, beside one or two busy
  // cores or a two-worker render, 14 of 14 split, at frames 43-75.
  const run = vidkit(['render', clockThenHold(), '--output', output, '--workers', '2', '--width', '1280', '--json']);
  assert.is(run.status, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  // The still half's worker takes over part of [0, 150): a third segment, on a new page since its
  // own is past it.
  assert.ok(result.segments > 2, `segments ${result.segments}\n${run.stderr}`);
  assert.is(result.workers, 2);
  const frames = decodeGray(output, 1280, 720);
  assert.is(frames.length, 300);
  const wrong: string[] = [];
  frames.forEach((f, i) => {
    const want = Math.min(i, 149);
    const got = [readBits(f, 0, 2), readBits(f, 1, 2), readBits(f, 2, 2)];
    if (got.some((v) => v !== want)) wrong.push(`frame ${i}: ${got.join('/')}, want ${want}`);
  });
  assert.equal(wrong, []);
});

clock('screenshot capture (the full-Chromium path) is frame exact across seams too', () => {
  const output = path.join(out, 'clock-shot.mp4');
  const run = vidkit(['render', frameClock(2, out), '--output', output, '--workers', '2', '--capture', 'screenshot']);
  assert.is(run.status, 0, run.stderr);
  assert.match(run.stderr, /capture screenshot/);
  const frames = decodeGray(output, 640, 360);
  assert.is(frames.length, 60);
  frames.forEach((f, i) => assert.is(readBits(f, 0), i, `frame ${i}`));
});

clock('auto on a page that draws its 60 frames fast: one browser draws both planned ranges, in turn, frame exact', () => {
  const output = path.join(out, 'clock-auto.mp4');
  const run = vidkit(['render', frameClock(2, out), '--output', output, '--width', '320', '--json']);
  assert.is(run.status, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  // A second browser would take about as long to reach its first frame as the first took to draw
  // everything: it is not started. The ranges planned for two are still the segments joined.
  assert.is(result.workers, 1, run.stderr);
  assert.is(result.segments, 2);
  decodeGray(output, 320, 180).forEach((f, i) => assert.is(readBits(f, 0, 0.5), i, `frame ${i}`));
  assert.is(ffprobe(output).streams[0].nb_read_frames, '60');
});

clock('--width renders at a device scale factor: half size, still frame exact', () => {
  const output = path.join(out, 'clock-half.mp4');
  const run = vidkit(['render', frameClock(2, out), '--output', output, '--width', '320', '--workers', '2']);
  assert.is(run.status, 0, run.stderr);
  const v = ffprobe(output).streams[0];
  assert.equal([v.width, v.height, v.nb_read_frames], [320, 180, '60']);
  decodeGray(output, 320, 180).forEach((f, i) => assert.is(readBits(f, 0, 0.5), i, `frame ${i}`));
});

/**
 * A composition that paints itself green when the page's screen is its own size (`screen`, the
 * device-width and device-height media queries) and red otherwise. The begin-frame browser's
 * window is 16x16, the screenshot browser's 800x600: neither is what the page sees.
 */
function screenProbe(): string {
  const dir = path.join(out, 'screen-probe');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html><head><style>html,body{margin:0}#root{width:320px;height:180px;background:#ff0000}</style></head><body>
<div id="root" data-composition-id="screen-probe" data-width="320" data-height="180" data-duration="0.2" data-fps="30"></div>
<script>
  var own = screen.width === 320 && screen.height === 180 && innerWidth === 320 && matchMedia('(device-width: 320px) and (device-height: 180px)').matches;
  if (own) document.getElementById('root').style.background = '#00ff00';
</script></body></html>`,
  );
  return dir;
}

const screenProject = screenProbe();
for (const capture of ['beginframe', 'screenshot']) {
  clock(`the page's screen is the composition's size, not the browser window's (--capture ${capture})`, () => {
    const output = path.join(out, `screen-${capture}.mp4`);
    const run = vidkit(['render', screenProject, '--output', output, '--capture', capture]);
    assert.is(run.status, 0, run.stderr);
    assert.match(run.stderr, new RegExp(`capture ${capture}`));
    const [r, g, b] = rgbAt(decodeRgbFrame(output, 0, 320, 180), 320, 160, 90);
    assert.ok(g > 200 && r < 60 && b < 60, `green, got rgb(${r}, ${g}, ${b})`);
  });
}

clock('linear CSS and Web Animations edges sit at the expected pixel, --workers 2', () => {
  const { output, run } = render('css-linear', 'linear.mp4', ['--workers', '2']);
  assert.is(run.status, 0, run.stderr);
  const frames = decodeGray(output, 640, 360);
  assert.is(frames.length, 120);
  for (const i of [0, 1, 15, 59, 60, 61, 90, 119]) {
    assert.ok(Math.abs(leftEdge(frames[i], 90) - 4 * i) <= 1, `CSS edge at frame ${i}: ${leftEdge(frames[i], 90)}, want ${4 * i}`);
    assert.ok(Math.abs(leftEdge(frames[i], 250) - 4 * i) <= 1, `WAAPI edge at frame ${i}: ${leftEdge(frames[i], 250)}, want ${4 * i}`);
  }
});

clock('a composition with nothing moving repeats undamaged frames and keeps the count', () => {
  const { output, run } = render('static-card', 'static.mp4', ['--workers', '1', '--no-browser-gpu']);
  assert.is(run.status, 0, run.stderr);
  assert.match(run.stderr, /GL software \(SwiftShader \(forced by --no-browser-gpu\)\)/);
  const probe = ffprobe(output).streams[0];
  assert.is(probe.nb_read_frames, '30');
  const last = rgbAt(decodeRgbFrame(output, 29, 320, 180), 320, 160, 90);
  assert.ok(Math.abs(last[0] - 0x20) <= 4 && Math.abs(last[1] - 0x40) <= 4 && Math.abs(last[2] - 0x80) <= 4, `got ${last}`);
});

clock.run();

const output = suite('output file');

output('H.264 yuv420p BT.709 MP4 with the root size, duration and frame count', () => {
  const { output: file, run } = render('frame-clock', 'probe.mp4', ['--workers', '2', '--json']);
  assert.is(run.status, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.is(result.frames, 150);
  const probe = ffprobe(file);
  const v = probe.streams.find((s) => s.codec_type === 'video')!;
  assert.is(v.codec_name, 'h264');
  assert.is(v.pix_fmt, 'yuv420p');
  assert.is(v.width, 640);
  assert.is(v.height, 360);
  assert.is(v.nb_read_frames, '150');
  assert.is(v.r_frame_rate, '30/1');
  assert.is(v.color_space, 'bt709');
  assert.is(Number(probe.format.duration), 5);
  // faststart: the moov atom comes before mdat.
  const head = fs.readFileSync(file).subarray(0, 64 * 1024).toString('latin1');
  assert.ok(head.indexOf('moov') >= 0 && head.indexOf('moov') < head.indexOf('mdat'), 'moov before mdat');
  assert.equal(fs.readdirSync(out).filter((f) => f.includes('partial')), []);
  // x264 records its settings in the stream: the standard quality's motion search and, on
  // graphics, its whole-macroblock inter prediction (partitions i8x8,i4x4: analyse=0x3:0x3), and
  // each of the 2 workers' encoders with its share of the cores.
  const settings = fs.readFileSync(file).toString('latin1');
  const threads = Math.max(1, Math.floor(os.availableParallelism() / 2));
  for (const want of [' me=dia ', ' subme=1 ', ' analyse=0x3:0x3 ', ` threads=${threads} `, ' crf=18.0 ']) assert.ok(settings.includes(want), `x264 settings lack "${want.trim()}"`);
});

output.run();

const variables = suite('variables');

variables('a colour override changes the decoded pixels where the composition paints it', () => {
  const blue = render('color-var', 'default.mp4');
  const red = render('color-var', 'red.mp4', ['--variables', '{"fill":"#ff0000"}']);
  assert.is(blue.run.status, 0, blue.run.stderr);
  assert.is(red.run.status, 0, red.run.stderr);
  const [br, bg, bb] = rgbAt(decodeRgbFrame(blue.output, 7, 320, 180), 320, 160, 90);
  const [rr, rg, rb] = rgbAt(decodeRgbFrame(red.output, 7, 320, 180), 320, 160, 90);
  assert.ok(br < 20 && bg < 20 && bb > 230, `default blue, got ${[br, bg, bb]}`);
  assert.ok(rr > 230 && rg < 20 && rb < 20, `override red, got ${[rr, rg, rb]}`);
});

variables('a mismatch warns and renders; strict mode fails naming the variable', () => {
  const loose = render('color-var', 'loose.mp4', ['--variables', '{"fill":12}']);
  assert.is(loose.run.status, 0, loose.run.stderr);
  assert.match(loose.run.stderr, /vidkit: warning: variable "fill": expected color, got number 12/);
  assert.ok(fs.existsSync(loose.output));

  const strict = render('color-var', 'strict.mp4', ['--variables', '{"fill":12}', '--strict-variables']);
  assert.is(strict.run.status, 2);
  assert.equal(errorLines(strict.run.stderr), ['vidkit: error: --strict-variables: variable "fill": expected color, got number 12']);
  assert.not.ok(fs.existsSync(strict.output));
});

variables('an object-typed declaration is dropped: its key is undeclared', () => {
  const strict = render('color-var', 'object.mp4', ['--variables', '{"meta":"{}"}', '--strict-variables']);
  assert.is(strict.run.status, 2);
  assert.equal(errorLines(strict.run.stderr), ['vidkit: error: --strict-variables: variable "meta" is not declared by the composition']);
  assert.not.ok(fs.existsSync(strict.output));
});

variables.run();

const badInput = suite('bad input');

const unreadable = path.join(out, 'unreadable.json');
fs.writeFileSync(unreadable, '{}');
fs.chmodSync(unreadable, 0o000);
const unreadableReason = (() => {
  try {
    fs.readFileSync(unreadable);
    return 'EISDIR'; // Running as root reads anything: use a directory, which nobody can read as a file.
  } catch {
    return 'EACCES';
  }
})();
const unreadablePath = unreadableReason === 'EACCES' ? unreadable : out;

const BAD: Array<[string, string, string[], RegExp, number]> = [
  ['missing project dir', '/nonexistent/vidkit-project', [], /project directory not found/, 2],
  ['no composition root', 'no-root', [], /no composition root/, 2],
  ['invalid JSON in --variables', 'color-var', ['--variables', '{"fill":'], /--variables is not valid JSON/, 2],
  ['a JSON array instead of an object', 'color-var', ['--variables', '["#fff"]'], /--variables must be a JSON object of variable values, got array/, 2],
  ['both variable flags', 'color-var', ['--variables', '{}', '--variables-file', unreadable], /use either --variables or --variables-file, not both/, 2],
  ['an unreadable variables file', 'color-var', ['--variables-file', unreadablePath], new RegExp(`cannot read --variables-file .*: ${unreadableReason}`), 2],
  ['a page script that throws during load', 'throws-on-load', [], /a script in the composition threw: .*boom from the composition/, 1],
  ['zero duration', 'zero-duration', [], /data-duration must be a positive number of seconds, got "0"/, 2],
  ['missing duration', 'no-duration', [], /the composition root has no data-duration/, 2],
  ['--width and --height that change the aspect ratio', 'color-var', ['--width', '320', '--height', '320'], /does not keep the composition's 320x180 aspect ratio/, 2],
  ['an odd --width', 'color-var', ['--width', '321'], /--width must be an even whole number of pixels/, 2],
  ['--docker without an engine', 'color-var', ['--docker'], /--docker: no Docker engine is reachable/, 3],
];

for (const [what, project, extra, pattern, code] of BAD) {
  badInput(`${what}: one error line, exit ${code}, no output file`, () => {
    const dir = tempDir('vidkit-bad-');
    const file = path.join(dir, 'out.mp4');
    const projectDir = project.startsWith('/') ? project : fixture(project);
    const run = vidkit(['render', projectDir, '--output', file, ...extra]);
    assert.is(run.status, code, run.stderr);
    const errors = errorLines(run.stderr);
    assert.is(errors.length, 1, run.stderr);
    assert.match(errors[0], pattern);
    assert.not.match(run.stderr, /internal error|\n\s+at /);
    assert.equal(fs.readdirSync(dir), [], 'nothing written, not even a partial file');
  });
}

badInput('--help lists every render option', () => {
  const run = vidkit(['render', '--help']);
  assert.is(run.status, 0);
  for (const flag of ['--output', '--workers', '--width', '--height', '--variables', '--variables-file', '--strict-variables', '--no-browser-gpu', '--docker', '--fps', '--quality', '--crf']) {
    assert.ok(run.stdout.includes(flag), `--help mentions ${flag}`);
  }
});

badInput.run();
