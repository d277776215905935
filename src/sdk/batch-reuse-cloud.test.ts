// tier: cloud
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AwsEmulator, startAwsEmulator } from '../test-support/aws-emulator';
import { CliRun, tempDir, vidkit, vidkitAsync } from '../test-support/cli';
import { TestAws, downloadObject, keysUnder, registerZipHandler, testAwsClients, deployTestStack } from '../test-support/cloud-stack';
import { ffprobe, frameHashes } from '../test-support/media';
import type { BatchManifestRow } from './batch-dispatch';
import type { RenderProgress } from './progress';

// Segment reuse in the cloud batch (docs/explanation/batch-reuse.md, In the cloud) on MiniStack:
// five rows of one template (320x180, 10 fps, 2 s = 20 frames, a box moving by a CSS animation,
// a tone) whose viewer's name shows only from 0.5 s to 1 s (frames 5 to 9). The render function
// logs every invocation it takes (src/test-support/lambda-runtime-client.js): the frames no name
// reaches are drawn in one invocation for the whole batch, and every row's output decodes to the
// frames and sound of the same row rendered alone. ProRes (.mov) is intra-only, so equal pictures
// encode to equal frames however a video is cut.
const out = tempDir('vidkit-batch-reuse-cloud-test-');
const project = path.join(out, 'template');
const scripted = path.join(out, 'scripted');
const invocationLog = path.join(out, 'invocations.jsonl');
/** While it exists, the reference row's chunk invocations answer as many ms late as it says (test-support/lambda-runtime-client.js). */
const holdReference = path.join(out, 'hold-reference');
const FRAMES = 20;
const NAMES = ['Ann', 'Bob', 'Cy', 'Dee', 'Eve'];
let emu: AwsEmulator;
let aws: TestAws;
let bucket = '';
let machine = '';

interface Invocation {
  mode: string;
  renderId: string;
  outputKey: string;
  reference: boolean;
  chunk?: { index: number; startFrame: number; endFrame: number };
}

const env = (): NodeJS.ProcessEnv => ({ ...emu.env, VIDKIT_BUCKET: bucket, VIDKIT_SFN_ARN: machine, VIDKIT_POLL_MS: '300' });
const cli = (args: string[]): Promise<CliRun> => vidkitAsync(args, { env: env() });

function template(dir: string, extra = ''): void {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=2', '-ar', '48000', path.join(dir, 'tone.wav')]);
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html>
<html data-composition-variables='[{"id":"name","type":"string","label":"Name","default":"Ada"}]'>
<head><style>html,body{margin:0}
#root{width:320px;height:180px;position:relative;overflow:hidden;background:#123;font:bold 20px sans-serif;color:#fff}
#box{position:absolute;left:0;top:120px;width:30px;height:30px;background:#f80;animation:move 2s linear infinite}
@keyframes move{from{left:0}to{left:290px}}</style></head>
<body>
<div id="root" data-composition-id="reuse" data-width="320" data-height="180" data-duration="2" data-fps="10">
  <div id="box"></div>
  <audio data-start="0" data-duration="2" src="tone.wav"></audio>
  <div id="intro" data-start="0.5" data-duration="0.5" style="position:absolute;left:20px;top:20px">Hi <span data-var-text="name"></span></div>
</div>
${extra}
</body></html>
`,
  );
}

function writeBatch(name: string, names: string[], prefix: string): string {
  const file = path.join(out, name);
  fs.writeFileSync(file, names.map((n) => JSON.stringify({ outputKey: `${prefix}/${n}.mov`, variables: { name: n } })).join('\n') + '\n');
  return file;
}

function invocations(): Invocation[] {
  if (!fs.existsSync(invocationLog)) return [];
  return fs.readFileSync(invocationLog, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Invocation);
}

/** Chunk invocations of the renders of `prefix`, by frame range, a reference's marked `*`. */
function chunksByRange(prefix: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const i of invocations().filter((i) => i.mode === 'chunk' && i.outputKey.startsWith(`${prefix}/`))) {
    const range = `${i.chunk!.startFrame}-${i.chunk!.endFrame}${i.reference ? '*' : ''}`;
    counts[range] = (counts[range] ?? 0) + 1;
  }
  return counts;
}

/** The frame hashes and sound hash of a video. */
function decoded(file: string): { frames: string[]; sound: string } {
  const sound = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:a', '-f', 'md5', '-'], { encoding: 'utf8' }).trim();
  return { frames: frameHashes(file), sound };
}

const lone = new Map<string, { frames: string[]; sound: string }>();

/** The same row rendered alone with `vidkit render`, once per name. */
function aloneOf(dir: string, name: string): { frames: string[]; sound: string } {
  const id = `${path.basename(dir)}-${name}`;
  if (!lone.has(id)) {
    const file = path.join(out, `lone-${id}.mov`);
    const run = vidkit(['render', dir, '--variables', JSON.stringify({ name }), '--format', 'mov', '--output', file]);
    assert.is(run.status, 0, run.stderr);
    lone.set(id, decoded(file));
  }
  return lone.get(id)!;
}

/** Downloads every row's output and checks it plays whole and equals the row rendered alone. */
async function assertRowsAreLone(dir: string, prefix: string, names: string[]): Promise<void> {
  for (const name of names) {
    const file = path.join(out, `${prefix}-${name}.mov`);
    await downloadObject(aws, bucket, `${prefix}/${name}.mov`, file);
    const video = ffprobe(file).streams.find((s) => s.codec_type === 'video')!;
    assert.is(video.nb_read_frames, String(FRAMES), `${prefix}/${name}.mov: every frame decodes`);
    const got = decoded(file);
    const alone = aloneOf(dir, name);
    assert.is(got.frames.length, FRAMES);
    assert.equal(got.frames, alone.frames, `${prefix}/${name}.mov: its frames are those of its lone render`);
    assert.is(got.sound, alone.sound, `${prefix}/${name}.mov: its sound is that of its lone render`);
  }
}

/** The shared soundtrack object's ETag and upload time, to tell whether a row uploaded it again. */
let soundtrackStamp = '';
async function soundtrackUpload(): Promise<string> {
  const keys = (await keysUnder(aws, bucket, 'reuse/')).filter((k) => k.endsWith('.sound'));
  assert.is(keys.length, 1, 'one soundtrack');
  const head = await aws.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: keys[0] }));
  return `${head.ETag} ${head.LastModified?.toISOString()}`;
}

async function progressOf(renderId: string): Promise<RenderProgress> {
  const run = await cli(['cloudfn', 'progress', renderId, '--json']);
  assert.is(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as RenderProgress;
}

async function renderBatch(dir: string, file: string, extra: string[] = []): Promise<BatchManifestRow[]> {
  const run = await cli(['cloudfn', 'render-batch', dir, '--batch', file, '--format', 'mov', '--wait', '--json', ...extra]);
  assert.is(run.status, 0, run.stderr + emu.log().slice(-3000));
  const rows = JSON.parse(run.stdout) as BatchManifestRow[];
  assert.equal(rows.map((r) => r.status), Array(rows.length).fill('started'));
  return rows;
}

const reuse = suite('a cloud batch renders the frames its variables cannot reach once, on the AWS emulator (MiniStack)');

reuse.before(async () => {
  template(project);
  // A script that reads the name: where it draws it cannot be bounded, so every row renders whole.
  template(scripted, `<script>window.__vidkit.getVariables().name;</script>`);
  emu = await startAwsEmulator();
  aws = testAwsClients(emu);
  ({ bucket, machine } = deployTestStack(emu));
  await registerZipHandler(aws, { bucket, workDir: out, env: { VIDKIT_TEST_INVOCATION_LOG: invocationLog, VIDKIT_TEST_HOLD_REFERENCE: holdReference } });
});

reuse.after(async () => {
  await emu?.stop();
  fs.rmSync(out, { recursive: true, force: true });
});

reuse('5 rows: the frames no name reaches are drawn in one invocation, not five; every output plays whole and equals its lone render', async () => {
  const rows = await renderBatch(project, writeBatch('five.jsonl', NAMES, 'five'));
  // The first row draws the whole video once, as three segments cut where the name shows (frames
  // 5-9); each other row draws only those 5 frames, and no invocation draws frames 0-4 or 10-19 again.
  assert.equal(chunksByRange('five'), { '0-20*': 1, '5-10': 4 });
  assert.is(invocations().filter((i) => i.mode === 'chunk' && i.outputKey.startsWith('five/')).reduce((n, i) => n + i.chunk!.endFrame - i.chunk!.startFrame, 0), FRAMES + 4 * 5, 'frames drawn');
  await assertRowsAreLone(project, 'five', NAMES);

  const shared = (await keysUnder(aws, bucket, 'reuse/')).map((k) => k.replace(/^reuse\/[0-9a-f]{32}\//, '').replace(/^soundtrack-[0-9a-f]{24}\.sound$/, 'soundtrack'));
  assert.equal(shared, ['frames-0000000-0000005.mov', 'frames-0000005-0000010.mov', 'frames-0000010-0000020.mov', 'shared.json', 'soundtrack'], 'the shared segments and the one soundtrack under one content key');
  soundtrackStamp = await soundtrackUpload();
  for (const r of rows) assert.equal(await keysUnder(aws, bucket, `renders/${r.renderId}/segments/`), [], 'a row\'s own segments are removed once it is joined');

  const first = await progressOf(rows[0].renderId!);
  assert.equal([first.status, first.percent, first.frames], ['done', 100, { rendered: FRAMES, total: FRAMES }]);
  assert.equal(first.reuse, { segments: 3, reusedSegments: 3, framesRendered: 0, framesReused: 20 });
  const second = await progressOf(rows[1].renderId!);
  assert.equal([second.status, second.chunks, second.frames], ['done', { done: 1, total: 1 }, { rendered: FRAMES, total: FRAMES }]);
  assert.equal(second.reuse, { segments: 3, reusedSegments: 2, framesRendered: 5, framesReused: 15 });
});

reuse('run again (--force): the shared segments are in the bucket, so only the named frames are drawn, 5 frames a row', async () => {
  fs.writeFileSync(invocationLog, '');
  const rows = await renderBatch(project, path.join(out, 'five.jsonl'), ['--force']);
  // The first row's variables are the reference's: it draws nothing and is joined from the shared segments alone.
  assert.equal(chunksByRange('five'), { '5-10': 4 });
  assert.equal((await progressOf(rows[0].renderId!)).reuse, { segments: 3, reusedSegments: 3, framesRendered: 0, framesReused: 20 });
  await assertRowsAreLone(project, 'five', NAMES);
  assert.equal(await soundtrackUpload(), soundtrackStamp, 'no row mixed the sound again: the soundtrack object is the first run\'s');
});

reuse('a page script that reads the name: every row renders whole, as without reuse, and its progress says why', async () => {
  fs.writeFileSync(invocationLog, '');
  // The reference's end is held 5 s (16 gate polls), so rows that waited for it would start after it
  // however fast this machine draws its 20 frames.
  fs.writeFileSync(holdReference, '5000');
  const rows = await renderBatch(scripted, writeBatch('scripted.jsonl', NAMES.slice(0, 3), 'scripted')).finally(() => fs.rmSync(holdReference, { force: true }));
  assert.equal(chunksByRange('scripted'), { '0-20*': 1, '0-20': 2 });
  await assertRowsAreLone(scripted, 'scripted', NAMES.slice(0, 3));
  // The first row's page read the name as it loaded: it said so at once, and the other rows did not wait for its video.
  const whole = { segments: 1, reusedSegments: 0, framesRendered: 20, framesReused: 0, whole: 'a page script read the variable "name"' };
  for (const r of rows) assert.equal((await progressOf(r.renderId!)).reuse, whole, r.outputKey!);
  const firstEnded = (await aws.sfn.send(new DescribeExecutionCommand({ executionArn: rows[0].executionArn! }))).stopDate!;
  const othersStarted = await Promise.all(rows.slice(1).map(async (r) => (await aws.sfn.send(new DescribeExecutionCommand({ executionArn: r.executionArn! }))).startDate!));
  assert.ok(othersStarted.every((d) => d < firstEnded), 'the other rows started while the first still rendered');
});

reuse.run();
