import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir, vidkit, vidkitAsync } from '../test-support/cli';
import { decodeRgbFrame, ffprobe, psnrPerFrame, rgbAt } from '../test-support/media';

const work = tempDir('vidkit-local-batch-test-');
const WIDTH = 320;
const HEIGHT = 180;
const FPS = 10;

/**
 * 320x180 at 10 fps: a fill colour and a caption from the variables, a box moving with time and
 * Math.random, and a bar whose width counts what a reused page could carry over from an earlier
 * row (storage, window.name, history): in a cold page it is always one step wide.
 */
function project(durationSeconds: number): string {
  const dir = fs.mkdtempSync(path.join(work, 'project-'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html>
<html data-composition-variables='[{"id":"fill","type":"color","label":"Fill","default":"#0000ff"},{"id":"caption","type":"string","label":"Caption","default":"hi"}]'>
<head><style>
html,body{margin:0}
#root{width:320px;height:180px;position:relative;overflow:hidden;font:bold 28px sans-serif;color:#fff}
#bar{position:absolute;left:0;top:150px;height:30px;background:#fff}
#box{position:absolute;left:0;top:60px;width:40px;height:40px;background:#000}
</style></head>
<body>
<div id="root" data-composition-id="warm" data-width="${WIDTH}" data-height="${HEIGHT}" data-duration="${durationSeconds}" data-fps="${FPS}">
  <div id="caption"></div><div id="bar"></div><div id="box"></div>
</div>
<script>
  var v = window.__vidkit.getVariables();
  document.getElementById('root').style.background = v.fill;
  document.getElementById('caption').textContent = v.caption;
  var carried = Number(localStorage.getItem('visits') || 0) + Number(sessionStorage.getItem('visits') || 0) + window.name.length + history.length;
  localStorage.setItem('visits', '1');
  sessionStorage.setItem('visits', '1');
  window.name += 'x';
  document.getElementById('bar').style.width = (carried * 20) + 'px';
  var box = document.getElementById('box');
  var r = Math.random();
  function tick(ts) { box.style.left = Math.round(ts / 10 + r * 100) + 'px'; requestAnimationFrame(tick); }
  requestAnimationFrame(tick);
</script>
</body>
</html>
`,
  );
  return dir;
}

const COLOURS = ['#ff0000', '#00ff00', '#0000ff', '#ffff00', '#ff00ff', '#00ffff', '#808080', '#ff8000', '#8000ff', '#008040'];

function rgb(hex: string): [number, number, number] {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
}

function writeRows(file: string, lines: string[]): void {
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

const row = (key: string, variables: Record<string, unknown>) => JSON.stringify({ outputKey: key, variables });

test('10 rows with different colours: 10 outputs on 2 warm browsers, each its own colour and every frame; a reset page draws what a cold one does', () => {
  const dir = project(0.5);
  const batch = path.join(work, 'colours.jsonl');
  writeRows(
    batch,
    COLOURS.map((c, i) => row(`colours/row-${i + 1}.mp4`, { fill: c, caption: `row ${i + 1}` })),
  );
  const outDir = path.join(work, 'out-colours');
  const run = vidkit(['render', dir, '--batch', batch, '--output-dir', outDir, '--batch-concurrency', '2', '--json']);
  assert.is(run.status, 0, run.stderr);
  // Two browsers for ten videos: every row after a browser's first reset its page.
  assert.match(run.stderr, /10 videos rendered on 2 browsers/);
  const rows = JSON.parse(run.stdout) as Array<{ line: number; output: string; status: string; seconds: number }>;
  assert.equal(
    rows.map((r) => [r.line, r.status]),
    COLOURS.map((_, i) => [i + 1, 'rendered']),
  );
  COLOURS.forEach((colour, i) => {
    const output = path.join(outDir, 'colours', `row-${i + 1}.mp4`);
    assert.is(rows[i].output, output);
    assert.is(ffprobe(output).streams[0].nb_read_frames, '5', `row ${i + 1} frames`);
    const got = rgbAt(decodeRgbFrame(output, 4, WIDTH, HEIGHT), WIDTH, 300, 20);
    rgb(colour).forEach((want, c) => assert.ok(Math.abs(got[c] - want) <= 12, `row ${i + 1}: ${got} at (300, 20), want ${colour}`));
  });
  // The last row of each browser went through the most resets: each matches a cold render of it.
  for (const i of [8, 9]) {
    const cold = path.join(work, `cold-${i + 1}.mp4`);
    const single = vidkit(['render', dir, '--output', cold, '--workers', '1', '--variables', JSON.stringify({ fill: COLOURS[i], caption: `row ${i + 1}` })]);
    assert.is(single.status, 0, single.stderr);
    const db = psnrPerFrame(path.join(outDir, 'colours', `row-${i + 1}.mp4`), cold);
    assert.is(db.length, 5);
    db.forEach((d, f) => assert.ok(d >= 50, `row ${i + 1} frame ${f}: ${d} dB against a cold render`));
  }
});

test('one browser: a warm row is the same file, byte for byte, as a cold render of it', () => {
  const dir = project(0.5);
  const batch = path.join(work, 'bytes.jsonl');
  writeRows(batch, [row('a.mp4', { fill: '#ff0000', caption: 'first' }), row('b.mp4', { fill: '#00ff00', caption: 'second' }), row('c.mp4', { fill: '#0000ff', caption: 'third' })]);
  const outDir = path.join(work, 'out-bytes');
  const run = vidkit(['render', dir, '--batch', batch, '--output-dir', outDir, '--batch-concurrency', '1']);
  assert.is(run.status, 0, run.stderr);
  assert.match(run.stderr, /3 videos rendered on 1 browser\b/);
  const cold = path.join(work, 'cold-c.mp4');
  const single = vidkit(['render', dir, '--output', cold, '--workers', '1', '--variables', JSON.stringify({ fill: '#0000ff', caption: 'third' })]);
  assert.is(single.status, 0, single.stderr);
  assert.ok(fs.readFileSync(path.join(outDir, 'c.mp4')).equals(fs.readFileSync(cold)), 'row 3 differs from its cold render');
});

test('a malformed line and a mistyped variable under --strict-variables fail alone; the rest render; the manifest says why', () => {
  const dir = project(0.5);
  const batch = path.join(work, 'problems.jsonl');
  writeRows(batch, [row('ok-1.mp4', { fill: '#ff0000' }), '{"outputKey": "broken.mp4", "variables": ', row('typo.mp4', { fill: 42 }), row('ok-2.mp4', { fill: '#00ff00' })]);
  const outDir = path.join(work, 'out-problems');
  const run = vidkit(['render', dir, '--batch', batch, '--output-dir', outDir, '--strict-variables', '--json']);
  assert.is(run.status, 1, run.stderr);
  const rows = JSON.parse(run.stdout) as Array<{ line: number; status: string; error?: string }>;
  assert.equal(
    rows.map((r) => [r.line, r.status]),
    [
      [1, 'rendered'],
      [2, 'failed'],
      [3, 'failed'],
      [4, 'rendered'],
    ],
  );
  assert.match(rows[1].error!, /^invalid JSON/);
  assert.is(rows[2].error, '--strict-variables: variable "fill": expected color, got number 42');
  assert.equal(fs.readdirSync(outDir).sort(), ['ok-1.mp4', 'ok-2.mp4', 'problems.manifest.jsonl']);
  const recorded = fs
    .readFileSync(path.join(outDir, 'problems.manifest.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(
    recorded.filter((r) => r.status === 'failed').map((r) => [r.line, r.error]).sort(),
    [
      [2, rows[1].error],
      [3, rows[2].error],
    ],
  );

  const text = vidkit(['render', dir, '--batch', batch, '--output-dir', outDir, '--strict-variables']);
  assert.is(text.status, 1);
  assert.match(text.stdout, /^0 rendered, 2 skipped, 2 failed\n/);
  assert.match(text.stdout, /\n3 +\S+typo\.mp4 +failed +[0-9.]+ +--strict-variables: variable "fill": expected color, got number 42\n/);
});

test('a remote image is fetched once for the whole batch, and every row draws it', async () => {
  const png = path.join(work, 'red.png');
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=red:s=16x16', '-frames:v', '1', png]);
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end(fs.readFileSync(png));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const dir = fs.mkdtempSync(path.join(work, 'remote-'));
    fs.writeFileSync(
      path.join(dir, 'index.html'),
      `<!doctype html>
<html data-composition-variables='[{"id":"caption","type":"string","label":"Caption","default":"hi"}]'>
<body style="margin:0">
<div id="root" data-composition-id="remote" data-width="${WIDTH}" data-height="${HEIGHT}" data-duration="0.5" data-fps="${FPS}" style="width:320px;height:180px">
  <img src="http://127.0.0.1:${port}/red.png" style="width:320px;height:180px;display:block">
</div>
</body>
</html>
`,
    );
    const batch = path.join(work, 'remote.jsonl');
    writeRows(batch, [1, 2, 3].map((i) => row(`remote-${i}.mp4`, { caption: `row ${i}` })));
    const outDir = path.join(work, 'out-remote');
    const run = await vidkitAsync(['render', dir, '--batch', batch, '--output-dir', outDir, '--batch-concurrency', '2', '--allow-private-network']);
    assert.is(run.status, 0, run.stderr);
    assert.equal(requests, ['/red.png']);
    for (const i of [1, 2, 3]) {
      const [r, g, b] = rgbAt(decodeRgbFrame(path.join(outDir, `remote-${i}.mp4`), 4, WIDTH, HEIGHT), WIDTH, 160, 90);
      assert.ok(r > 230 && g < 25 && b < 25, `row ${i}: ${[r, g, b]}`);
    }
  } finally {
    server.close();
  }
});

test('--fail-fast starts no line after the first failure; an empty batch and options naming one video are refused', () => {
  const dir = project(0.5);
  const batch = path.join(work, 'fail-fast.jsonl');
  writeRows(batch, [row('typo.mp4', { fill: 42 }), row('a.mp4', {}), row('b.mp4', {})]);
  const outDir = path.join(work, 'out-fail-fast');
  const run = vidkit(['render', dir, '--batch', batch, '--output-dir', outDir, '--batch-concurrency', '1', '--strict-variables', '--fail-fast', '--json']);
  assert.is(run.status, 1, run.stderr);
  assert.equal(
    (JSON.parse(run.stdout) as Array<{ line: number; status: string }>).map((r) => [r.line, r.status]),
    [[1, 'failed']],
  );
  assert.equal(fs.readdirSync(outDir), ['fail-fast.manifest.jsonl']);

  const empty = path.join(work, 'empty.jsonl');
  fs.writeFileSync(empty, '\n\n');
  const none = vidkit(['render', dir, '--batch', empty, '--output-dir', outDir]);
  assert.is(none.status, 2);
  assert.match(none.stderr, /vidkit: error: \S+empty\.jsonl has no entries: one \{"outputKey", "variables"\} object per line\n/);

  const refused = vidkit(['render', dir, '--batch', batch, '--output', 'x.mp4']);
  assert.is(refused.status, 2);
  assert.match(refused.stderr, /vidkit: error: --output does not apply to --batch: each line's "outputKey" names its output under --output-dir\n/);
});

test('--format gif: one gif a line, every frame; a directory format is refused', () => {
  const dir = project(0.5);
  const batch = path.join(work, 'gif.jsonl');
  writeRows(batch, [row('a.gif', { fill: '#ff0000' }), row('b.gif', { fill: '#0000ff' })]);
  const outDir = path.join(work, 'out-gif');
  const run = vidkit(['render', dir, '--batch', batch, '--output-dir', outDir, '--format', 'gif', '--gif-loop', '2']);
  assert.is(run.status, 0, run.stderr);
  for (const [name, colour] of [['a.gif', '#ff0000'], ['b.gif', '#0000ff']]) {
    const file = path.join(outDir, name);
    assert.is(ffprobe(file).streams[0].codec_name, 'gif');
    assert.is(ffprobe(file).streams[0].nb_read_frames, '5', name);
    const got = rgbAt(decodeRgbFrame(file, 4, WIDTH, HEIGHT), WIDTH, 300, 20);
    rgb(colour).forEach((want, c) => assert.ok(Math.abs(got[c] - want) <= 12, `${name}: ${got}, want ${colour}`));
  }
  const refused = vidkit(['render', dir, '--batch', batch, '--output-dir', outDir, '--format', 'png-sequence']);
  assert.is(refused.status, 2);
  assert.match(refused.stderr, /vidkit: error: --format png-sequence writes a directory: a batch writes one file per line/);
});

test('a row whose page loops in a frame fails at the frame timeout alone; the next rows render on a new browser', () => {
  const dir = fs.mkdtempSync(path.join(work, 'hang-'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html>
<html data-composition-variables='[{"id":"hang","type":"boolean","label":"Hang","default":false}]'>
<body style="margin:0">
<div id="root" data-composition-id="hang" data-width="${WIDTH}" data-height="${HEIGHT}" data-duration="0.5" data-fps="${FPS}" style="width:320px;height:180px;background:#0a0"></div>
<script>
  var hang = window.__vidkit.getVariables().hang;
  function tick(ts) { if (hang && ts >= 200) for (;;) {} requestAnimationFrame(tick); }
  requestAnimationFrame(tick);
</script>
</body>
</html>
`,
  );
  const batch = path.join(work, 'hang.jsonl');
  writeRows(batch, [row('hang.mp4', { hang: true }), row('fine-1.mp4', {}), row('fine-2.mp4', {})]);
  const run = vidkit(['render', dir, '--batch', batch, '--output-dir', path.join(work, 'out-hang'), '--batch-concurrency', '1', '--frame-timeout', '1', '--json']);
  assert.is(run.status, 1, run.stderr);
  const rows = JSON.parse(run.stdout) as Array<{ status: string; error?: string }>;
  assert.equal(
    rows.map((r) => r.status),
    ['failed', 'rendered', 'rendered'],
  );
  assert.match(rows[0].error!, /^frame 2 did not seek and draw within the frame timeout of 1 s/);
  assert.match(run.stderr, /2 videos rendered on 2 browsers/);
});

test('a batch killed mid-way leaves no partial file, and a re-run renders only the missing rows (and a row whose variables changed)', async () => {
  const dir = project(2);
  const batch = path.join(work, 'resume.jsonl');
  const lines = Array.from({ length: 6 }, (_, i) => row(`r-${i + 1}.mp4`, { fill: COLOURS[i] }));
  writeRows(batch, lines);
  const outDir = path.join(work, 'out-resume');
  const manifest = path.join(outDir, 'resume.manifest.jsonl');
  const renderedLines = () => (fs.existsSync(manifest) ? fs.readFileSync(manifest, 'utf8').split('\n').filter((l) => l.includes('"rendered"')).length : 0);
  let killed = false;
  const first = await vidkitAsync(['render', dir, '--batch', batch, '--output-dir', outDir, '--batch-concurrency', '1'], {
    watch: (_stderr, child) => {
      // Progress lines come at most every 2 s: poll the manifest instead.
      const poll = setInterval(() => {
        if (!killed && renderedLines() >= 2) {
          killed = true;
          child.kill('SIGTERM');
        }
      }, 20);
      child.once('close', () => clearInterval(poll));
    },
  });
  assert.is(first.status, 143, first.stderr);
  const done = fs.readdirSync(outDir).filter((f) => f.endsWith('.mp4'));
  assert.ok(done.length >= 2 && done.length < 6, `completed before the kill: ${done}`);
  // The segments the rows share stay for the re-run (docs/explanation/batch-reuse.md).
  assert.equal(fs.readdirSync(outDir).filter((f) => f.startsWith('.') && f !== '.vidkit-reuse'), [], 'partial outputs left behind');
  assert.equal(fs.readdirSync(path.join(outDir, '.vidkit-reuse'), { recursive: true, encoding: 'utf8' }).filter((f) => f.includes('partial')), [], 'partial segments left behind');
  const mtimes = new Map(done.map((f) => [f, fs.statSync(path.join(outDir, f)).mtimeMs]));

  // Row 1 asks for another colour now: its output no longer matches, so it renders again.
  lines[0] = row('r-1.mp4', { fill: '#ffffff' });
  writeRows(batch, lines);
  const again = vidkit(['render', dir, '--batch', batch, '--output-dir', outDir, '--batch-concurrency', '1', '--json']);
  assert.is(again.status, 0, again.stderr);
  const rows = JSON.parse(again.stdout) as Array<{ outputKey: string; status: string }>;
  const want = lines.map((_, i) => {
    const key = `r-${i + 1}.mp4`;
    return [key, i > 0 && mtimes.has(key) ? 'skipped' : 'rendered'];
  });
  assert.equal(
    rows.map((r) => [r.outputKey, r.status]),
    want,
  );
  for (const [file, mtime] of mtimes) if (file !== 'r-1.mp4') assert.is(fs.statSync(path.join(outDir, file)).mtimeMs, mtime, `${file} was written again`);
  assert.equal(rgbAt(decodeRgbFrame(path.join(outDir, 'r-1.mp4'), 0, WIDTH, HEIGHT), WIDTH, 300, 20).map((c) => c > 240), [true, true, true]);

  const forced = vidkit(['render', dir, '--batch', batch, '--output-dir', outDir, '--batch-concurrency', '1', '--json', '--force']);
  assert.is(forced.status, 0, forced.stderr);
  assert.equal(
    (JSON.parse(forced.stdout) as Array<{ status: string }>).map((r) => r.status),
    lines.map(() => 'rendered'),
  );
});

test.run();
