import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VERSION } from '../package-info';
import { errorLines, tempDir, vidkit } from '../test-support/cli';
import { decodeRgbFrame, ffprobe, rgbAt } from '../test-support/media';

const listing = (dir: string) => fs.readdirSync(dir).sort();

test('init then render: the starter project renders to a valid MP4 showing its variables', () => {
  const parent = tempDir('vidkit-init-test-');
  const created = vidkit(['init', 'my-video'], { cwd: parent });
  assert.is(created.status, 0, created.stderr);
  const dir = path.join(parent, 'my-video');
  assert.is(created.stdout.trim(), dir);
  assert.equal(listing(dir), ['.gitignore', 'README.md', 'index.html', 'package.json']);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  assert.equal(Object.keys(pkg.scripts).sort(), ['preview', 'render', 'types']);
  assert.equal(listing(parent), ['my-video'], 'no staging directory is left behind');

  const output = path.join(parent, 'out.mp4');
  const accent = '#20c0ff';
  const run = vidkit(['render', dir, '--width', '320', '--quality', 'draft', '--output', output, '--strict-variables', '--variables', JSON.stringify({ accent })], { cwd: parent });
  assert.is(run.status, 0, run.stderr);
  const probe = ffprobe(output);
  const v = probe.streams.find((s) => s.codec_type === 'video')!;
  assert.equal([v.codec_name, v.pix_fmt, v.width, v.height, v.nb_read_frames], ['h264', 'yuv420p', 320, 180, '120']);
  assert.is(Number(probe.format.duration), 4);
  // The tallest bar (right) has grown by the last frame: the accent at 85 % over #101014.
  const [r, g, b] = rgbAt(decodeRgbFrame(output, 119, 320, 180), 320, 280, 170);
  const want = [0x20, 0xc0, 0xff].map((c, i) => 0.85 * c + 0.15 * [0x10, 0x10, 0x14][i]);
  assert.ok(Math.abs(r - want[0]) <= 14 && Math.abs(g - want[1]) <= 14 && Math.abs(b - want[2]) <= 14, `bar pixel ${[r, g, b]}, want ${want.map(Math.round)}`);
});

test('init: npm install in the project installs the vidkit that made it; its README names only files that exist', () => {
  const parent = tempDir('vidkit-init-test-');
  assert.is(vidkit(['init', 'linked'], { cwd: parent }).status, 0);
  const dir = path.join(parent, 'linked');
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  assert.match(pkg.devDependencies.vidkit, /^file:/);
  // Offline: nothing may come from the registry, where there is no vidkit.
  const install = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8' });
  assert.is(install.status, 0, install.stderr);
  const installed = spawnSync(path.join(dir, 'node_modules', '.bin', 'vidkit'), ['--version'], { encoding: 'utf8' });
  assert.equal([installed.status, installed.stdout], [0, `${VERSION}\n`]);

  const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
  assert.not.match(readme, /https?:\/\//, 'no links to pages');
  for (const [, file] of readme.matchAll(/`((?:node_modules\/)?[\w./-]+\.(?:md|json|html))`/g)) {
    assert.ok(fs.existsSync(path.join(dir, file)), `the README names ${file}`);
  }
});

test('init into a non-empty directory fails and leaves it untouched', () => {
  const parent = tempDir('vidkit-init-test-');
  const dir = path.join(parent, 'taken');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'index.html'), 'mine');
  const run = vidkit(['init', 'taken'], { cwd: parent });
  assert.is(run.status, 2);
  assert.equal(errorLines(run.stderr), [`vidkit: error: ${dir} is not empty: choose a new name or an empty directory`]);
  assert.equal(listing(dir), ['index.html']);
  assert.is(fs.readFileSync(path.join(dir, 'index.html'), 'utf8'), 'mine');
  assert.equal(listing(parent), ['taken']);
});

test('init into an existing empty directory fills it', () => {
  const parent = tempDir('vidkit-init-test-');
  fs.mkdirSync(path.join(parent, 'empty'));
  const run = vidkit(['init', 'empty'], { cwd: parent });
  assert.is(run.status, 0, run.stderr);
  assert.ok(fs.existsSync(path.join(parent, 'empty', 'index.html')));
});

test('init rejects names that are not one plain directory name, creating nothing', () => {
  const parent = tempDir('vidkit-init-test-');
  for (const name of ['a/b', '..', '.hidden', '-flag', 'two words', 'tab\tname', 'ends.', 'x'.repeat(215), 'é']) {
    // `--` so that "-flag" reaches the name check instead of the option parser.
    const run = vidkit(['init', '--', name], { cwd: parent });
    assert.is(run.status, 2, `${JSON.stringify(name)}: ${run.stderr}`);
    assert.equal(errorLines(run.stderr).length, 1, name);
    assert.match(run.stderr, /invalid project name/);
  }
  assert.equal(listing(parent), []);
});

test.run();
