// tier: cloud
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { HeadBucketCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { GetExecutionHistoryCommand } from '@aws-sdk/client-sfn';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AwsEmulator, startAwsEmulator } from '../test-support/aws-emulator';
import { CliRun, built, errorLines, frameClock, tempDir, vidkitAsync } from '../test-support/cli';
import { TEST_IMAGE, TestAws, downloadObject, registerZipHandler, testAwsClients } from '../test-support/cloud-stack';
import { decodeGray, ffprobe, readBits } from '../test-support/media';
import { WEBHOOK_DELIVERY_HEADER, WEBHOOK_SIGNATURE_HEADER, RenderWebhookPayload, verifyWebhookSignature } from '../sdk/webhook';

// The stack as users meet it after `cloudfn deploy`: every command finds the bucket and state
// machine in the stack's outputs (none in the environment), the render function posts a signed
// webhook for each outcome to a receiver on loopback, the listings and --estimate read the real
// stack, and `destroy` leaves nothing behind. MiniStack on loopback, the real handler as in
// src/sdk/cloud.test.ts.
const out = tempDir('vidkit-cloud-stack-test-');
const SECRET = 'webhook-test-secret';

let emu: AwsEmulator;
let aws: TestAws;
let bucket = '';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}
const received: Received[] = [];
let receiver: http.Server;
let hookUrl = '';

/** The environment of a user who deployed and exported nothing: no VIDKIT_BUCKET, no VIDKIT_SFN_ARN. */
const cli = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> =>
  vidkitAsync(args, { env: { ...userEnv(), VIDKIT_WEBHOOK_SECRET: SECRET, VIDKIT_POLL_MS: '300', ...env } });

/** The environment `cli` gives its commands. */
const userEnv = (): NodeJS.ProcessEnv => ({ ...process.env, ...emu.env, VIDKIT_BUCKET: undefined, VIDKIT_SFN_ARN: undefined });

/** `vidkit cloudfn destroy` on a terminal (util-linux `script` gives it one), answering its question with `answer`. */
function destroyOnTerminal(answer: string): Promise<{ status: number; output: string }> {
  const command = [process.execPath, built('cli', 'main.js'), 'cloudfn', 'destroy'].map((a) => JSON.stringify(a)).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: userEnv(), stdio: ['pipe', 'pipe', 'inherit'] });
    let output = '';
    let asked = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      output += d;
      if (!asked && output.includes('[y/N]')) {
        asked = true;
        child.stdin.write(`${answer}\n`);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? -1, output }));
  });
}

const RENDER_ARGS = ['--width', '320', '--max-parallel-chunks', '2', '--chunk-size', '15'];

/** The hooks this file receives are single renders' (no batch runs here). */
function payloadOf(r: Received): RenderWebhookPayload {
  return JSON.parse(r.body.toString('utf8')) as RenderWebhookPayload;
}

const stack = suite('cloudfn finds the deployed stack; webhooks, listings, estimate, destroy (MiniStack)');

stack.before(async () => {
  emu = await startAwsEmulator();
  aws = testAwsClients(emu);
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/vidkit`;
});

stack.after(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await emu?.stop();
  fs.rmSync(out, { recursive: true, force: true });
});

stack('before any deploy: render names the missing stack and the fixes, exit 3; --estimate assumes the deploy default memory', async () => {
  const run = await cli(['cloudfn', 'render', frameClock(1, out), ...RENDER_ARGS, '--output-key', 'renders/none.mp4']);
  assert.is(run.status, 3, run.stderr);
  assert.equal(errorLines(run.stderr), [
    'vidkit: error: no render bucket: stack vidkit-render does not exist in us-east-1; deploy it with `vidkit cloudfn deploy`, name another with --stack-name, or pass the names (--bucket, --state-machine-arn, or VIDKIT_BUCKET, VIDKIT_SFN_ARN)',
  ]);
  const estimate = await cli(['cloudfn', 'render', frameClock(1, out), ...RENDER_ARGS, '--estimate']);
  assert.is(estimate.status, 0, estimate.stderr);
  assert.match(estimate.stdout, /^Estimate: 30 frames in 2 chunks at 320x180, render function 10240 MB \(the deploy default: no stack vidkit-render\)$/m);
});

stack('deploy, then render --wait with nothing in the environment: the output is in the stack bucket and one signed success webhook arrives', async () => {
  const deploy = await cli(['cloudfn', 'deploy', '--image-uri', TEST_IMAGE, '--json']);
  assert.is(deploy.status, 0, deploy.stderr + emu.log());
  bucket = JSON.parse(deploy.stdout).outputs.RenderBucketName;
  await registerZipHandler(aws, { bucket, workDir: out });

  const key = 'renders/discovered.mp4';
  const run = await cli(['cloudfn', 'render', frameClock(1, out), ...RENDER_ARGS, '--output-key', key, '--wait', '--webhook', hookUrl, '--webhook-allow-private']);
  assert.is(run.status, 0, run.stderr + emu.log().slice(-3000));
  assert.is(run.stdout.trim(), `s3://${bucket}/${key}`);
  const file = path.join(out, 'discovered.mp4');
  await downloadObject(aws, bucket, key, file);
  assert.is(ffprobe(file).streams[0].nb_read_frames, '30');
  decodeGray(file, 320, 180).forEach((f, i) => assert.is(readBits(f, 0, 0.5), i, `frame ${i}`));

  assert.is(received.length, 1, 'one request for one outcome');
  const [hook] = received;
  const payload = payloadOf(hook);
  const renderId = /render ([0-9a-f]{16}) started/.exec(run.stderr)![1];
  assert.equal(
    [payload.type, payload.renderId, payload.bucket, payload.outputKey, payload.output],
    ['render.succeeded', renderId, bucket, key, { url: `s3://${bucket}/${key}`, frames: 30, bytes: fs.statSync(file).size }],
  );
  assert.match(String(payload.executionArn), new RegExp(`:execution:.*:${renderId}$`));
  assert.is(hook.headers['content-type'], 'application/json');
  assert.match(String(hook.headers[WEBHOOK_DELIVERY_HEADER.toLowerCase()]), /^[0-9a-f-]{36}$/);
  const signature = hook.headers[WEBHOOK_SIGNATURE_HEADER.toLowerCase()];
  assert.match(String(signature), /^sha256=[0-9a-f]{64}$/);
  assert.ok(verifyWebhookSignature({ body: hook.body, signature, secret: SECRET }), 'the signature verifies with the secret');
  assert.not.ok(verifyWebhookSignature({ body: hook.body, signature, secret: 'another-secret' }), 'another secret is refused');
  const tampered = Buffer.from(hook.body.toString('utf8').replace('"frames":30', '"frames":31'));
  assert.not.ok(verifyWebhookSignature({ body: tampered, signature, secret: SECRET }), 'a changed body is refused');
  assert.not.ok(verifyWebhookSignature({ body: hook.body, signature: `sha256=${'0'.repeat(64)}`, secret: SECRET }), 'a bad signature is refused');
  assert.not.ok(verifyWebhookSignature({ body: hook.body, signature: undefined, secret: SECRET }), 'no signature is refused');
});

stack('--estimate prints usage and cost, starts nothing; its state transitions are those the render above made', async () => {
  const before = await cli(['cloudfn', 'renders', 'ls', '--json']);
  const run = await cli(['cloudfn', 'render', frameClock(1, out), ...RENDER_ARGS, '--webhook', hookUrl, '--webhook-allow-private', '--estimate', '--json']);
  assert.is(run.status, 0, run.stderr);
  const e = JSON.parse(run.stdout);
  assert.equal([e.totalFrames, e.chunks, e.width, e.height, e.memoryMb], [30, 2, 320, 180, 10240]);
  assert.is(e.lambda.invocations, 5, 'plan, 2 chunks, assemble, webhook');
  assert.ok(Math.abs(e.lambda.gbSeconds - (e.lambda.seconds * 10240) / 1024) < 1e-9);
  assert.ok(Math.abs(e.totalCost - (e.lambda.cost + e.stepFunctions.cost + e.s3.cost)) < 1e-12);
  assert.ok(e.lambda.cost > 0 && e.s3.cost > 0);
  const rendered = JSON.parse(before.stdout) as Array<{ executionArn: string }>;
  const history = await aws.sfn.send(new GetExecutionHistoryCommand({ executionArn: rendered[0].executionArn, maxResults: 1000 }));
  const entered = history.events!.filter((ev) => ev.type!.endsWith('StateEntered')).length;
  // MiniStack's history records the top-level states only, not the Map's iterations: one RenderChunk a chunk.
  assert.is(e.stepFunctions.stateTransitions, entered + e.chunks, 'the states the execution entered');

  const text = await cli(['cloudfn', 'render', frameClock(1, out), ...RENDER_ARGS, '--estimate']);
  assert.is(text.status, 0, text.stderr);
  assert.match(text.stdout, /^Estimate: 30 frames in 2 chunks at 320x180, render function 10240 MB \(stack vidkit-render\)$/m);
  assert.match(text.stdout, /^Step Functions +7 state transitions +\$/m);
  assert.match(text.stdout, /^Total +\$\d/m);
  assert.match(text.stdout, /list prices recorded \d{4}-\d\d-\d\d/);
  const after = await cli(['cloudfn', 'renders', 'ls', '--json']);
  assert.is(JSON.parse(after.stdout).length, rendered.length, 'no render started');
  assert.is(received.length, 1, 'no webhook');
});

stack('a render that fails posts one signed failure webhook; progress still shows the chunk error', async () => {
  await registerZipHandler(aws, { bucket, workDir: out, env: { VIDKIT_FAULT_CHUNK: '0:always' } });
  const run = await cli(['cloudfn', 'render', frameClock(1, out), ...RENDER_ARGS, '--output-key', 'renders/failed.mp4', '--wait', '--webhook', hookUrl, '--webhook-allow-private']);
  assert.is(run.status, 1, run.stderr);
  const renderId = /render ([0-9a-f]{16}) started/.exec(run.stderr)![1];
  assert.match(errorLines(run.stderr)[0], new RegExp(`^vidkit: error: render ${renderId} failed: TransientChunkError: injected fault: chunk 0 always fails`));

  assert.is(received.length, 2, 'one more request for the second outcome');
  const hook = received[1];
  const payload = payloadOf(hook);
  assert.equal([payload.type, payload.renderId, payload.outputKey, payload.output], ['render.failed', renderId, 'renders/failed.mp4', undefined]);
  assert.match(payload.error!, /^TransientChunkError: injected fault: chunk 0 always fails/);
  assert.ok(verifyWebhookSignature({ body: hook.body, signature: hook.headers['x-vidkit-signature'], secret: SECRET }));

  const progress = await cli(['cloudfn', 'progress', renderId, '--json']);
  assert.is(progress.status, 0, progress.stderr);
  assert.equal([JSON.parse(progress.stdout).status, JSON.parse(progress.stdout).error.split(':')[0]], ['failed', 'TransientChunkError']);
});

stack('renders ls: newest first with status and output key; text and --json', async () => {
  const json = await cli(['cloudfn', 'renders', 'ls', '--json']);
  assert.is(json.status, 0, json.stderr);
  const renders = JSON.parse(json.stdout) as Array<Record<string, string>>;
  assert.equal(
    renders.map((r) => [r.status, r.outputKey]),
    [
      ['failed', 'renders/failed.mp4'],
      ['done', 'renders/discovered.mp4'],
    ],
  );
  assert.ok(renders.every((r) => /^[0-9a-f]{16}$/.test(r.renderId) && r.executionArn.endsWith(`:${r.renderId}`) && r.stoppedAt >= r.startedAt));
  const limited = await cli(['cloudfn', 'renders', 'ls', '--limit', '1', '--json']);
  assert.equal(JSON.parse(limited.stdout).map((r: { renderId: string }) => r.renderId), [renders[0].renderId]);
  const text = await cli(['cloudfn', 'renders', 'ls']);
  assert.is(text.status, 0, text.stderr);
  const lines = text.stdout.trim().split('\n');
  assert.match(lines[0], /^renderId +status +started +stopped +outputKey$/);
  assert.match(lines[1], new RegExp(`^${renders[0].renderId} +failed +\\S+ +\\S+ +renders/failed.mp4$`));
  const bad = await cli(['cloudfn', 'renders', 'ls', '--limit', 'many']);
  assert.is(bad.status, 2, bad.stderr);
});

stack('sites ls lists the uploaded site; sites rm deletes it; an unknown id exits 2', async () => {
  const json = await cli(['cloudfn', 'sites', 'ls', '--json']);
  assert.is(json.status, 0, json.stderr);
  const sites = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
  assert.is(sites.length, 1);
  const [site] = sites;
  assert.equal([site.compositionId, site.files, site.complete], ['frame-clock', 1, true]);
  const manifest = await aws.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: `sites/${site.siteId}/.vidkit-site.json` }));
  assert.is(site.bytes, fs.statSync(path.join(frameClock(1, out), 'index.html')).size + manifest.ContentLength!);
  const text = await cli(['cloudfn', 'sites', 'ls']);
  assert.match(text.stdout, new RegExp(`^${site.siteId} +frame-clock +1 +\\d+ +\\S+ +complete$`, 'm'));

  const rm = await cli(['cloudfn', 'sites', 'rm', String(site.siteId)]);
  assert.is(rm.status, 0, rm.stderr);
  assert.is(rm.stdout, `Deleted site ${site.siteId} (2 objects)\n`);
  assert.equal(JSON.parse((await cli(['cloudfn', 'sites', 'ls', '--json'])).stdout), []);
  const again = await cli(['cloudfn', 'sites', 'rm', String(site.siteId)]);
  assert.is(again.status, 2, again.stderr);
  assert.match(errorLines(again.stderr)[0], new RegExp(`^vidkit: error: no site ${site.siteId} in bucket ${bucket}`));
  const usage = await cli(['cloudfn', 'sites', 'rm']);
  assert.is(usage.status, 2, usage.stderr + usage.stdout);
});

stack('destroy asks on a terminal (no deletes nothing), refuses without one, then --yes deletes the stack and the bucket', async () => {
  const declined = await destroyOnTerminal('n');
  assert.is(declined.status, 1, declined.output);
  assert.match(declined.output, new RegExp(`Delete stack vidkit-render and bucket ${bucket} with its \\d+ objects \\(sites, render records, outputs\\)\\? \\[y/N\\]`));
  assert.match(declined.output, /vidkit: nothing deleted/);
  const refused = await cli(['cloudfn', 'destroy']);
  assert.is(refused.status, 2, refused.stderr);
  assert.match(errorLines(refused.stderr)[0], new RegExp(`^vidkit: error: destroy deletes stack vidkit-render and bucket ${bucket} with its \\d+ objects .*: pass --yes to confirm`));
  await aws.s3.send(new HeadBucketCommand({ Bucket: bucket }));
  assert.is((await aws.cfn.send(new DescribeStacksCommand({ StackName: 'vidkit-render' }))).Stacks![0].StackStatus, 'CREATE_COMPLETE', 'the stack is still there');

  const run = await cli(['cloudfn', 'destroy', '--yes']);
  assert.is(run.status, 0, run.stderr + emu.log().slice(-3000));
  assert.match(run.stdout, new RegExp(`^Deleted stack vidkit-render and bucket ${bucket} \\(\\d+ objects\\)\\n$`));
  const stacks = await aws.cfn.send(new DescribeStacksCommand({ StackName: 'vidkit-render' })).catch((err: Error) => err);
  assert.ok(stacks instanceof Error && /does not exist/.test(stacks.message), `no stack: ${JSON.stringify(stacks)}`);
  const head = await aws.s3.send(new HeadBucketCommand({ Bucket: bucket })).catch((err: { $metadata?: { httpStatusCode?: number } }) => err);
  assert.is((head as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode, 404, 'no bucket');

  const nothing = await cli(['cloudfn', 'destroy', '--yes']);
  assert.is(nothing.status, 0, nothing.stderr);
  assert.match(nothing.stderr, /stack vidkit-render does not exist: nothing to destroy/);
});

stack.run();
