// tier: cloud
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateConfig } from '../sdk/render';
import { renderKeys } from '../sdk/render-input';
import { deploySite } from '../sdk/site';
import { AwsEmulator, startAwsEmulator } from '../test-support/aws-emulator';
import { cloudHandler } from '../test-support/build';
import { downloadObject, testAwsClients } from '../test-support/cloud-stack';
import { FIXTURES, REPO_ROOT, tempDir } from '../test-support/cli';
import { decodeGray, readBits } from '../test-support/media';

/**
 * The chunk handler as Lambda runs it: a read-only root, only /tmp writable (and empty), HOME=/tmp,
 * no probe cache, no writable /dev/shm. bubblewrap (Debian package) builds that sandbox; S3 is the
 * emulator on loopback (the network is shared with the sandbox).
 */
const test = suite('chunk handler in a Lambda-shaped sandbox');
const BUCKET = 'vidkit-sandbox-test';
let emu: AwsEmulator;

test.before(async () => {
  emu = await startAwsEmulator();
  Object.assign(process.env, emu.env);
  await testAwsClients(emu).s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
});

test.after(async () => {
  await emu?.stop();
});

/** Runs one chunk event through cloud/handler.js inside the sandbox; its printed result. */
function runChunk(event: unknown): { status: number | null; stdout: string; stderr: string; error?: Error } {
  const invoke = `require(${JSON.stringify(cloudHandler())}).handler(JSON.parse(process.argv[1])).then((r) => console.log(JSON.stringify(r)))`;
  const env: Record<string, string> = { PATH: process.env.PATH!, HOME: '/tmp', ...emu.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  return spawnSync(
    'bwrap',
    [
      ...['--ro-bind', '/', '/', '--tmpfs', '/tmp', '--proc', '/proc', '--dev', '/dev', '--remount-ro', '/dev', '--die-with-parent', '--clearenv'],
      // The checkout may itself live under /tmp (a CI clone): bound again, read-only, over the empty /tmp.
      ...['--ro-bind', REPO_ROOT, REPO_ROOT],
      ...Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v]),
      ...[process.execPath, '-e', invoke, JSON.stringify(event)],
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
}

test('renders its frame range exactly, with nothing but /tmp to write to', async () => {
  const site = await deploySite({ projectDir: path.join(FIXTURES, 'frame-clock'), bucketName: BUCKET });
  const plan = validateConfig({ siteHandle: site, bucketName: BUCKET, config: { maxParallelChunks: 3 }, outputKey: 'renders/clock.mp4' });
  const event = { version: plan.input.version, mode: 'chunk', render: plan.input.render, chunk: { index: 1, startFrame: 50, endFrame: 100 } };
  const run = runChunk(event);
  assert.is(run.status, 0, `${run.stderr}\n${run.error ?? ''}`);
  const result = JSON.parse(run.stdout.trim().split('\n').pop()!);
  assert.is(result.frames, 50);
  const segment = path.join(tempDir('vidkit-sandbox-'), 'segment.mp4');
  await downloadObject(testAwsClients(emu), BUCKET, result.segmentKey, segment);
  const frames = decodeGray(segment, 640, 360);
  assert.is(frames.length, 50);
  const wrong = frames.flatMap((f, i) => (readBits(f, 0) === 50 + i ? [] : [`segment frame ${i}: clock ${readBits(f, 0)}, want ${50 + i}`]));
  assert.equal(wrong, []);
});

test('a chunk reports text no font could draw into its progress record, where the render\'s progress reads it', async () => {
  const dir = tempDir('vidkit-sandbox-tofu-');
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html data-composition-variables='[{"id":"name","type":"string","label":"Name","default":"x"}]'><body>` +
      '<div data-composition-id="tofu" data-width="320" data-height="180" data-duration="0.2" data-fps="10"><p id="name"></p></div>' +
      '<script>document.getElementById("name").textContent = window.__vidkit.getVariables().name;</script></body></html>',
  );
  const site = await deploySite({ projectDir: dir, bucketName: BUCKET });
  const plan = validateConfig({ siteHandle: site, bucketName: BUCKET, config: { variables: { name: '김민준 \uE000' } }, outputKey: 'renders/tofu.mp4' });
  const run = runChunk({ version: plan.input.version, mode: 'chunk', render: plan.input.render, chunk: { index: 0, startFrame: 0, endFrame: 2 } });
  assert.is(run.status, 0, `${run.stderr}\n${run.error ?? ''}`);
  assert.match(run.stderr, /warning: chunk 0: <p#name> \(variable "name"\) draws "\uE000" U\+E000 as empty boxes/);
  const record = path.join(tempDir('vidkit-sandbox-'), 'progress.json');
  await downloadObject(testAwsClients(emu), BUCKET, renderKeys.progress(plan.input.render.renderId, 0), record);
  assert.equal(JSON.parse(fs.readFileSync(record, 'utf8')), {
    index: 0,
    frames: 2,
    totalFrames: 2,
    done: true,
    missingGlyphs: [{ element: 'p#name', text: '김민준 \uE000', characters: ['\uE000'], variables: ['name'] }],
  });
});

test.run();
