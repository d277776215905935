import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT, tempDir, vidkit } from '../test-support/cli';
import { ffprobe, frameHashes } from '../test-support/media';
import type { LocalBatchRow } from './batch-record';
import { REUSE_DIR } from './batch-reuse';

// The equality proof of segment reuse (docs/explanation/batch-reuse.md): over a matrix of small
// compositions (320x180, 10 fps, 2 s = 20 frames), every row of a batch decodes to the same frames
// and the same sound as the same row rendered alone with `vidkit render`, and segments are shared
// exactly where the variables cannot reach. ProRes (.mov) is intra-only, so equal pictures encode
// to equal frames however a video is cut into segments; an mp4 (H.264) row is checked too, against
// a lone render at 2 workers: both are joined from the same cells, each encoded alone.

const work = tempDir('vidkit-batch-reuse-test-');
const FRAMES = 20;

const STYLE = `html,body{margin:0}
#root{width:320px;height:180px;position:relative;overflow:hidden;background:#123;font:bold 20px sans-serif;color:#fff}
#box{position:absolute;left:0;top:120px;width:30px;height:30px;background:#f80;animation:move 2s linear infinite}
@keyframes move{from{left:0}to{left:290px}}`;

/** A page 2 s long with a box moving across it (a CSS animation) and `body` in the root. */
function page(body: string, opts: { style?: string; variables?: string } = {}): string {
  const declared = opts.variables ?? '[{"id":"name","type":"string","label":"Name","default":"Ada"}]';
  return `<!doctype html>
<html data-composition-variables='${declared}'>
<head><style>${STYLE}\n${opts.style ?? ''}</style></head>
<body>
<div id="root" data-composition-id="reuse" data-width="320" data-height="180" data-duration="2" data-fps="10">
  <div id="box"></div>
${body}
</div>
</body></html>
`;
}

function project(files: Record<string, string | Buffer>): string {
  const dir = fs.mkdtempSync(path.join(work, 'project-'));
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

function ffmpeg(args: string[]): void {
  execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
}

/** The MD5 of the decoded sound (empty when there is none). */
function audioHash(file: string): string {
  return execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:a?', '-f', 'md5', '-'], { encoding: 'utf8' }).trim();
}

interface Outcome {
  rows: LocalBatchRow[];
  outDir: string;
}

/**
 * Renders `rows` (variables each) as one batch and each alone (with `workers`, default 1), asserts
 * every row's frames and sound are the lone render's, and returns the batch's rows.
 */
function batchEqualsLone(dir: string, rows: Record<string, unknown>[], { format = 'mov', workers = '1' } = {}): Outcome {
  const ext = `.${format}`;
  const batch = path.join(dir, '..', `${path.basename(dir)}.jsonl`);
  fs.writeFileSync(batch, rows.map((variables, i) => JSON.stringify({ outputKey: `row-${i + 1}${ext}`, variables })).join('\n') + '\n');
  const outDir = path.join(dir, '..', `${path.basename(dir)}-out`);
  // Relative, as a user types it: the browser must still be handed every file it reads by its full path.
  const run = vidkit(['render', dir, '--batch', batch, '--output-dir', path.relative(REPO_ROOT, outDir), '--format', format, '--batch-concurrency', '2', '--json']);
  assert.is(run.status, 0, run.stderr);
  const printed = JSON.parse(run.stdout) as LocalBatchRow[];
  // Rows with the same variables have the same lone render: it is rendered once.
  const loneRenders = new Map<string, string>();
  rows.forEach((variables, i) => {
    let lone = loneRenders.get(JSON.stringify(variables));
    if (!lone) {
      lone = path.join(dir, '..', `${path.basename(dir)}-lone-${i + 1}${ext}`);
      const alone = vidkit(['render', dir, '--variables', JSON.stringify(variables), '--format', format, '--workers', workers, '--output', lone]);
      assert.is(alone.status, 0, alone.stderr);
      loneRenders.set(JSON.stringify(variables), lone);
    }
    const out = path.join(outDir, `row-${i + 1}${ext}`);
    const [batchFrames, loneFrames] = [frameHashes(out), frameHashes(lone)];
    assert.is(batchFrames.length, FRAMES, `row ${i + 1}: frames`);
    assert.equal(batchFrames, loneFrames, `row ${i + 1}: its frames are those of its lone render`);
    assert.is(audioHash(out), audioHash(lone), `row ${i + 1}: its sound is that of its lone render`);
  });
  // Every row is complete: the shared segments are gone.
  assert.not.ok(fs.existsSync(path.join(outDir, REUSE_DIR)), 'the work folder is removed once every row is complete');
  return { rows: printed, outDir };
}

/** Frames each row drew itself, in line order. */
const drawn = (rows: LocalBatchRow[]) => rows.map((r) => r.reuse!.framesRendered);

test('the name in a 0.5 s intro: rows whose name differs draw the intro alone, a row like the first draws nothing', () => {
  const dir = project({ 'index.html': page('<div id="intro" style="position:absolute;left:10px;top:10px" data-start="0" data-duration="0.5">Hi <span data-var-text="name">Ada</span></div>') });
  const { rows } = batchEqualsLone(dir, [{ name: 'Ann' }, { name: 'Bob' }, { name: 'Ann' }]);
  assert.equal(drawn(rows), [0, 5, 0]);
  // The render's cells: the intro (0-5), then 5-15 and 15-20 (a cell is at least 15 frames).
  assert.equal(rows.map((r) => r.reuse!.segments), [3, 3, 3]);
  assert.equal(rows.map((r) => r.reuse!.reusedSegments), [3, 2, 3]);
});

test('the name in a lower third from 1 to 1.5 s: each row draws those 5 frames, the frames around them are shared', () => {
  const dir = project({
    'index.html': page('<div class="third" data-start="1" data-duration="0.5"><b data-var-text="name">Ada</b>, engineer</div>', {
      style: '.third{position:absolute;left:10px;bottom:10px;padding:4px;background:#fff;color:#000}',
    }),
  });
  const { rows } = batchEqualsLone(dir, [{ name: 'Ann' }, { name: 'Bob' }, { name: 'Cy' }]);
  assert.equal(drawn(rows), [0, 5, 5]);
  assert.equal(rows[1].reuse!.segments, 3);
  assert.equal(rows[1].reuse!.framesReused, 15);
});

test('mp4: the name in a lower third; every row decodes to the frames of its lone render at 2 workers, cell for cell', () => {
  const dir = project({
    'index.html': page('<div class="third" data-start="1" data-duration="0.5"><b data-var-text="name">Ada</b>, engineer</div>', {
      style: '.third{position:absolute;left:10px;bottom:10px;padding:4px;background:#fff;color:#000}',
    }),
  });
  // Cells 0-10, 10-15 (the lower third) and 15-20: the lone render's second worker draws two of them.
  const { rows } = batchEqualsLone(dir, [{ name: 'Ann' }, { name: 'Bob' }], { format: 'mp4', workers: '2' });
  assert.equal(drawn(rows), [0, 5]);
  assert.equal(rows.map((r) => r.reuse!.segments), [3, 3]);
});

test('a per-row image shown from 0.5 to 1 s: each row draws its image\'s frames only', () => {
  const dir = project({
    'index.html': page('<img id="photo" data-var-src="photo" src="red.png" data-start="0.5" data-duration="0.5" style="position:absolute;left:200px;top:20px;width:80px;height:60px">', {
      variables: '[{"id":"photo","type":"image","label":"Photo","default":"red.png"}]',
    }),
  });
  ffmpeg(['-f', 'lavfi', '-i', 'color=red:size=80x60', '-frames:v', '1', path.join(dir, 'red.png')]);
  ffmpeg(['-f', 'lavfi', '-i', 'color=green:size=80x60', '-frames:v', '1', path.join(dir, 'green.png')]);
  ffmpeg(['-f', 'lavfi', '-i', 'color=blue:size=80x60', '-frames:v', '1', path.join(dir, 'blue.png')]);
  const { rows } = batchEqualsLone(dir, [{ photo: 'green.png' }, { photo: 'blue.png' }]);
  assert.equal(drawn(rows), [0, 5]);
});

test('a per-row colour that tints everything: nothing can be shared, every other row renders whole and says why', () => {
  const dir = project({
    'index.html': page('<div id="tint" style="position:absolute;inset:0;background:var(--tint);opacity:0.5"></div>', {
      variables: '[{"id":"tint","type":"color","label":"Tint","default":"#ff0000"}]',
    }),
  });
  const { rows } = batchEqualsLone(dir, [{ tint: '#00ff00' }, { tint: '#0000ff' }]);
  assert.equal(drawn(rows), [0, FRAMES]);
  assert.match(rows[1].reuse!.whole!, /a style uses the variable "tint"/);
});

test('a script that reads the name at load and draws it on a canvas at 1 s: the read is recorded and the rows render whole', () => {
  const dir = project({
    'index.html': page(
      `<canvas id="c" width="320" height="40" style="position:absolute;left:0;top:40px"></canvas>
<script>
  var name = window.__vidkit.getVariables().name;
  var ctx = document.getElementById('c').getContext('2d');
  function draw() {
    if (window.__vidkit.time >= 1) { ctx.fillStyle = '#fff'; ctx.font = '20px sans-serif'; ctx.fillText(name, 10, 30); }
    requestAnimationFrame(draw);
  }
  requestAnimationFrame(draw);
</script>`,
    ),
  });
  const { rows } = batchEqualsLone(dir, [{ name: 'Ann' }, { name: 'Bob' }]);
  assert.equal(drawn(rows), [0, FRAMES]);
  assert.match(rows[1].reuse!.whole!, /a page script read the variable "name"/);
});

test('a sub-composition drawing its own variables by script, the name bound beside it: page scripts could read the name, so the rows render whole', () => {
  const dir = project({
    'index.html': page(
      `<div id="intro" style="position:absolute;left:10px;top:10px" data-start="0" data-duration="0.5"><span data-var-text="name">Ada</span></div>
<div id="card-host" data-composition-id="card" data-composition-src="card.html" data-variable-values='{"title":"Welcome"}' data-start="0.5" data-duration="1" style="position:absolute;left:10px;top:60px"></div>`,
    ),
    'card.html': `<template id="card-template">
  <div data-composition-id="card" data-width="200" data-height="40" data-composition-variables='[{"id":"title","type":"string","label":"Title","default":"Card"}]'>
    <div class="title" style="background:#fff;color:#000;padding:4px"></div>
    <script>document.querySelector('.title').textContent = window.__hyperframes.getVariables().title;</script>
  </div>
</template>`,
  });
  const { rows } = batchEqualsLone(dir, [{ name: 'Ann' }, { name: 'Bob' }]);
  assert.equal(drawn(rows), [0, FRAMES]);
  assert.match(rows[1].reuse!.whole!, /the page runs scripts/);
});

test('an a-roll video with its sound and captions, the name in a lower third: the video, captions and sound are shared, the sound mixed from the first row\'s timeline', () => {
  const dir = project({
    'index.html': page(
      `<video id="aroll" src="aroll.mp4" data-start="0" data-duration="2" style="position:absolute;left:0;top:0;width:320px;height:180px"></video>
<div class="caption" data-start="0" data-duration="1">Captions one</div>
<div class="caption" data-start="1" data-duration="1">Captions two</div>
<div class="third" data-start="1.5" data-duration="0.5"><span data-var-text="name">Ada</span></div>`,
      {
        style:
          '.caption{position:absolute;left:0;right:0;bottom:4px;text-align:center;color:#ff0}\n.third{position:absolute;left:10px;top:10px;background:#000;padding:2px}',
      },
    ),
  });
  ffmpeg([
    '-f', 'lavfi', '-i', 'testsrc=size=320x180:rate=10:duration=2',
    '-f', 'lavfi', '-i', 'sine=frequency=440:duration=2',
    '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', path.join(dir, 'aroll.mp4'),
  ]);
  const { rows } = batchEqualsLone(dir, [{ name: 'Ann' }, { name: 'Bob' }, { name: 'Cy' }]);
  assert.equal(drawn(rows), [0, 5, 5]);
  const streams = ffprobe(path.join(dir, '..', `${path.basename(dir)}-out`, 'row-2.mov')).streams.map((s) => s.codec_type);
  assert.ok(streams.includes('audio'), 'the rows have sound');
  assert.equal(rows.map((r) => r.reuse!.audio), [{ mixed: 'once' }, { mixed: 'once' }, { mixed: 'once' }]);
});

test('music whose source is a variable: every other row renders whole and mixes its own sound, equal to its lone render\'s', () => {
  const dir = project({
    'index.html': page('<audio id="music" data-var-src="music" src="low.wav" data-start="0" data-duration="2"></audio>', {
      variables: '[{"id":"music","type":"string","label":"Music","default":"low.wav"}]',
    }),
  });
  ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=220:duration=2', path.join(dir, 'low.wav')]);
  ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=880:duration=2', path.join(dir, 'high.wav')]);
  const { rows, outDir } = batchEqualsLone(dir, [{ music: 'low.wav' }, { music: 'high.wav' }]);
  assert.equal(drawn(rows), [0, FRAMES]);
  assert.equal(rows[0].reuse!.audio, { mixed: 'once' });
  assert.is(rows[1].reuse!.audio!.mixed, 'row');
  assert.match(rows[1].reuse!.audio!.why!, /the row renders whole: <audio#music> plays a variable source/);
  assert.is.not(audioHash(path.join(outDir, 'row-1.mov')), audioHash(path.join(outDir, 'row-2.mov')), 'the two rows sound different');
});

test('a batch with a failed row keeps its shared segments, and its re-run joins them without drawing them again', () => {
  const dir = project({ 'index.html': page('<div id="intro" style="position:absolute;left:10px;top:10px" data-start="0" data-duration="0.5"><span data-var-text="name">Ada</span></div>') });
  const batch = path.join(work, 'resume.jsonl');
  const outDir = path.join(work, 'resume-out');
  const run = (lines: Array<[string, string]>) => {
    fs.writeFileSync(batch, lines.map(([outputKey, name]) => JSON.stringify({ outputKey, variables: { name } })).join('\n'));
    return vidkit(['render', dir, '--batch', batch, '--output-dir', outDir, '--format', 'mov', '--json']);
  };
  // A row named .mp4 fails under --format mov: the batch is left incomplete.
  assert.is(run([['a.mov', 'Ann'], ['b.mov', 'Bob'], ['c.mp4', 'Cy']]).status, 1);
  const keys = fs.readdirSync(path.join(outDir, REUSE_DIR));
  assert.is(keys.length, 1);
  const shared = path.join(outDir, REUSE_DIR, keys[0]);
  const segments = fs.readdirSync(shared).filter((f) => f.endsWith('.mov'));
  assert.is(segments.length, 3);
  const stamp = new Date('2001-01-01T00:00:00Z');
  for (const f of segments) fs.utimesSync(path.join(shared, f), stamp, stamp);
  const second = run([['a.mov', 'Ann'], ['b.mov', 'Bob'], ['c.mov', 'Cy'], ['d.mp4', 'Dee']]);
  assert.is(second.status, 1);
  const rows = JSON.parse(second.stdout) as LocalBatchRow[];
  assert.equal(rows.map((r) => r.status), ['skipped', 'skipped', 'rendered', 'failed']);
  assert.equal(rows[2].reuse, { segments: 3, reusedSegments: 2, framesRendered: 5, framesReused: 15, audio: { mixed: 'none' } });
  for (const f of segments) assert.is(fs.statSync(path.join(shared, f)).mtimeMs, stamp.getTime(), `${f} was joined, not drawn again`);
  const lone = path.join(work, 'resume-lone.mov');
  assert.is(vidkit(['render', dir, '--variables', '{"name":"Cy"}', '--format', 'mov', '--output', lone]).status, 0);
  assert.equal(frameHashes(path.join(outDir, 'c.mov')), frameHashes(lone));
  assert.is(run([['a.mov', 'Ann'], ['b.mov', 'Bob'], ['c.mov', 'Cy'], ['d.mov', 'Dee']]).status, 0);
  assert.not.ok(fs.existsSync(path.join(outDir, REUSE_DIR)), 'complete now: the work folder is gone');
});

test('the a-roll\'s sound is mixed once into the work folder: every row muxes it, and a re-run joins it without mixing it again', () => {
  const dir = project({
    'index.html': page(
      `<video id="aroll" src="aroll.mp4" data-start="0" data-duration="2" style="position:absolute;left:0;top:0;width:320px;height:180px"></video>
<div id="intro" style="position:absolute;left:10px;top:10px" data-start="0" data-duration="0.5"><span data-var-text="name">Ada</span></div>`,
    ),
  });
  ffmpeg([
    '-f', 'lavfi', '-i', 'testsrc=size=320x180:rate=10:duration=2',
    '-f', 'lavfi', '-i', 'sine=frequency=330:duration=2',
    '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', path.join(dir, 'aroll.mp4'),
  ]);
  const batch = path.join(work, 'sound.jsonl');
  const outDir = path.join(work, 'sound-out');
  const run = (lines: Array<[string, string]>) => {
    fs.writeFileSync(batch, lines.map(([outputKey, name]) => JSON.stringify({ outputKey, variables: { name } })).join('\n'));
    const result = vidkit(['render', dir, '--batch', batch, '--output-dir', outDir, '--format', 'mov', '--batch-concurrency', '2', '--json']);
    return { status: result.status, rows: JSON.parse(result.stdout) as LocalBatchRow[] };
  };
  const first = run([['a.mov', 'Ann'], ['b.mov', 'Bob'], ['c.mp4', 'Cy']]);
  assert.is(first.status, 1);
  assert.equal(first.rows.slice(0, 2).map((r) => r.reuse!.audio), [{ mixed: 'once' }, { mixed: 'once' }]);
  const [key] = fs.readdirSync(path.join(outDir, REUSE_DIR));
  const shared = path.join(outDir, REUSE_DIR, key);
  const sounds = fs.readdirSync(shared).filter((f) => f.endsWith('.sound'));
  assert.is(sounds.length, 1, 'one soundtrack for the batch');
  const sound = path.join(shared, sounds[0]);
  const stamp = new Date('2001-01-01T00:00:00Z');
  fs.utimesSync(sound, stamp, stamp);
  const second = run([['a.mov', 'Ann'], ['b.mov', 'Bob'], ['c.mov', 'Cy'], ['d.mp4', 'Dee']]);
  assert.is(second.status, 1);
  assert.equal(second.rows.map((r) => r.status), ['skipped', 'skipped', 'rendered', 'failed']);
  assert.equal(second.rows[2].reuse!.audio, { mixed: 'once' });
  assert.is(fs.statSync(sound).mtimeMs, stamp.getTime(), 'the soundtrack was muxed, not mixed again');
  const lone = path.join(work, 'sound-lone.mov');
  assert.is(vidkit(['render', dir, '--variables', '{"name":"Cy"}', '--format', 'mov', '--output', lone]).status, 0);
  const out = path.join(outDir, 'c.mov');
  assert.equal(frameHashes(out), frameHashes(lone));
  assert.is(audioHash(out), audioHash(lone), 'its sound is that of its lone render');
  assert.ok(ffprobe(out).streams.some((s) => s.codec_type === 'audio'), 'the row has sound');
});

test.run();
