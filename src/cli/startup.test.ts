import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FIXTURES, tempDir, vidkit } from '../test-support/cli';
import { ffprobe } from '../test-support/media';

const dir = tempDir('vidkit-startup-test-');

// A local render must not wait for the AWS SDK to load (about 150 ms before its first frame): the
// cloud commands load it when they run. The preload reports every module the process loaded.
test('a local render loads no module from outside the bundle (no AWS SDK), and the CLI still lists the cloud commands', () => {
  const preload = path.join(dir, 'report-modules.js');
  const report = path.join(dir, 'modules.json');
  fs.writeFileSync(preload, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify(Object.keys(require.cache))));\n`);
  const output = path.join(dir, 'static.mp4');
  const run = vidkit(['render', path.join(FIXTURES, 'static-card'), '--output', output, '--workers', '1'], { env: { NODE_OPTIONS: `--require ${preload}` } });
  assert.is(run.status, 0, run.stderr);
  assert.is(ffprobe(output).streams[0].nb_read_frames, '30');
  const modules: string[] = JSON.parse(fs.readFileSync(report, 'utf8'));
  // The command line is one bundle: what it loads from outside it is the native addon, and what it left out.
  assert.ok(modules.some((m) => m.endsWith('.node')), `the report lists the modules the render loaded: ${modules.join(', ')}`);
  assert.equal(modules.filter((m) => m.includes('@aws-sdk')), []);
  // What a render runs is in the bundle: a package left out of it (build-cli.mjs) and loaded from
  // node_modules would be resolved, read and compiled on every render.
  assert.equal(modules.filter((m) => m.includes(`${path.sep}node_modules${path.sep}`)), []);

  const help = vidkit(['--help']);
  assert.is(help.status, 0, help.stderr);
  for (const command of ['cloudfn deploy', 'cloudfn sites create', 'cloudfn render', 'cloudfn render-batch', 'cloudfn progress']) {
    assert.ok(help.stdout.includes(command), `--help lists ${command}`);
  }
});

test.run();
