import * as fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir, vidkit } from '../test-support/cli';

test('vidkit benchmark: renders the bundled example, reports fps and workers as JSON, leaves no file', () => {
  const tmp = tempDir('vidkit-benchmark-test-');
  const run = vidkit(['benchmark', '--width', '320', '--workers', '2', '--quality', 'draft', '--json'], { env: { TMPDIR: tmp } });
  assert.is(run.status, 0, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.equal([report.composition, report.width, report.height, report.frames, report.workers], ['ui-3d-reveal', 320, 180, 180, 2]);
  assert.ok(report.seconds > 0 && report.fps > 0, run.stdout);
  assert.ok(Math.abs(report.fps - report.frames / report.seconds) < 0.05 * report.fps, 'fps is frames over seconds');
  assert.equal(fs.readdirSync(tmp), [], 'the temporary output is removed');
});

test('vidkit benchmark: a bad option is bad input before anything renders', () => {
  const run = vidkit(['benchmark', '--quality', 'ultra']);
  assert.equal([run.status, run.stdout], [2, '']);
  assert.match(run.stderr, /--quality must be one of draft, standard, high, got "ultra"/);
});

test.run();
