// tier: cloud
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DescribeStackResourcesCommand, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetFunctionCommand, PutFunctionConcurrencyCommand } from '@aws-sdk/client-lambda';
import { HeadBucketCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { DescribeStateMachineCommand, ListExecutionsCommand } from '@aws-sdk/client-sfn';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AwsEmulator, startAwsEmulator } from '../test-support/aws-emulator';
import { CliRun, FIXTURES, REPO_ROOT, errorLines, fixtureCopy, frameClock, tempDir, vidkit, vidkitAsync } from '../test-support/cli';
import { LATE_PAGE, writeLateProject } from '../test-support/late-drawing';
import { RENDER_FUNCTION, TEST_IMAGE, TestAws, downloadObject, keysUnder as keysUnderPrefix, registerZipHandler, testAwsClients } from '../test-support/cloud-stack';
import {
  SQUARE,
  TONE,
  decodeGray,
  decodePcm,
  decodeRgba,
  ffprobe,
  frameHashes,
  hfSubScenesProblems,
  hfTimelinesProblems,
  measureTone,
  psnrPerFrame,
  readBits,
  toneProblems,
  transparentSquareProblems,
  videoClockProblems,
  writeToneProject,
  writeVideoClockProject,
} from '../test-support/media';
import { stackTemplate } from './deploy';

// The whole cloud path against MiniStack on loopback: CloudFormation deploy, S3 sites, the Step
// Functions render (plan, Map over chunks, assemble) invoking the real handler (src/lambda/handler.ts)
// with real Chromium and the native encoder, and progress from the execution and the bucket.
const out = tempDir('vidkit-cloud-test-');

let emu: AwsEmulator;
let bucket = '';
let stateMachineArn = '';
/** The site of the 1 s frame clock (frameClock), as the sites test uploads it. */
let frameClockSite = '';
let aws: TestAws;

const cli = (args: string[]): CliRun => vidkit(args, { env: renderEnv() });
const cliAsync = (args: string[]): Promise<CliRun> => vidkitAsync(args, { env: renderEnv() });
function renderEnv(): NodeJS.ProcessEnv {
  return { ...emu.env, VIDKIT_BUCKET: bucket, VIDKIT_SFN_ARN: stateMachineArn, VIDKIT_POLL_MS: '300' };
}

function stdoutField(run: CliRun, name: string): string {
  const line = run.stdout.split('\n').find((l) => l.startsWith(`${name}: `));
  assert.ok(line, `stdout has "${name}: ": ${run.stdout}`);
  return line!.slice(name.length + 2);
}

/** The environment the zip function was last registered with: registering again starts its environments cold. */
let zipEnv: string | undefined;
async function useZipFunction(env: Record<string, string>): Promise<void> {
  if (zipEnv === JSON.stringify(env)) return;
  await registerZipHandler(aws, { bucket, workDir: out, env });
  zipEnv = JSON.stringify(env);
}
const download = (key: string, file: string) => downloadObject(aws, bucket, key, file);
const keysUnder = (prefix: string) => keysUnderPrefix(aws, bucket, prefix);

const cloud = suite('cloudfn on the AWS emulator (MiniStack)');

cloud.before(async () => {
  emu = await startAwsEmulator();
  aws = testAwsClients(emu);
});

cloud.after(async () => {
  await emu?.stop();
  fs.rmSync(out, { recursive: true, force: true });
});

cloud('deploy creates the stack and prints its outputs; again unchanged; --concurrency updates; --memory above 10240 is refused', async () => {
  const first = vidkit(['cloudfn', 'deploy', '--image-uri', TEST_IMAGE], { env: emu.env });
  assert.is(first.status, 0, first.stderr + emu.log());
  assert.match(first.stderr, /stack vidkit-render created/);
  bucket = stdoutField(first, 'RenderBucketName');
  stateMachineArn = stdoutField(first, 'RenderStateMachineArn');
  assert.match(stateMachineArn, /^arn:aws:states:us-east-1:\d{12}:stateMachine:/);

  const resources = await aws.cfn.send(new DescribeStackResourcesCommand({ StackName: 'vidkit-render' }));
  assert.equal(
    resources.StackResources!.map((r) => `${r.LogicalResourceId} ${r.ResourceType} ${r.ResourceStatus}`).sort(),
    [
      'RenderBucket AWS::S3::Bucket CREATE_COMPLETE',
      'RenderFunction AWS::Lambda::Function CREATE_COMPLETE',
      'RenderFunctionLogGroup AWS::Logs::LogGroup CREATE_COMPLETE',
      'RenderFunctionRole AWS::IAM::Role CREATE_COMPLETE',
      'RenderStateMachine AWS::StepFunctions::StateMachine CREATE_COMPLETE',
      'StateMachineLogGroup AWS::Logs::LogGroup CREATE_COMPLETE',
      'StateMachineRole AWS::IAM::Role CREATE_COMPLETE',
    ],
  );
  await aws.s3.send(new HeadBucketCommand({ Bucket: bucket }));
  const fn = (await aws.lambda.send(new GetFunctionCommand({ FunctionName: RENDER_FUNCTION }))).Configuration!;
  assert.equal([fn.PackageType, fn.MemorySize, fn.Timeout], ['Image', 10240, 900]);
  const machine = await aws.sfn.send(new DescribeStateMachineCommand({ stateMachineArn }));
  assert.is(machine.type, 'STANDARD');
  const definition = JSON.parse(machine.definition!);
  assert.equal(Object.keys(definition.States), ['Plan', 'RenderChunks', 'Assemble', 'NotifyOnSuccess', 'SendSuccessWebhook', 'Succeeded', 'NotifyOnFailure', 'SendFailureWebhook', 'Failed']);
  assert.is(definition.States.RenderChunks.Type, 'Map');
  assert.is(definition.States.RenderChunks.MaxConcurrencyPath, '$.render.config.maxParallelChunks');
  assert.is(definition.States.Plan.Parameters.FunctionName, fn.FunctionArn);
  const chunkRetry = definition.States.RenderChunks.ItemProcessor.States.RenderChunk.Retry as { ErrorEquals: string[]; MaxAttempts: number }[];
  assert.ok(chunkRetry.some((r) => r.ErrorEquals.includes('TransientChunkError')));
  assert.equal(chunkRetry.find((r) => r.ErrorEquals.includes('Lambda.TooManyRequestsException'))?.MaxAttempts, 8, 'a throttled invocation waits longer');

  const again = vidkit(['cloudfn', 'deploy'], { env: emu.env });
  assert.is(again.status, 0, again.stderr);
  assert.match(again.stderr, /stack vidkit-render is up to date: nothing changed/);
  assert.is(again.stdout, first.stdout);

  const reserved = vidkit(['cloudfn', 'deploy', '--concurrency=8'], { env: emu.env });
  assert.is(reserved.status, 0, reserved.stderr);
  assert.match(reserved.stderr, /stack vidkit-render updated/);
  // MiniStack's CloudFormation ignores ReservedConcurrentExecutions, so the update is checked on the
  // stack's parameters; the reserved-concurrency warning below is checked against the Lambda API.
  const stack = (await aws.cfn.send(new DescribeStacksCommand({ StackName: 'vidkit-render' }))).Stacks![0];
  assert.is(stack.StackStatus, 'UPDATE_COMPLETE');
  assert.is(stack.Parameters!.find((p) => p.ParameterKey === 'ReservedConcurrency')!.ParameterValue, '8');

  const tooBig = vidkit(['cloudfn', 'deploy', '--memory', '10241'], { env: emu.env });
  assert.is(tooBig.status, 2, tooBig.stderr);
  assert.equal(errorLines(tooBig.stderr), ['vidkit: error: --memory must be a whole number of MB from 2048 to 10240 (the function maximum, and the default), got 10241']);
});

cloud('asl-validator accepts the state machine and cfn-lint the template', () => {
  const template = stackTemplate();
  const validate = require('asl-validator') as (d: unknown) => { isValid: boolean; errors: unknown[] };
  const result = validate(template.Resources.RenderStateMachine.Properties.Definition);
  assert.equal(result.errors, []);
  assert.ok(result.isValid);
  const file = path.join(out, 'template.json');
  fs.writeFileSync(file, JSON.stringify(template, null, 2));
  const lint = execFileSync(path.join(REPO_ROOT, '.venv', 'bin', 'cfn-lint'), [file], { encoding: 'utf8' });
  assert.is(lint, '');
});

cloud('sites create: a content-addressed id; the same bytes give the same id and upload nothing', async () => {
  await useZipFunction({});
  const project = path.join(out, 'site');
  fs.cpSync(frameClock(1, out), project, { recursive: true });
  const first = cli(['cloudfn', 'sites', 'create', project]);
  assert.is(first.status, 0, first.stderr);
  const siteId = stdoutField(first, 'Site ID');
  assert.match(siteId, /^[0-9a-f]{20}$/);
  frameClockSite = siteId;
  assert.match(first.stderr, /uploaded 2 files/);
  const stamp = async () =>
    Promise.all((await keysUnder(`sites/${siteId}/`)).map(async (Key) => `${Key} ${(await aws.s3.send(new HeadObjectCommand({ Bucket: bucket, Key }))).LastModified!.toISOString()}`));
  const before = await stamp();
  assert.is(before.length, 2);
  await new Promise((r) => setTimeout(r, 1100));

  const again = cli(['cloudfn', 'sites', 'create', project]);
  assert.is(again.status, 0, again.stderr);
  assert.is(stdoutField(again, 'Site ID'), siteId);
  assert.match(again.stderr, /nothing uploaded/);
  assert.equal(await stamp(), before, 'no object was written again');

  fs.appendFileSync(path.join(project, 'index.html'), '\n');
  const changed = cli(['cloudfn', 'sites', 'create', project]);
  assert.is(changed.status, 0, changed.stderr);
  assert.is.not(stdoutField(changed, 'Site ID'), siteId);
});

cloud('a 10 s render, --max-parallel-chunks 4 --wait: chunks render in the function, the output matches a local 1-worker render; progress while running and when done', async () => {
  // At its native 640x360: scaled down, the clock's hard block edges fall between pixels and two
  // x264 encodes cut at different frames differ by about 43 dB even locally (1 against 4 workers).
  // 300 frames: long enough for 4 chunks, their seams, and progress read while it renders.
  const CLOCK_10S = frameClock(10, out);
  const local = path.join(out, 'local.mp4');
  const localRun = vidkit(['render', CLOCK_10S, '--workers', '1', '--output', local]);
  assert.is(localRun.status, 0, localRun.stderr);

  const key = 'renders/clock-10s.mp4';
  const running = cliAsync(['cloudfn', 'render', CLOCK_10S, '--max-parallel-chunks', '4', '--chunk-size', '75', '--output-key', key, '--wait']);
  // While it runs: its execution, by render id (the execution's name) and by ARN.
  let execution: { name?: string; executionArn?: string } | undefined;
  for (let i = 0; i < 200 && !execution; i++) {
    const listed = await aws.sfn.send(new ListExecutionsCommand({ stateMachineArn, statusFilter: 'RUNNING' }));
    execution = listed.executions?.[0];
    if (!execution) await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(execution, 'the render started an execution');
  const midText = await cliAsync(['cloudfn', 'progress', execution!.name!]);
  const midJson = await cliAsync(['cloudfn', 'progress', execution!.executionArn!, '--json']);
  const run = await running;
  assert.is(run.status, 0, run.stderr + emu.log().slice(-3000));

  assert.is(midText.status, 0, midText.stderr);
  assert.match(midText.stdout, /^Status: (planning|rendering|assembling)$/m);
  assert.is(stdoutField(midText, 'Render ID'), execution!.name);
  const mid = JSON.parse(midJson.stdout);
  assert.ok(['planning', 'rendering', 'assembling'].includes(mid.status), mid.status);
  assert.ok(mid.percent < 100 && mid.output === undefined, midJson.stdout);
  assert.is(mid.executionArn, execution!.executionArn);

  assert.match(run.stderr, /300 frames in 4 chunks/);
  assert.match(run.stderr, /vidkit: rendering: \d\/4 chunks/);
  assert.is(run.stdout.trim(), `s3://${bucket}/${key}`);

  const cloudFile = path.join(out, 'cloud.mp4');
  await download(key, cloudFile);
  const probe = ffprobe(cloudFile).streams[0];
  assert.equal([probe.codec_name, probe.width, probe.height, probe.nb_read_frames], ['h264', 640, 360, '300']);
  const wrong: string[] = [];
  decodeGray(cloudFile, 640, 360).forEach((f, i) => {
    const got = [readBits(f, 0), readBits(f, 1), readBits(f, 2)];
    if (got.some((v) => v !== i)) wrong.push(`frame ${i}: ${got}`);
  });
  assert.equal(wrong, [], 'frame i shows time i across the seams at 75, 150, 225');
  const psnr = psnrPerFrame(cloudFile, local);
  assert.is(psnr.length, 300);
  const low = psnr.map((db, i) => [i, db]).filter(([, db]) => db < 45);
  assert.equal(low, [], 'PSNR against the local render is at least 45 dB on every frame');
  assert.equal(await keysUnder(`renders/${execution!.name}/segments/`), [], 'segments are removed once joined');

  const doneText = cli(['cloudfn', 'progress', execution!.name!]);
  assert.is(doneText.status, 0, doneText.stderr);
  assert.equal(
    ['Status', 'Chunks', 'Frames', 'Progress', 'Output'].map((f) => stdoutField(doneText, f)),
    ['done', '4/4 done', '300/300 rendered', '100%', `s3://${bucket}/${key}`],
  );
  const doneJson = cli(['cloudfn', 'progress', execution!.executionArn!, '--json']);
  const done = JSON.parse(doneJson.stdout);
  assert.equal([done.status, done.chunks, done.frames, done.percent, done.output.key, done.output.frames], ['done', { done: 4, total: 4 }, { rendered: 300, total: 300 }, 100, key, 300]);
});

cloud('a chunk that fails once is retried and the render succeeds (and --site-id renders an uploaded site)', async () => {
  await useZipFunction({ VIDKIT_FAULT_CHUNK: '1:once' });
  const key = 'renders/retried.mp4';
  const args = ['--site-id', frameClockSite, '--width', '320', '--max-parallel-chunks', '2', '--chunk-size', '15', '--output-key', key, '--wait'];
  const run = cli(['cloudfn', 'render', frameClock(1, out), ...args]);
  assert.is(run.status, 0, run.stderr + emu.log().slice(-3000));
  assert.not.match(run.stderr, /site [0-9a-f]+: (uploaded|already uploaded)/, 'no site upload with --site-id');
  const renderId = /render ([0-9a-f]{16}) started/.exec(run.stderr)![1];
  assert.equal(await keysUnder(`renders/${renderId}/faults/`), [`renders/${renderId}/faults/chunk-0001`], 'the injected failure happened');
  const file = path.join(out, 'retried.mp4');
  await download(key, file);
  decodeGray(file, 320, 180).forEach((f, i) => assert.is(readBits(f, 0, 0.5), i, `frame ${i}`));
  assert.is(ffprobe(file).streams[0].nb_read_frames, '30');
});

cloud('a chunk that always fails ends the execution: the error shows in progress and no output object exists', async () => {
  await useZipFunction({ VIDKIT_FAULT_CHUNK: '0:always' });
  const key = 'renders/failed.mp4';
  const run = cli(['cloudfn', 'render', frameClock(1, out), '--width', '320', '--max-parallel-chunks', '2', '--chunk-size', '15', '--output-key', key, '--wait']);
  assert.is(run.status, 1, run.stderr);
  const renderId = /render ([0-9a-f]{16}) started/.exec(run.stderr)![1];
  const errors = errorLines(run.stderr);
  assert.is(errors.length, 1, run.stderr);
  assert.match(errors[0], new RegExp(`^vidkit: error: render ${renderId} failed: TransientChunkError: injected fault: chunk 0 always fails`));

  const progress = cli(['cloudfn', 'progress', renderId, '--json']);
  assert.is(progress.status, 0, progress.stderr);
  const p = JSON.parse(progress.stdout);
  assert.is(p.status, 'failed');
  assert.match(p.error, /^TransientChunkError: injected fault: chunk 0 always fails/);
  assert.is(p.output, undefined);
  assert.equal(await keysUnder('renders/failed'), [], 'nothing under the output key');

  const unknown = cli(['cloudfn', 'progress', '0123456789abcdef']);
  assert.is(unknown.status, 2, unknown.stderr);
  assert.equal(errorLines(unknown.stderr), ['vidkit: error: no render 0123456789abcdef: the execution does not exist']);
});

cloud('a page that plays a file that cannot be decoded fails its chunk as BadInput, naming the file in the site', async () => {
  await useZipFunction({});
  const project = path.join(out, 'bad-media');
  fs.mkdirSync(project, { recursive: true });
  fs.writeFileSync(
    path.join(project, 'index.html'),
    '<!doctype html><html><body style="margin:0"><div data-composition-id="bad" data-width="160" data-height="90" data-duration="0.5"><video src="clip.mp4" muted></video></div></body></html>',
  );
  fs.writeFileSync(path.join(project, 'clip.mp4'), 'this is a text file, not a video\n');
  const run = cli(['cloudfn', 'render', project, '--output-key', 'renders/bad-media.mp4', '--wait']);
  assert.is(run.status, 1, run.stderr);
  const renderId = /render ([0-9a-f]{16}) started/.exec(run.stderr)![1];
  assert.equal(errorLines(run.stderr), [
    `vidkit: error: render ${renderId} failed: BadInput: media clip.mp4 cannot be played: cannot open it as a media file: Invalid data found when processing input`,
  ]);
});

cloud('--format webm: 2 chunks join by stream copy into VP9 whose decoded alpha is 0 where the page is transparent', async () => {
  await useZipFunction({});
  const key = 'renders/square.webm';
  const run = cli(['cloudfn', 'render', path.join(FIXTURES, 'transparent-square'), '--format', 'webm', '--max-parallel-chunks', '2', '--chunk-size', '8', '--output-key', key, '--wait']);
  assert.is(run.status, 0, run.stderr + emu.log().slice(-3000));
  assert.match(run.stderr, /15 frames in 2 chunks/);
  const file = path.join(out, 'square.webm');
  await download(key, file);
  const v = ffprobe(file).streams[0];
  assert.equal([v.codec_name, v.width, v.height, v.nb_read_frames], ['vp9', SQUARE.width, SQUARE.height, '15']);
  const frames = decodeRgba(file, SQUARE.width, SQUARE.height, 'libvpx-vp9');
  assert.is(frames.length, 15);
  assert.equal([0, 7, 8, 14].flatMap((i) => transparentSquareProblems(frames[i], i)), [], 'frames on both sides of the seam at 8');
  const head = await aws.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
  assert.is(head.ContentType, 'video/webm');
});

cloud('a 1 kHz tone across 3 chunks: the cloud output has the soundtrack, with no gap or step at the seams and the right duration', async () => {
  const project = path.join(out, 'tone');
  writeToneProject(project);
  const key = 'renders/tone.mp4';
  const run = cli(['cloudfn', 'render', project, '--max-parallel-chunks', '3', '--chunk-size', '15', '--output-key', key, '--wait']);
  assert.is(run.status, 0, run.stderr + emu.log().slice(-3000));
  assert.match(run.stderr, /45 frames in 3 chunks/);
  const renderId = /render ([0-9a-f]{16}) started/.exec(run.stderr)![1];
  const file = path.join(out, 'tone.mp4');
  await download(key, file);
  const streams = ffprobe(file).streams as unknown as Record<string, string>[];
  const a = streams.find((s) => s.codec_type === 'audio');
  assert.ok(a, 'the output has an audio stream');
  assert.equal([a!.codec_name, a!.sample_rate], ['aac', '48000']);
  assert.ok(Math.abs(Number(a!.duration) - TONE.seconds) < 0.001, `audio stream duration ${a!.duration}`);
  assert.equal(streams.find((s) => s.codec_type === 'video')!.nb_read_frames, '45');
  assert.equal(toneProblems(measureTone(decodePcm(file))), []);
  assert.equal(await keysUnder(`renders/${renderId}/`), [`renders/${renderId}/plan.json`, ...[0, 1, 2].map((i) => `renders/${renderId}/progress/chunk-000${i}.json`)], 'segments and media timeline removed once joined');
});

cloud('a HyperFrames composition without data-duration in 3 chunks: the plan step measures the page; clips and nested timelines exact across the seams', async () => {
  await useZipFunction({});
  const project = fixtureCopy('hf-timelines', out, { gsap: true });
  const key = 'renders/hf-timelines.mp4';
  const run = cli(['cloudfn', 'render', project, '--max-parallel-chunks', '3', '--chunk-size', '20', '--output-key', key, '--wait']);
  assert.is(run.status, 0, run.stderr + emu.log().slice(-3000));
  assert.match(run.stderr, /started: length measured on the page, up to 3 chunks/);
  const file = path.join(out, 'hf-timelines.mp4');
  await download(key, file);
  const frames = decodeGray(file, 320, 180);
  assert.is(frames.length, 60, 'the root timeline gives 2 s');
  assert.equal(frames.flatMap((f, i) => hfTimelinesProblems(f, i)), []);
});

cloud('a multi-file HyperFrames project (sub-compositions from compositions/*.html) in 3 chunks: the site carries them, frames exact across the seams', async () => {
  await useZipFunction({});
  const project = fixtureCopy('hf-sub-scenes', out, { gsap: true });
  const key = 'renders/hf-sub-scenes.mp4';
  const run = cli(['cloudfn', 'render', project, '--max-parallel-chunks', '3', '--chunk-size', '10', '--output-key', key, '--wait']);
  assert.is(run.status, 0, run.stderr + emu.log().slice(-3000));
  const file = path.join(out, 'hf-sub-scenes.mp4');
  await download(key, file);
  const frames = decodeRgba(file, 320, 180);
  assert.is(frames.length, 30);
  assert.equal(frames.flatMap((f, i) => hfSubScenesProblems(f, i)), []);
});

cloud('a symlinked asset folder (shared -> ../shared): the site holds its files, not the link, and the cloud render draws them', async () => {
  await useZipFunction({});
  const mono = path.join(out, 'monorepo');
  fs.mkdirSync(path.join(mono, 'shared'), { recursive: true });
  fs.mkdirSync(path.join(mono, 'app'));
  fs.writeFileSync(path.join(mono, 'shared', 'box.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100" fill="#00ff00"/></svg>');
  fs.symlinkSync('../shared', path.join(mono, 'app', 'shared'));
  fs.writeFileSync(
    path.join(mono, 'app', 'index.html'),
    '<html><body style="margin:0;background:#000"><div data-composition-id="mono" data-width="320" data-height="180" data-duration="0.2">' +
      '<img src="shared/box.svg" style="position:absolute;left:10px;top:10px"></div></body></html>',
  );
  const created = cli(['cloudfn', 'sites', 'create', path.join(mono, 'app')]);
  assert.is(created.status, 0, created.stderr);
  const siteId = stdoutField(created, 'Site ID');
  assert.ok((await keysUnder(`sites/${siteId}/`)).some((k) => k.endsWith('/shared/box.svg')), 'the linked file is in the site');
  const key = 'renders/monorepo.mp4';
  const run = cli(['cloudfn', 'render', path.join(mono, 'app'), '--site-id', siteId, '--output-key', key, '--wait']);
  assert.is(run.status, 0, run.stderr + emu.log().slice(-3000));
  const file = path.join(out, 'monorepo.mp4');
  await download(key, file);
  const frame = decodeRgba(file, 320, 180)[0];
  const i = (50 * 320 + 50) * 4;
  assert.ok(frame[i] < 60 && frame[i + 1] > 200 && frame[i + 2] < 60, `the linked image is drawn: ${[...frame.subarray(i, i + 3)]}`);
});

cloud('text that arrives late (web fonts shown at 0.5 s, text first written in a frame, a canvas, a video) in 3 chunks: every frame equal to a local render', async () => {
  await useZipFunction({});
  const project = writeLateProject(path.join(out, 'late'), 'by-script');
  const local = path.join(out, 'late-local.mov');
  const localRun = vidkit(['render', project, '--format', 'mov', '--workers', '1', '--output', local]);
  assert.is(localRun.status, 0, localRun.stderr);
  const key = 'renders/late.mov';
  const run = cli(['cloudfn', 'render', project, '--format', 'mov', '--max-parallel-chunks', '3', '--chunk-size', '8', '--output-key', key, '--wait']);
  assert.is(run.status, 0, run.stderr + emu.log().slice(-3000));
  assert.match(run.stderr, /24 frames in 3 chunks/);
  const file = path.join(out, 'late.mov');
  await download(key, file);
  // ProRes codes every frame on its own, from the captured PNG: equal pictures decode to equal
  // frames wherever the chunks were cut, so the comparison is exact, frame by frame.
  const want = frameHashes(local);
  assert.is(want.length, LATE_PAGE.frames);
  const got = frameHashes(file);
  assert.equal(got.flatMap((hash, i) => (hash === want[i] ? [] : [i])), [], 'frames that differ from the local render');
  assert.is(got.length, want.length);
});

cloud('videos in 3 chunks: every output frame shows the exact source frame (rates, start, trim, 24/25/29.97 fps sources, held last frame, loop)', async () => {
  await useZipFunction({});
  const project = path.join(out, 'video-clock');
  writeVideoClockProject(project);
  const key = 'renders/video-clock.mp4';
  const run = cli(['cloudfn', 'render', project, '--max-parallel-chunks', '3', '--chunk-size', '20', '--output-key', key, '--wait']);
  assert.is(run.status, 0, run.stderr + emu.log().slice(-3000));
  assert.match(run.stderr, /60 frames in 3 chunks/);
  const file = path.join(out, 'video-clock.mp4');
  await download(key, file);
  const frames = decodeGray(file, 320, 200);
  assert.is(frames.length, 60);
  assert.equal(frames.flatMap((f, i) => videoClockProblems(f, i)), []);
});

cloud('a reserved concurrency below the fan-out is warned about before starting, with the fix', async () => {
  await useZipFunction({});
  await aws.lambda.send(new PutFunctionConcurrencyCommand({ FunctionName: RENDER_FUNCTION, ReservedConcurrentExecutions: 1 }));
  const run = cli(['cloudfn', 'render', frameClock(1, out), '--width', '320', '--max-parallel-chunks', '2', '--chunk-size', '15', '--output-key', 'renders/throttled.mp4']);
  assert.is(run.status, 0, run.stderr);
  assert.match(
    run.stderr,
    /vidkit: warning: the render function's reserved concurrency is 1, below this render's fan-out of 2 chunks: a single render will be throttled; raise it with `vidkit cloudfn deploy --concurrency=2`/,
  );
  assert.ok(run.stderr.indexOf('warning: the render function') < run.stderr.indexOf('started'), 'warned before starting');
  assert.match(stdoutField(run, 'Render ID'), /^[0-9a-f]{16}$/);
  assert.match(stdoutField(run, 'Execution ARN'), /:execution:/);
});

cloud.run();
