// tier: cloud
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AwsEmulator, startAwsEmulator } from '../test-support/aws-emulator';
import { CliRun, FIXTURES, cli, errorLines, tempDir } from '../test-support/cli';
import { TEST_IMAGE, TestAws, downloadObject, registerZipHandler, testAwsClients } from '../test-support/cloud-stack';
import { decodeGray } from '../test-support/media';

// Large variables from the command line, and a page that never becomes ready, on MiniStack with
// the real handler (as in src/sdk/cloud.test.ts): a 5 MB variables file reaches every chunk's page
// through the bucket; a chunk whose page loops at load fails within its --load-timeout, and
// `--wait` and `progress` name the page's reason.
const out = tempDir('vidkit-cloudfn-limits-test-');

let emu: AwsEmulator;
let aws: TestAws;
let bucket = '';

/** `vidkit` with the emulator's environment and `input` on stdin. */
function cloudCli(args: string[], input?: string): CliRun {
  const r = spawnSync(process.execPath, [cli(), ...args], {
    encoding: 'utf8',
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...emu.env, VIDKIT_POLL_MS: '300' },
    timeout: 300_000,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A page grey by its title's length: one level per 65536 characters, so a frame shows how much of it arrived. */
function titleLengthProject(): string {
  const dir = path.join(out, 'title-length');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html>
<html data-composition-variables='[{"id":"title","type":"string","default":""}]'>
<head><style>html,body{margin:0}#root{width:64px;height:36px}</style></head>
<body>
<div id="root" data-composition-id="title-length" data-width="64" data-height="36" data-duration="0.4" data-fps="5"></div>
<script>
  var level = Math.min(255, Math.floor(window.__vidkit.getVariables().title.length / 65536));
  document.getElementById('root').style.background = 'rgb(' + level + ',' + level + ',' + level + ')';
</script>
</body>
</html>
`,
  );
  return dir;
}

const test = suite('cloudfn render: --variables-file and stdin, a page that never becomes ready (MiniStack)');

test.before(async () => {
  emu = await startAwsEmulator();
  aws = testAwsClients(emu);
  const deploy = cloudCli(['cloudfn', 'deploy', '--image-uri', TEST_IMAGE, '--json']);
  assert.is(deploy.status, 0, deploy.stderr + emu.log());
  bucket = JSON.parse(deploy.stdout).outputs.RenderBucketName;
  await registerZipHandler(aws, { bucket, workDir: out });
});

test.after(async () => {
  await emu?.stop();
  fs.rmSync(out, { recursive: true, force: true });
});

test('a 5 MB variables file renders end to end with --host-large-variables: every frame shows the whole title arrived', async () => {
  const project = titleLengthProject();
  const variables = path.join(out, 'vars.json');
  const skeleton = JSON.stringify({ title: '' });
  const title = 'a'.repeat(5_000_000 - skeleton.length);
  fs.writeFileSync(variables, JSON.stringify({ title }));
  assert.is(fs.statSync(variables).size, 5_000_000);

  const key = 'renders/large.mp4';
  const run = cloudCli(['cloudfn', 'render', project, '--variables-file', variables, '--host-large-variables', '--output-key', key, '--wait']);
  assert.is(run.status, 0, run.stderr + emu.log().slice(-3000));
  assert.is(run.stdout.trim().split('\n').pop(), `s3://${bucket}/${key}`);
  const file = path.join(out, 'large.mp4');
  await downloadObject(aws, bucket, key, file);
  const frames = decodeGray(file, 64, 36);
  assert.is(frames.length, 2);
  const expected = Math.floor(title.length / 65536);
  for (const frame of frames) assert.ok(Math.abs(frame[18 * 64 + 32] - expected) <= 3, `grey ${frame[18 * 64 + 32]}, expected ${expected}`);
});

test('--variables-file - reads stdin: 5 MB without --host-large-variables is refused by the execution input limit, before any request', () => {
  const project = titleLengthProject();
  const run = cloudCli(['cloudfn', 'render', project, '--variables-file', '-', '--output-key', 'renders/stdin.mp4'], JSON.stringify({ title: 'b'.repeat(5_000_000) }));
  assert.is(run.status, 2, run.stderr);
  assert.match(errorLines(run.stderr)[0], /^vidkit: error: \[validateConfig\] config: the serialised execution input is 50\d{5} bytes, over the limit of 262144 bytes \(256 KiB\)/);
  assert.match(errorLines(run.stderr)[0], /--host-large-variables/);
});

test('a chunk whose page never becomes ready fails within its --load-timeout; --wait and progress name the page', () => {
  const project = path.join(out, 'loops-on-load');
  fs.cpSync(path.join(FIXTURES, 'loops-on-load'), project, { recursive: true });
  const started = Date.now();
  const run = cloudCli(['cloudfn', 'render', project, '--load-timeout', '3', '--output-key', 'renders/never.mp4', '--wait']);
  const seconds = (Date.now() - started) / 1000;
  assert.is(run.status, 1, run.stderr);
  const reason = 'TransientChunkError: the composition did not become ready within the load timeout of 3 s (a script may loop forever at load';
  const renderId = /render ([0-9a-f]{16}) started/.exec(run.stderr)![1];
  assert.match(errorLines(run.stderr)[0], `vidkit: error: render ${renderId} failed: ${reason}`);
  // Three attempts of 3 s, their browsers' starts and the state machine's 1 s and 2 s back-off.
  assert.ok(seconds < 120, `ended after ${seconds} s`);

  const progress = cloudCli(['cloudfn', 'progress', renderId, '--json']);
  assert.is(progress.status, 0, progress.stderr);
  const p = JSON.parse(progress.stdout) as { status: string; error: string };
  assert.is(p.status, 'failed');
  assert.match(p.error, reason);
});

test.run();
