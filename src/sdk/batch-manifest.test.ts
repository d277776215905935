// tier: unit
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../test-support/cli';
import type { BatchManifestRow } from './batch-dispatch';
import { ManifestRecord, ManifestWriter, latestRowPerLine, readManifest } from './batch-manifest';

const started = (line: number, renderId: string): BatchManifestRow => ({
  line,
  outputKey: `out/${line}.mp4`,
  status: 'started',
  executionArn: `arn:aws:states:us-east-1:000000000000:execution:m:${renderId}`,
  renderId,
});
const failed = (line: number, error: string): BatchManifestRow => ({ line, outputKey: `out/${line}.mp4`, status: 'failed-to-start', executionArn: null, renderId: null, error });

function write(file: string, rows: BatchManifestRow[]): string {
  const writer = new ManifestWriter(file);
  rows.forEach((row) => writer.append(row));
  writer.close();
  return writer.run;
}

test('a second run appends after the first run, whose bytes stay as they were; every row names its run', () => {
  const dir = tempDir('vidkit-manifest-');
  try {
    const file = path.join(dir, 'b.manifest.jsonl');
    const first = write(file, [started(1, 'aaaa'), failed(2, 'ThrottlingException: Rate exceeded')]);
    const afterFirst = fs.readFileSync(file, 'utf8');
    const second = write(file, [started(2, 'bbbb')]);
    const afterSecond = fs.readFileSync(file, 'utf8');
    assert.ok(afterSecond.startsWith(afterFirst), 'the first run is never truncated or rewritten');
    assert.match(first, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(
      afterSecond.trimEnd().split('\n').map((l) => JSON.parse(l) as ManifestRecord),
      [
        { run: first, ...started(1, 'aaaa') },
        { run: first, ...failed(2, 'ThrottlingException: Rate exceeded') },
        { run: second, ...started(2, 'bbbb') },
      ],
    );
    assert.equal(readManifest(file).map((r) => [r.run, r.line, r.status]), [
      [first, 1, 'started'],
      [first, 2, 'failed-to-start'],
      [second, 2, 'started'],
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a row torn by a crash is skipped and named, and the next run starts on a line of its own', () => {
  const dir = tempDir('vidkit-manifest-');
  try {
    const file = path.join(dir, 'b.manifest.jsonl');
    write(file, [started(1, 'aaaa')]);
    // What a crash part-way through a write leaves: the start of a row, no newline.
    fs.appendFileSync(file, '{"run":"2030-01-01T00:00:00.000Z","line":2,"outputKey":"out/2.m');
    const skipped: string[] = [];
    assert.equal(readManifest(file, (m) => skipped.push(m)).map((r) => r.line), [1]);
    assert.equal(skipped, [`${file}:2: skipped a torn row (not complete JSON: a run was cut off while writing it)`]);

    const rerun = write(file, [started(2, 'cccc')]);
    skipped.length = 0;
    const rows = readManifest(file, (m) => skipped.push(m));
    assert.equal(rows.map((r) => [r.line, r.renderId]), [[1, 'aaaa'], [2, 'cccc']]);
    assert.is(rows[1].run, rerun);
    assert.equal(skipped, [`${file}:2: skipped a torn row (not complete JSON: a run was cut off while writing it)`]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a complete JSON line that is not a row is still an error naming it', () => {
  const dir = tempDir('vidkit-manifest-');
  try {
    const file = path.join(dir, 'b.manifest.jsonl');
    fs.writeFileSync(file, `${JSON.stringify(started(1, 'aaaa'))}\n{"line": 2}\n`);
    assert.throws(() => readManifest(file), (err: Error) => err.message === `${file}:2: not a manifest row (needs line, outputKey, status, and executionArn or renderId when started)`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('latestRowPerLine: each line by its latest row, a re-run replacing the earlier run, in line order', () => {
  const rows: ManifestRecord[] = [
    { run: 'r1', ...started(3, 'aaaa') },
    { run: 'r1', ...failed(1, 'boom') },
    { run: 'r1', ...started(2, 'bbbb') },
    { run: 'r2', ...started(1, 'cccc') },
  ];
  assert.equal(latestRowPerLine(rows).map((r) => [r.line, r.run, r.status]), [
    [1, 'r2', 'started'],
    [2, 'r1', 'started'],
    [3, 'r1', 'started'],
  ]);
});

test.run();
