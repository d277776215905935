// tier: cloud
import { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { PutFunctionConcurrencyCommand } from '@aws-sdk/client-lambda';
import { DescribeExecutionCommand, ListExecutionsCommand } from '@aws-sdk/client-sfn';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AwsEmulator, startAwsEmulator } from '../test-support/aws-emulator';
import { CliRun, tempDir, vidkitAsync } from '../test-support/cli';
import { RENDER_FUNCTION, TestAws, downloadObject, keysUnder, registerZipHandler, testAwsClients, deployTestStack } from '../test-support/cloud-stack';
import { decodeRgbFrame, decodeRgba, ffprobe, rgbAt } from '../test-support/media';
import type { BatchManifestRow } from './batch-dispatch';
import type { ManifestRecord } from './batch-manifest';
import type { CancelResult } from './cancel';
import { WebhookPayload, verifyWebhookSignature } from './webhook';

// A batch run as a user runs one on MiniStack: resume, --wait, the render and batch webhook events,
// cancel, CSV batches, hosted large variables and direct renders. Every render runs for real in
// the (zip-registered) render function with Chromium; the compositions are tiny (2 frames at
// 160x90, a 2 s one at 10 fps for the direct path, a 24 s 1280x720 one still running when cancelled).
// The function's reserved concurrency is 4, so dispatch paces the batch at 4 renders at a time.
const out = tempDir('vidkit-batch-run-test-');
const project = path.join(out, 'tiny');
const moving = path.join(out, 'moving');
const slow = path.join(out, 'slow');
let emu: AwsEmulator;
let aws: TestAws;
let bucket = '';
let machine = '';
let receiver: http.Server;
let hookUrl = '';
const SECRET = 'batch-secret';
let hooks: { body: Buffer; signature: string | string[] | undefined }[] = [];

const env = (): NodeJS.ProcessEnv => ({ ...emu.env, VIDKIT_BUCKET: bucket, VIDKIT_SFN_ARN: machine, VIDKIT_POLL_MS: '300' });
const cli = (args: string[]): Promise<CliRun> => vidkitAsync(args, { env: env() });
const batchCli = (dir: string, args: string[]): Promise<CliRun> => cli(['cloudfn', 'render-batch', dir, ...args]);
const entry = (outputKey: string, variables: unknown) => JSON.stringify({ outputKey, variables });

function writeFile(name: string, text: string): string {
  const file = path.join(out, name);
  fs.writeFileSync(file, text);
  return file;
}

function manifestRows(file: string): ManifestRecord[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as ManifestRecord);
}

function project2(dir: string, duration: string, body: string): void {
  fs.mkdirSync(dir);
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html data-composition-variables='[{"id":"fill","type":"color","default":"#0000ff"},{"id":"count","type":"number","default":1},{"id":"show","type":"boolean","default":false},{"id":"theme","type":"enum","options":["dark","light"],"default":"dark"},{"id":"title","type":"string","default":"hi"},{"id":"blob","type":"string","default":""}]'>
<body style="margin:0"><div id="root" data-composition-id="tiny" data-width="160" data-height="90" data-duration="${duration}" data-fps="10" style="width:160px;height:90px;position:relative;overflow:hidden">
<div id="bar" style="position:absolute;left:0;top:0;height:20px"></div></div>
<script>
const v = window.__vidkit.getVariables();
document.getElementById('root').style.background = v.blob.length === 307200 ? '#00ff00' : v.fill;
const bar = document.getElementById('bar');
bar.style.width = v.count * 10 + 'px';
bar.style.display = v.show ? 'block' : 'none';
bar.style.background = v.theme === 'light' ? '#ffffff' : '#000000';
${body}
</script></body></html>`,
  );
}

/** Centre pixel and the bar's, of frame `index` of an output in the bucket. */
async function pixels(key: string, index = 0): Promise<{ centre: [number, number, number]; bar: [number, number, number] }> {
  const file = path.join(out, key.replace(/\//g, '_'));
  await downloadObject(aws, bucket, key, file);
  const frame = decodeRgbFrame(file, index, 160, 90);
  return { centre: rgbAt(frame, 160, 120, 60), bar: rgbAt(frame, 160, 4, 8) };
}

const near = (got: number[], want: number[]) => got.every((c, i) => Math.abs(c - want[i]) <= 12);

async function until<T>(what: string, get: () => Promise<T | undefined> | T | undefined, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await get();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function executionStatus(executionArn: string): Promise<string> {
  return (await aws.sfn.send(new DescribeExecutionCommand({ executionArn }))).status!;
}

const run = suite('cloudfn render-batch runs on the AWS emulator (MiniStack): resume, wait, webhook, cancel, CSV, large variables, direct');

run.before(async () => {
  project2(project, '0.2', '');
  // Frame i shows a white square at x = 4i: frames differ, and must match frame for frame.
  project2(moving, '2', "const box = document.createElement('div'); box.style.cssText = 'position:absolute;top:40px;width:10px;height:10px;background:#fff'; document.getElementById('root').append(box); (function tick() { box.style.left = Math.round(performance.now() / 25) + 'px'; requestAnimationFrame(tick); })();");
  // 240 frames (one chunk) at 1280x720 with a blurred, moving layer: seconds of work per render.
  fs.mkdirSync(slow);
  fs.writeFileSync(
    path.join(slow, 'index.html'),
    `<!doctype html><html data-composition-variables='[{"id":"fill","type":"color","default":"#0000ff"}]'><body style="margin:0">
<div id="root" data-composition-id="slow" data-width="1280" data-height="720" data-duration="24" data-fps="10" style="width:1280px;height:720px;position:relative;overflow:hidden">
<div id="haze" style="position:absolute;inset:-100px;background:radial-gradient(circle,#fff,#000);filter:blur(30px)"></div></div>
<script>document.getElementById('root').style.background = window.__vidkit.getVariables().fill;
const haze = document.getElementById('haze'); (function tick() { haze.style.transform = 'rotate(' + performance.now() / 50 + 'deg)'; requestAnimationFrame(tick); })();</script></body></html>`,
  );
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hooks.push({ body: Buffer.concat(chunks), signature: req.headers['x-vidkit-signature'] });
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  emu = await startAwsEmulator();
  aws = testAwsClients(emu);
  ({ bucket, machine } = deployTestStack(emu));
  await registerZipHandler(aws, { bucket, workDir: out });
  await aws.lambda.send(new PutFunctionConcurrencyCommand({ FunctionName: RENDER_FUNCTION, ReservedConcurrentExecutions: 4 }));
});

run.after(async () => {
  await emu?.stop();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  fs.rmSync(out, { recursive: true, force: true });
});

// Four times the function's reserved concurrency: dispatch must hold back three rounds of starts.
const SIXTEEN = Array.from({ length: 16 }, (_, i) => entry(`sixteen/${i}.mp4`, { fill: i % 2 === 0 ? '#ff0000' : '#00ff00', title: `viewer ${i}` }));
const sixteenFile = () => path.join(out, 'sixteen.jsonl');

run('16 lines with --wait --webhook: paced 4 at a time, --wait exits when the last ends, 16 signed render events and 1 batch event, each once', async () => {
  hooks = [];
  writeFile('sixteen.jsonl', `${SIXTEEN.join('\n')}\n`);
  const first = await batchCli(project, ['--batch', sixteenFile(), '--wait', '--webhook', hookUrl, '--webhook-secret', SECRET, '--webhook-allow-private']);
  assert.is(first.status, 0, first.stderr + emu.log().slice(-3000));
  assert.match(first.stderr, /16 renders x 1 chunk; about 4 at a time \(reserved concurrency 4/);
  assert.is(first.stdout.split('\n')[0], '16 started, 0 failed-to-start');
  assert.match(first.stderr, /batch [0-9a-f]{16}: \d+\/16 done, \d+ running, 0 failed; [\d.]+ renders\/min; ETA /);
  assert.match(first.stderr, /batch [0-9a-f]{16} ended: 16\/16 done, 0 running, 0 failed; [\d.]+ renders\/min; about \$[\d.e-]+ so far/);
  const rows = manifestRows(path.join(out, 'sixteen.manifest.jsonl'));
  const states = await Promise.all(rows.map((r) => executionStatus(r.executionArn!)));
  assert.equal(states, Array(16).fill('SUCCEEDED'), '--wait returned once every render had ended');
  // Never more than 4 of them running at once: no start before a place was free.
  const listed = (await aws.sfn.send(new ListExecutionsCommand({ stateMachineArn: machine }))).executions!.filter((e) => rows.some((r) => r.executionArn === e.executionArn));
  const overlap = Math.max(...listed.map((e) => listed.filter((o) => o.startDate! <= e.startDate! && o.stopDate! > e.startDate!).length));
  assert.ok(overlap <= 4, `at most 4 renders ran at once, saw ${overlap}`);
  assert.equal((await keysUnder(aws, bucket, 'sixteen/')).length, 16);
  assert.ok(near((await pixels('sixteen/0.mp4')).centre, [255, 0, 0]) && near((await pixels('sixteen/1.mp4')).centre, [0, 255, 0]), 'each output has its own fill');

  // The batch's event is sent by the render function that ended last, maybe after --wait read the count.
  await until('the batch event', () => (hooks.some((h) => h.body.includes('batch.completed')) ? true : undefined), 30_000);
  await new Promise((r) => setTimeout(r, 1000));
  const events = hooks.map((h) => {
    assert.ok(verifyWebhookSignature({ body: h.body, signature: h.signature, secret: SECRET }), 'signed with the secret');
    return JSON.parse(h.body.toString('utf8')) as WebhookPayload;
  });
  const renderEvents = events.filter((e) => e.type === 'render.succeeded');
  assert.is(renderEvents.length, 16, 'one event per render');
  assert.equal(new Set(renderEvents.map((e) => e.type === 'render.succeeded' && e.renderId)).size, 16, 'each render once');
  const batchEvents = events.filter((e) => e.type === 'batch.completed');
  assert.is(batchEvents.length, 1, 'one batch event');
  assert.equal({ ...batchEvents[0], sentAt: undefined }, { type: 'batch.completed', batchId: rows[0].batchId, bucket, renders: 16, done: 16, failed: 0, aborted: 0, sentAt: undefined });
  assert.is(events.length, 17);
});

run('run again: 0 started, 16 skipped; 2 lines edited: only those 2 render again; --force starts all', async () => {
  const before = (await aws.sfn.send(new ListExecutionsCommand({ stateMachineArn: machine }))).executions!.length;
  const again = await batchCli(project, ['--batch', sixteenFile(), '--json']);
  assert.is(again.status, 0, again.stderr);
  const rows = JSON.parse(again.stdout) as BatchManifestRow[];
  assert.equal(rows.map((r) => r.status), Array(16).fill('skipped'));
  assert.is((await aws.sfn.send(new ListExecutionsCommand({ stateMachineArn: machine }))).executions!.length, before, 'no execution started');
  const text = await batchCli(project, ['--batch', sixteenFile()]);
  assert.is(text.stdout.split('\n')[0], '0 started, 16 skipped, 0 failed-to-start');

  const edited = [...SIXTEEN];
  edited[3] = entry('sixteen/3.mp4', { fill: '#ffffff', title: 'viewer 3' });
  edited[10] = entry('sixteen/10.mp4', { fill: '#000000', title: 'viewer 10' });
  writeFile('sixteen.jsonl', `${edited.join('\n')}\n`);
  const changed = await batchCli(project, ['--batch', sixteenFile(), '--json', '--wait']);
  assert.is(changed.status, 0, changed.stderr);
  const changedRows = JSON.parse(changed.stdout) as BatchManifestRow[];
  assert.equal(changedRows.filter((r) => r.status === 'started').map((r) => r.outputKey), ['sixteen/3.mp4', 'sixteen/10.mp4']);
  assert.is(changedRows.filter((r) => r.status === 'skipped').length, 14);
  assert.ok(near((await pixels('sixteen/3.mp4')).centre, [255, 255, 255]) && near((await pixels('sixteen/10.mp4')).centre, [0, 0, 0]), 'the edited lines rendered their new fills');

  const forced = await batchCli(project, ['--batch', sixteenFile(), '--json', '--force', '--dry-run']);
  assert.equal((JSON.parse(forced.stdout) as BatchManifestRow[]).map((r) => r.status), Array(16).fill('would-invoke'));
});

run('a batch stopped with Ctrl-C, then cancel --batch-manifest: no execution left running, no chunk objects, the cancels recorded', async () => {
  // Each line its own fill, which the page's script reads: every render draws its whole video (the
  // same lines would be joined from the first one's segments, and end at once).
  const file = writeFile('slow.jsonl', `${Array.from({ length: 12 }, (_, i) => entry(`slow/${i}.mp4`, { fill: `#ff00${String(i).padStart(2, '0')}` })).join('\n')}\n`);
  const manifestFile = path.join(out, 'slow.manifest.jsonl');
  let child: ChildProcess | undefined;
  const dispatching = vidkitAsync(['cloudfn', 'render-batch', slow, '--batch', file], { env: env(), watch: (_, c) => (child = c) });
  await until('4 started renders', () => (fs.existsSync(manifestFile) && manifestRows(manifestFile).filter((r) => r.status === 'started').length >= 4 ? true : undefined));
  child!.kill('SIGINT');
  const dispatched = await dispatching;
  assert.is(dispatched.status, 130, dispatched.stderr);
  const started = manifestRows(manifestFile).filter((r) => r.status === 'started');
  assert.ok(started.length >= 4 && started.length < 12, `${started.length} started before the interrupt`);

  const cancel = await cli(['cloudfn', 'cancel', '--batch-manifest', manifestFile, '--json']);
  assert.is(cancel.status, 0, cancel.stderr);
  const results = JSON.parse(cancel.stdout) as CancelResult[];
  assert.equal(results.map((r) => r.renderId).sort(), started.map((r) => r.renderId).sort());
  const cancelled = results.filter((r) => r.wasRunning);
  const statuses = await Promise.all(started.map(async (r) => (await aws.sfn.send(new DescribeExecutionCommand({ executionArn: r.executionArn! }))) as unknown));
  assert.ok(cancelled.length > 0, `renders of 24 s at 1280x720 were still running: ${JSON.stringify(results)} ${JSON.stringify(statuses).slice(0, 2000)}`);
  for (const r of started) assert.is.not(await executionStatus(r.executionArn!), 'RUNNING', `${r.renderId} still running`);
  const leftovers = async () => (await Promise.all(cancelled.map((r) => keysUnder(aws, bucket, `renders/${r.renderId}/`)))).flat().sort();
  assert.equal(await leftovers(), cancelled.map((r) => `renders/${r.renderId}/cancel.json`).sort(), 'only the cancel markers');
  // A chunk invocation outlives its stopped execution: it must not write anything afterwards.
  await new Promise((r) => setTimeout(r, 4000));
  assert.equal(await leftovers(), cancelled.map((r) => `renders/${r.renderId}/cancel.json`).sort(), 'still only the markers');
  assert.equal(await keysUnder(aws, bucket, 'slow/'), started.filter((r) => !cancelled.some((c) => c.renderId === r.renderId)).map((r) => r.outputKey!).sort(), 'no output of a cancelled render');
  const recorded = manifestRows(manifestFile).filter((r) => r.status === 'cancelled');
  assert.equal(recorded.map((r) => r.renderId).sort(), cancelled.map((r) => r.renderId).sort(), 'the manifest records each cancel');
});

run('CSV with a BOM, quoted commas, a line break in a field and typed columns renders what the equivalent JSONL renders, locally and in the cloud; a bad cell names its line and column', async () => {
  const csv = writeFile(
    'rows.csv',
    '\uFEFFid,title,count,show,fill,theme\r\n1,"Hello, world",4,yes,#ff0000,light\r\n2,"two\nlines",9,TRUE,rgb(0 0 255),dark\r\n3,bad,many,no,#00ff00,dark\r\n',
  );
  const jsonl = writeFile(
    'rows.jsonl',
    [
      entry('jsonl/1.mp4', { title: 'Hello, world', count: 4, show: true, fill: '#ff0000', theme: 'light' }),
      entry('jsonl/2.mp4', { title: 'two\nlines', count: 9, show: true, fill: 'rgb(0 0 255)', theme: 'dark' }),
    ].join('\n'),
  );
  const fromCsv = await batchCli(project, ['--batch', csv, '--output-key', 'csv/{id}.mp4', '--json', '--wait']);
  assert.is(fromCsv.status, 1, 'the bad row failed to start');
  const rows = JSON.parse(fromCsv.stdout) as BatchManifestRow[];
  assert.equal(rows.map((r) => [r.line, r.outputKey, r.status]), [
    [2, 'csv/1.mp4', 'started'],
    [3, 'csv/2.mp4', 'started'],
    [5, 'csv/3.mp4', 'failed-to-start'],
  ]);
  assert.is(rows[2].error, 'line 5, column "count": "many" is not a number');
  const fromJsonl = await batchCli(project, ['--batch', jsonl, '--wait']);
  assert.is(fromJsonl.status, 0, fromJsonl.stderr);
  for (const id of ['1', '2']) {
    const [a, b] = [path.join(out, `csv-${id}.mp4`), path.join(out, `jsonl-${id}.mp4`)];
    await downloadObject(aws, bucket, `csv/${id}.mp4`, a);
    await downloadObject(aws, bucket, `jsonl/${id}.mp4`, b);
    assert.ok(decodeRgba(a, 160, 90)[0].equals(decodeRgba(b, 160, 90)[0]), `csv/${id}.mp4 has the frames of jsonl/${id}.mp4`);
  }
  const { centre, bar } = await pixels('csv/1.mp4');
  assert.ok(near(centre, [255, 0, 0]) && near(bar, [255, 255, 255]), `typed cells reached the page: fill, show, theme (${centre}, ${bar})`);

  const local = await vidkitAsync(['render', project, '--batch', csv, '--output-key', '{id}.mp4', '--output-dir', path.join(out, 'local-csv'), '--json']);
  assert.is(local.status, 1, local.stderr);
  const localRows = JSON.parse(local.stdout) as { line: number; status: string; error?: string }[];
  assert.equal(localRows.map((r) => [r.line, r.status]), [[2, 'rendered'], [3, 'rendered'], [5, 'failed']]);
  assert.is(localRows[2].error, 'line 5, column "count": "many" is not a number');
  const localFrame = decodeRgbFrame(path.join(out, 'local-csv', '1.mp4'), 0, 160, 90);
  assert.ok(near(rgbAt(localFrame, 160, 120, 60), [255, 0, 0]) && near(rgbAt(localFrame, 160, 4, 8), [255, 255, 255]), 'the local render of the CSV row');
});

run('a 300 KiB variable: refused without --host-large-variables (the message names it), rendered with it', async () => {
  const big = writeFile('big.jsonl', `${entry('big/one.mp4', { blob: 'x'.repeat(307200) })}\n`);
  const refused = await batchCli(project, ['--batch', big, '--json']);
  assert.is(refused.status, 1);
  const [row] = JSON.parse(refused.stdout) as BatchManifestRow[];
  assert.is(row.status, 'failed-to-start');
  assert.match(row.error!, /^\[validateConfig\] config: the serialised execution input is \d+ bytes, over the limit of 262144 bytes .*--host-large-variables \(SDK hostLargeVariables: true\)$/);
  const hosted = await batchCli(project, ['--batch', big, '--json', '--host-large-variables', '--wait']);
  assert.is(hosted.status, 0, hosted.stderr + emu.log().slice(-3000));
  const [started] = JSON.parse(hosted.stdout) as BatchManifestRow[];
  const input = JSON.parse((await aws.sfn.send(new DescribeExecutionCommand({ executionArn: started.executionArn! }))).input!);
  assert.equal(input.render.config.variables, {}, 'the execution input carries a reference, not the variables');
  assert.equal(input.render.hostedVariables, { key: `renders/${started.renderId}/variables.json`, bytes: 307211 });
  assert.ok(near((await pixels('big/one.mp4')).centre, [0, 255, 0]), 'the page got all 307200 characters');
});

run('--direct on a 2 s composition: one invocation, frames identical to the state-machine render; progress and the webhook as for any render', async () => {
  hooks = [];
  const viaMachine = await cli(['cloudfn', 'render', moving, '--output-key', 'direct/machine.mp4', '--wait']);
  assert.is(viaMachine.status, 0, viaMachine.stderr);
  const before = (await aws.sfn.send(new ListExecutionsCommand({ stateMachineArn: machine }))).executions!.length;
  const direct = await cli(['cloudfn', 'render', moving, '--output-key', 'direct/direct.mp4', '--direct', '--wait', '--webhook', hookUrl, '--webhook-secret', SECRET, '--webhook-allow-private']);
  assert.is(direct.status, 0, direct.stderr + emu.log().slice(-3000));
  assert.is(direct.stdout.trim(), `s3://${bucket}/direct/direct.mp4`);
  assert.is((await aws.sfn.send(new ListExecutionsCommand({ stateMachineArn: machine }))).executions!.length, before, 'no execution');
  const [a, b] = [path.join(out, 'machine.mp4'), path.join(out, 'direct.mp4')];
  await downloadObject(aws, bucket, 'direct/machine.mp4', a);
  await downloadObject(aws, bucket, 'direct/direct.mp4', b);
  assert.is(ffprobe(b).streams[0].nb_read_frames, '20');
  const [fa, fb] = [decodeRgba(a, 160, 90), decodeRgba(b, 160, 90)];
  assert.is(fb.length, 20);
  assert.equal(fb.map((f, i) => f.equals(fa[i])), Array(20).fill(true), 'frame for frame');
  assert.ok(!fb[0].equals(fb[19]), 'the frames move');

  const renderId = /render ([0-9a-f]{16}) started/.exec(direct.stderr)![1];
  const progress = await cli(['cloudfn', 'progress', renderId, '--json']);
  assert.is(progress.status, 0, progress.stderr);
  const p = JSON.parse(progress.stdout);
  assert.equal([p.status, p.executionArn, p.percent, p.frames, p.output.key], ['done', null, 100, { rendered: 20, total: 20 }, 'direct/direct.mp4']);
  await until('the direct render event', () => (hooks.length > 0 ? true : undefined), 30_000);
  const event = JSON.parse(hooks[0].body.toString('utf8'));
  assert.equal([event.type, event.renderId, event.executionArn, event.output.frames], ['render.succeeded', renderId, null, 20]);
  assert.ok(verifyWebhookSignature({ body: hooks[0].body, signature: hooks[0].signature, secret: SECRET }));

  const twoChunks = await cli(['cloudfn', 'render', moving, '--output-key', 'direct/two.mp4', '--direct', '--chunk-size', '10']);
  assert.is(twoChunks.status, 2);
  assert.match(twoChunks.stderr, /a direct render runs as one chunk, and this one plans to 2 \(20 frames\): raise the chunk size \(cloudfn render --chunk-size, SDK config.chunkSize\) to at least 20/);
});

run('cloudfn cancel <renderId> of a direct render: its function stops at the marker, writes "aborted" and leaves no chunk objects and no output', async () => {
  const started = await cli(['cloudfn', 'render', slow, '--output-key', 'direct/cancelled.mp4', '--direct']);
  assert.is(started.status, 0, started.stderr);
  const renderId = /Render ID: ([0-9a-f]{16})/.exec(started.stdout)![1];
  await until('the direct render rendering', async () => ((await keysUnder(aws, bucket, `renders/${renderId}/progress/`)).length > 0 ? true : undefined));
  const cancel = await cli(['cloudfn', 'cancel', renderId, '--json']);
  assert.is(cancel.status, 0, cancel.stderr);
  const [result] = JSON.parse(cancel.stdout) as CancelResult[];
  assert.equal([result.renderId, result.executionArn, result.wasRunning], [renderId, null, true]);
  await until('its outcome', async () => ((await keysUnder(aws, bucket, `renders/${renderId}/result.json`)).length > 0 ? true : undefined), 60_000);
  const kept = ['cancel.json', 'direct.json', 'result.json'].map((k) => `renders/${renderId}/${k}`);
  assert.equal(await keysUnder(aws, bucket, `renders/${renderId}/`), kept);
  assert.equal(await keysUnder(aws, bucket, 'direct/cancelled'), []);
  const progress = JSON.parse((await cli(['cloudfn', 'progress', renderId, '--json'])).stdout);
  assert.equal([progress.status, progress.error], ['aborted', `render ${renderId} was cancelled`]);
});

run.run();
