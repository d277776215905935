import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir, vidkit } from '../test-support/cli';
import type { LocalBatchRow } from './batch-record';
import type { LocalBatchEstimate } from './batch-estimate';

// `vidkit render --batch --estimate` (docs/reference/batch-estimate.md): what each line would draw
// and share, told before any frame is drawn, and the same as what the batch then does.

const work = tempDir('vidkit-batch-estimate-test-');

/** A 2 s, 10 fps page (20 frames) with the name in a 0.5 s intro, a tint and `extra` in its body. */
function project(extra = ''): string {
  const dir = fs.mkdtempSync(path.join(work, 'project-'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html>
<html data-composition-variables='[{"id":"name","type":"string","label":"Name","default":"Ada"},{"id":"tint","type":"color","label":"Tint","default":"#ff0000"}]'>
<head><style>html,body{margin:0}
#root{width:320px;height:180px;position:relative;overflow:hidden;background:#123;font:bold 20px sans-serif;color:#fff}
#tint{position:absolute;left:0;top:100px;width:40px;height:40px;background:var(--tint)}</style></head>
<body>
<div id="root" data-composition-id="estimate" data-width="320" data-height="180" data-duration="2" data-fps="10">
  <div id="intro" style="position:absolute;left:10px;top:10px" data-start="0" data-duration="0.5"><span data-var-text="name">Ada</span></div>
  <div id="tint"></div>
${extra}
</div>
</body></html>
`,
  );
  return dir;
}

function batchFile(name: string, rows: Record<string, unknown>[]): string {
  const file = path.join(work, `${name}.jsonl`);
  fs.writeFileSync(file, rows.map((variables, i) => JSON.stringify({ outputKey: `row-${i + 1}.mov`, variables })).join('\n') + '\n');
  return file;
}

test('the estimate tells each line\'s frames and sound as the batch then renders them, and writes nothing', () => {
  const dir = project();
  const batch = batchFile('bounded', [{ name: 'Ann' }, { name: 'Bob' }, { name: 'Ann', tint: '#00ff00' }, { name: 7 }]);
  const outDir = path.join(work, 'bounded-out');
  const run = vidkit(['render', dir, '--batch', batch, '--output-dir', outDir, '--format', 'mov', '--strict-variables', '--estimate', '--json']);
  assert.is(run.status, 0, run.stderr);
  const estimate = JSON.parse(run.stdout) as LocalBatchEstimate;
  assert.not.ok(fs.existsSync(outDir), 'an estimate writes nothing');
  assert.is(estimate.lines, 4);
  assert.equal(estimate.failing.map((f) => f.line), [4]);
  const reuse = estimate.reuse!;
  assert.is(reuse.totalFrames, 20);
  assert.is(reuse.segments, 3, 'the render\'s cells: the intro (0-5), 5-15 and 15-20');
  assert.equal(reuse.rows.map((r) => [r.line, r.framesRendered, r.framesReused, r.audio.mixed]), [
    [1, 0, 20, 'none'],
    [2, 5, 15, 'none'],
    [3, 20, 0, 'row'],
  ]);
  assert.match(reuse.rows[2].whole!, /a style uses the variable "tint"/);
  assert.is(reuse.framesDrawn, 20 + 5 + 20);
  assert.is(reuse.framesAlone, 60);

  const rendered = vidkit(['render', dir, '--batch', batch, '--output-dir', outDir, '--format', 'mov', '--strict-variables', '--json']);
  assert.is(rendered.status, 1, 'line 4 fails');
  const rows = (JSON.parse(rendered.stdout) as LocalBatchRow[]).filter((r) => r.status === 'rendered');
  assert.equal(
    rows.map((r) => ({ line: r.line, framesRendered: r.reuse!.framesRendered, framesReused: r.reuse!.framesReused, whole: r.reuse!.whole, mixed: r.reuse!.audio!.mixed })),
    reuse.rows.map((r) => ({ line: r.line, framesRendered: r.framesRendered, framesReused: r.framesReused, whole: r.whole, mixed: r.audio.mixed })),
    'the batch does what the estimate said',
  );

  const text = vidkit(['render', dir, '--batch', batch, '--output-dir', outDir, '--format', 'mov', '--strict-variables', '--estimate']);
  assert.is(text.status, 0, text.stderr);
  assert.match(text.stdout, /^Estimate: 4 lines of 20 frames; 1 would fail; with reuse the batch draws 45 frames, 0\.75x the 60 of rendering each line alone \(3 segments\)$/m);
  assert.match(text.stdout, /^3 +20 +0 +row +a style uses the variable "tint"/m);
  assert.match(text.stdout, /^4 +- +- +- +fails: /m);
});

test('a read a page script makes only at 1 s is found by stepping the first line\'s page: the lines that differ would render whole', () => {
  const dir = project(`<script>
  var shown = false;
  function tick() {
    if (!shown && window.__vidkit.time >= 1) { shown = true; document.getElementById('tint').title = window.__vidkit.getVariables().name; }
    requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
</script>`);
  const run = vidkit(['render', dir, '--batch', batchFile('late-read', [{ name: 'Ann' }, { name: 'Bob' }]), '--format', 'mov', '--estimate', '--json']);
  assert.is(run.status, 0, run.stderr);
  const reuse = (JSON.parse(run.stdout) as LocalBatchEstimate).reuse!;
  assert.equal(reuse.rows.map((r) => r.framesRendered), [0, 20]);
  assert.match(reuse.rows[1].whole!, /a page script read the variable "name"/);
});

test('a gif shares nothing, and --estimate without --batch is refused', () => {
  const dir = project();
  const gif = vidkit(['render', dir, '--batch', batchFile('gif', [{ name: 'Ann' }, { name: 'Bob' }]), '--format', 'gif', '--estimate', '--json']);
  assert.is(gif.status, 0, gif.stderr);
  const estimate = JSON.parse(gif.stdout) as LocalBatchEstimate;
  assert.is(estimate.reuse, null);
  assert.match(estimate.noReuse!, /one palette/);
  const alone = vidkit(['render', dir, '--estimate']);
  assert.is(alone.status, 2);
  assert.match(alone.stderr, /--estimate goes with --batch/);
});

test.run();
