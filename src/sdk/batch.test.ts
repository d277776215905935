// tier: cloud
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CreateStateMachineCommand, DescribeExecutionCommand, ListExecutionsCommand } from '@aws-sdk/client-sfn';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AwsEmulator, startAwsEmulator } from '../test-support/aws-emulator';
import { CliRun, errorLines, tempDir, vidkit, vidkitAsync } from '../test-support/cli';
import { TestAws, downloadObject, registerZipHandler, testAwsClients, deployTestStack } from '../test-support/cloud-stack';
import { startCountingProxy } from '../test-support/counting-proxy';
import { decodeRgbFrame, ffprobe, rgbAt } from '../test-support/media';
import type { BatchManifestRow } from './batch-dispatch';
import type { ManifestRecord } from './batch-manifest';

// `cloudfn render-batch` and `cloudfn progress --batch-manifest` against MiniStack on loopback: the
// real stack renders the started entries in the (zip-registered) render function with real Chromium.
// StartExecution calls are counted at a real HTTP proxy in front of the emulator, which can also
// answer with the ThrottlingException of a real account (the only thing the emulator cannot do).
const out = tempDir('vidkit-batch-test-');
const project = path.join(out, 'project');
let emu: AwsEmulator;
let aws: TestAws;
let bucket = '';
let renderMachine = '';
/** A one-Pass-state machine in the same emulator: starts executions without rendering anything. */
let passMachine = '';

const env = (endpoint = emu.endpoint): NodeJS.ProcessEnv => ({ ...emu.env, AWS_ENDPOINT_URL: endpoint, VIDKIT_BUCKET: bucket, VIDKIT_SFN_ARN: renderMachine });
const batchCli = (args: string[], endpoint?: string): Promise<CliRun> => vidkitAsync(['cloudfn', 'render-batch', project, ...args], { env: env(endpoint) });

function writeBatch(name: string, lines: string[]): string {
  const file = path.join(out, name);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const entry = (outputKey: string, variables: unknown) => JSON.stringify({ outputKey, variables });

/** The rows of a manifest file, in file order; a line that is not JSON (a torn row) is left out. */
function manifestRows(file: string): ManifestRecord[] {
  return fs.readFileSync(file, 'utf8').split('\n').flatMap((l) => {
    try {
      return [JSON.parse(l) as ManifestRecord];
    } catch {
      return [];
    }
  });
}

/** The run id a render-batch run printed with its manifest path. */
const runOf = (stderr: string): string => /manifest: .* \(run (\S+)\)/.exec(stderr)![1];

/** A manifest record as the row --json printed: without its run. */
const withoutRun = ({ run: _run, ...row }: ManifestRecord): BatchManifestRow => row;

/** The rows of the text manifest (after its summary line and header); an empty last cell is ''. */
function textRows(stdout: string): string[][] {
  const [, header, ...rows] = stdout.trimEnd().split('\n');
  const columns = header.split(/ {2,}/).length;
  return rows.map((l) => {
    const cells = l.split(/ {2,}/);
    return [...cells, ...Array(columns - cells.length).fill('')];
  });
}

async function executionCount(stateMachineArn: string): Promise<number> {
  return (await aws.sfn.send(new ListExecutionsCommand({ stateMachineArn }))).executions!.length;
}

async function waitForExecutions(arns: string[]): Promise<string[]> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const states = await Promise.all(arns.map(async (executionArn) => (await aws.sfn.send(new DescribeExecutionCommand({ executionArn }))).status!));
    if (!states.includes('RUNNING') || Date.now() > deadline) return states;
    await new Promise((r) => setTimeout(r, 500));
  }
}

const batch = suite('cloudfn render-batch on the AWS emulator (MiniStack)');

batch.before(async () => {
  fs.mkdirSync(project);
  fs.writeFileSync(
    path.join(project, 'index.html'),
    `<!doctype html><html data-composition-variables='[{"id":"fill","type":"color","default":"#0000ff"},{"id":"title","type":"string","default":"hi"}]'>
<body style="margin:0"><div id="root" data-composition-id="tiny" data-width="160" data-height="90" data-duration="0.5" data-fps="10" style="width:160px;height:90px"></div>
<script>document.getElementById('root').style.background = window.__vidkit.getVariables().fill;</script></body></html>`,
  );
  emu = await startAwsEmulator();
  aws = testAwsClients(emu);
  ({ bucket, machine: renderMachine } = deployTestStack(emu));
  await registerZipHandler(aws, { bucket, workDir: out });
  const created = await aws.sfn.send(
    new CreateStateMachineCommand({
      name: 'pass',
      roleArn: 'arn:aws:iam::000000000000:role/pass',
      definition: JSON.stringify({ StartAt: 'Done', States: { Done: { Type: 'Pass', End: true } } }),
    }),
  );
  passMachine = created.stateMachineArn!;
});

batch.after(async () => {
  await emu?.stop();
  fs.rmSync(out, { recursive: true, force: true });
});

const FIVE = [
  entry('batch/red.mp4', { fill: '#ff0000' }),
  entry('batch/green.mp4', { fill: '#00ff00', title: 'two' }),
  entry('batch/bad.mp4', 'not an object'),
  '',
  entry('batch/white.mp4', { fill: '#ffffff' }),
  entry('batch/black.mp4', { fill: '#000000' }),
];
const FILLS: Record<string, [number, number, number]> = {
  'batch/red.mp4': [255, 0, 0],
  'batch/green.mp4': [0, 255, 0],
  'batch/white.mp4': [255, 255, 255],
  'batch/black.mp4': [0, 0, 0],
};

batch('a 5-entry batch with one malformed line: 4 started and rendered, 1 failed-to-start naming line and reason; text, --json and the manifest file agree', async () => {
  const file = writeBatch('five.jsonl', FIVE);
  const run = await batchCli(['--batch', file]);
  assert.is(run.status, 1, `exit 1: an entry failed to start\n${run.stderr}`);
  const lines = run.stdout.trimEnd().split('\n');
  assert.is(lines[0], '4 started, 1 failed-to-start');
  assert.equal(lines[1].split(/ {2,}/), ['line', 'outputKey', 'status', 'executionArn', 'renderId', 'reason']);
  const rows = textRows(run.stdout);
  assert.equal(
    rows.map((r) => [r[0], r[1], r[2]]),
    [
      ['1', 'batch/red.mp4', 'started'],
      ['2', 'batch/green.mp4', 'started'],
      ['3', 'batch/bad.mp4', 'failed-to-start'],
      ['5', 'batch/white.mp4', 'started'],
      ['6', 'batch/black.mp4', 'started'],
    ],
  );
  assert.equal(rows[2].slice(3), ['-', '-', '"variables" must be an object, got a string']);
  const manifestFile = path.join(out, 'five.manifest.jsonl');
  assert.match(run.stderr, `manifest: ${manifestFile} (run `);
  const firstRun = runOf(run.stderr);
  const firstText = fs.readFileSync(manifestFile, 'utf8');
  const written = manifestRows(manifestFile).sort((a, b) => a.line - b.line);
  assert.equal(written.map((r) => r.run), Array(5).fill(firstRun), 'every row names its run');
  assert.equal(
    written.map((r) => [String(r.line), r.outputKey, r.status, r.executionArn ?? '-', r.renderId ?? '-', r.error ?? '']),
    rows,
    'the manifest file has the printed rows',
  );
  const started = written.filter((r) => r.status === 'started');
  for (const r of started) {
    assert.match(r.executionArn!, new RegExp(`^${renderMachine.replace(':stateMachine:', ':execution:')}:${r.renderId}$`));
  }

  const states = await waitForExecutions(started.map((r) => r.executionArn!));
  assert.equal(states, ['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED'], emu.log().slice(-3000));
  for (const r of started) {
    const mp4 = path.join(out, path.basename(r.outputKey!));
    await downloadObject(aws, bucket, r.outputKey!, mp4);
    const video = ffprobe(mp4).streams[0];
    assert.equal([video.codec_name, video.width, video.height, video.nb_read_frames], ['h264', 160, 90, '5'], r.outputKey!);
    const pixel = rgbAt(decodeRgbFrame(mp4, 4, 160, 90), 160, 80, 45);
    FILLS[r.outputKey!].forEach((want, c) => assert.ok(Math.abs(pixel[c] - want) <= 12, `${r.outputKey}: ${pixel} is its own fill ${FILLS[r.outputKey!]}`));
  }

  // The same file as --json, every line started again (--force) on the pass-through machine (nothing more to render).
  const siteId = /site ([0-9a-f]+)/.exec(run.stderr)![1];
  const asJson = await batchCli(['--batch', file, '--json', '--force', '--site-id', siteId, '--state-machine-arn', passMachine]);
  assert.is(asJson.status, 1, asJson.stderr);
  const jsonRows = JSON.parse(asJson.stdout) as BatchManifestRow[];
  assert.equal(
    jsonRows.map((r) => [String(r.line), r.outputKey, r.status, r.error ?? '']),
    rows.map((r) => [r[0], r[1], r[2], r[5]]),
    '--json has the same rows as the text manifest',
  );
  // The second run appended: the first run's rows are still there, byte for byte, then its own.
  const secondRun = runOf(asJson.stderr);
  assert.is.not(secondRun, firstRun);
  const bothText = fs.readFileSync(manifestFile, 'utf8');
  assert.ok(bothText.startsWith(firstText), 'the first run is kept as written');
  const appended = manifestRows(manifestFile).slice(5);
  assert.equal(appended.map((r) => r.run), Array(5).fill(secondRun));
  assert.equal(appended.map(withoutRun).sort((a, b) => a.line - b.line), jsonRows, 'the second run appended the --json rows');

  const progress = vidkit(['cloudfn', 'progress', '--batch-manifest', manifestFile, '--json'], { env: env() });
  assert.is(progress.status, 0, progress.stderr);
  const report = JSON.parse(progress.stdout);
  assert.equal([report.total, report.failed], [5, 1], 'one row per line: the latest run\'s');
  assert.equal(
    (report.rows as { renderId: string | null }[]).map((r) => r.renderId),
    jsonRows.map((r) => r.renderId),
    'progress reads the second run\'s executions',
  );
});

batch('progress --batch-manifest reports the whole batch: done, failed and percent, as a table and as JSON', async () => {
  const file = writeBatch('progress.jsonl', [entry('batch/p-red.mp4', { fill: '#ff0000' }), 'not json', entry('batch/p-blue.mp4', {})]);
  const run = await batchCli(['--batch', file]);
  assert.is(run.status, 1, run.stderr);
  const manifestFile = path.join(out, 'progress.manifest.jsonl');
  const rows = manifestRows(manifestFile);
  const byId = rows.find((r) => r.outputKey === 'batch/p-red.mp4')!;
  const single = vidkit(['cloudfn', 'progress', byId.renderId!, '--json'], { env: env() });
  assert.is(single.status, 0, 'a row renderId is accepted by progress');
  assert.is(JSON.parse(single.stdout).executionArn, byId.executionArn);
  await waitForExecutions(rows.filter((r) => r.status === 'started').map((r) => r.executionArn!));

  const text = vidkit(['cloudfn', 'progress', '--batch-manifest', manifestFile], { env: env() });
  assert.is(text.status, 0, text.stderr);
  const [summary, header, ...table] = text.stdout.trimEnd().split('\n');
  assert.is(summary, '3 renders: 2 done, 0 running, 1 failed (66%)', text.stdout);
  assert.equal(header.split(/ {2,}/), ['line', 'outputKey', 'state', 'percent', 'renderId', 'output or error']);
  assert.equal(
    table.map((l) => l.split(/ {2,}/)),
    [
      ['1', 'batch/p-red.mp4', 'done', '100%', byId.renderId!, `s3://${bucket}/batch/p-red.mp4`],
      ['2', '-', 'failed-to-start', '0%', '-', rows.find((r) => r.line === 2)!.error!],
      ['3', 'batch/p-blue.mp4', 'done', '100%', rows.find((r) => r.line === 3)!.renderId!, `s3://${bucket}/batch/p-blue.mp4`],
    ],
  );
  const json = JSON.parse(vidkit(['cloudfn', 'progress', '--batch-manifest', manifestFile, '--json'], { env: env() }).stdout);
  assert.equal([json.total, json.done, json.running, json.failed, json.percent], [3, 2, 0, 1, 66]);
});

batch('a re-run appends to the manifest after a row torn by a crash, skipping the line that started and starting the one that failed; progress skips the torn row with a warning and reports each line\'s latest row', async () => {
  const file = writeBatch('rerun.jsonl', [entry('batch/re-1.mp4', { fill: '#ff0000' }), entry('batch/re-2.mp4', { fill: 42 })]);
  const manifestFile = path.join(out, 'rerun.manifest.jsonl');
  const first = await batchCli(['--batch', file, '--strict-variables', '--state-machine-arn', passMachine, '--json']);
  assert.is(first.status, 1, first.stderr);
  const firstRows = JSON.parse(first.stdout) as BatchManifestRow[];
  assert.equal(firstRows.map((r) => r.status), ['started', 'failed-to-start']);
  // A crash part-way through writing a row leaves its start and no newline.
  const torn = `{"run":"${runOf(first.stderr)}","line":2,"outputKey":"batch/re-2.mp4","sta`;
  fs.appendFileSync(manifestFile, torn);
  const beforeRerun = fs.readFileSync(manifestFile, 'utf8');

  const siteId = /site ([0-9a-f]+)/.exec(first.stderr)![1];
  const second = await batchCli(['--batch', file, '--site-id', siteId, '--state-machine-arn', passMachine, '--json']);
  assert.is(second.status, 0, second.stderr);
  const secondRows = JSON.parse(second.stdout) as BatchManifestRow[];
  assert.equal(secondRows.map((r) => r.status), ['skipped', 'started']);
  assert.equal([secondRows[0].renderId, secondRows[0].executionArn], [firstRows[0].renderId, firstRows[0].executionArn], 'the skipped row names the render that did it');
  assert.match(second.stderr, /vidkit: warning: .*rerun\.manifest\.jsonl:3: skipped a torn row/);

  const text = fs.readFileSync(manifestFile, 'utf8');
  assert.ok(text.startsWith(`${beforeRerun}\n`), 'the first run and the torn row are kept; the re-run starts on a new line');
  const records = manifestRows(manifestFile);
  assert.is.not(runOf(second.stderr), runOf(first.stderr));
  assert.equal(records.map((r) => r.run), [runOf(first.stderr), runOf(first.stderr), runOf(second.stderr), runOf(second.stderr)], text);
  assert.equal(records.slice(0, 2).map(withoutRun).sort((a, b) => a.line - b.line), firstRows);
  assert.equal(records.slice(2).map(withoutRun).sort((a, b) => a.line - b.line), secondRows);

  const progress = vidkit(['cloudfn', 'progress', '--batch-manifest', manifestFile, '--json'], { env: env() });
  assert.is(progress.status, 0, progress.stderr);
  assert.match(progress.stderr, `vidkit: warning: ${manifestFile}:3: skipped a torn row (not complete JSON: a run was cut off while writing it)`);
  const report = JSON.parse(progress.stdout);
  assert.equal([report.total, report.failed], [2, 0], progress.stdout);
  assert.equal(
    (report.rows as { line: number; renderId: string | null }[]).map((r) => [r.line, r.renderId]),
    secondRows.map((r) => [r.line, r.renderId]),
    'each line by the re-run\'s row',
  );
});

batch('bad outputKeys (.., NUL, line break, scheme, leading /, over 1024 bytes) each fail to start naming the line and the rule; a BOM is accepted; the good lines start', async () => {
  const lines = [
    entry('batch/key-ok-1.mp4', {}),
    entry('batch/../escape.mp4', {}),
    entry('batch/a\u0000b.mp4', {}),
    entry('batch/a\nb.mp4', {}),
    entry('s3://other-bucket/x.mp4', {}),
    entry('/batch/abs.mp4', {}),
    entry(`batch/${'x'.repeat(1020)}.mp4`, {}),
    entry('batch/key-ok-2.mp4', {}),
  ];
  const file = path.join(out, 'keys.jsonl');
  fs.writeFileSync(file, `\uFEFF${lines.join('\n')}\n`);
  const run = await batchCli(['--batch', file, '--state-machine-arn', passMachine, '--json']);
  assert.is(run.status, 1, run.stderr);
  const rows = JSON.parse(run.stdout) as BatchManifestRow[];
  assert.equal(rows.map((r) => [r.line, r.outputKey, r.status]), [
    [1, 'batch/key-ok-1.mp4', 'started'],
    [2, null, 'failed-to-start'],
    [3, null, 'failed-to-start'],
    [4, null, 'failed-to-start'],
    [5, null, 'failed-to-start'],
    [6, null, 'failed-to-start'],
    [7, null, 'failed-to-start'],
    [8, 'batch/key-ok-2.mp4', 'started'],
  ]);
  assert.equal(rows.slice(1, 7).map((r) => r.error), [
    '"outputKey" "batch/../escape.mp4" has a ".." path segment: name the object without climbing out of a folder',
    '"outputKey" "batch/a\\u0000b.mp4" contains a NUL character: remove it',
    '"outputKey" "batch/a\\nb.mp4" contains a line break (\\n or \\r): an object key is one line',
    '"outputKey" "s3://other-bucket/x.mp4" starts with a URL scheme (s3:): give a key inside the render bucket, such as renders/name.mp4',
    '"outputKey" "/batch/abs.mp4" starts with "/": give a relative key, such as renders/name.mp4',
    `"outputKey" "batch/${'x'.repeat(54)}"… is 1030 bytes of UTF-8, over the 1024-byte limit of an object key: shorten it`,
  ]);
});

batch('--dry-run: every good entry would-invoke, the malformed line stays failed-to-start, and no request reaches AWS', async () => {
  const proxy = await startCountingProxy(emu.endpoint);
  try {
    const before = await executionCount(renderMachine);
    const run = await batchCli(['--batch', writeBatch('dry.jsonl', FIVE), '--dry-run'], proxy.endpoint);
    assert.is(run.status, 1, run.stderr);
    const lines = run.stdout.trimEnd().split('\n');
    assert.is(lines[0], '4 would-invoke, 1 failed-to-start (dry run: nothing started)');
    assert.equal(textRows(run.stdout).map((r) => r[2]), ['would-invoke', 'would-invoke', 'failed-to-start', 'would-invoke', 'would-invoke']);
    assert.is(proxy.requests, 0, 'a dry run sends nothing: no upload, no StartExecution');
    assert.is(await executionCount(renderMachine), before, 'the emulator shows no new execution');
    assert.not.ok(fs.existsSync(path.join(out, 'dry.manifest.jsonl')), 'a dry run starts nothing, so it records nothing');
  } finally {
    await proxy.close();
  }
});

batch('--max-concurrent 3 on 40 lines: never more than 3 StartExecution calls in flight', async () => {
  const proxy = await startCountingProxy(emu.endpoint, { holdMs: 150 });
  try {
    const lines = Array.from({ length: 40 }, (_, i) => entry(`batch/many-${i}.mp4`, { title: `viewer ${i}` }));
    const run = await batchCli(['--batch', writeBatch('forty.jsonl', lines), '--max-concurrent', '3', '--state-machine-arn', passMachine, '--json'], proxy.endpoint);
    assert.is(run.status, 0, run.stderr);
    const rows = JSON.parse(run.stdout) as BatchManifestRow[];
    assert.equal(rows.map((r) => r.status), Array(40).fill('started'));
    assert.is(proxy.startExecutions, 40);
    assert.is(proxy.maxInFlight, 3, 'three in flight at most, and the cap is used');
    assert.is(await executionCount(passMachine) >= 40, true);
  } finally {
    await proxy.close();
  }
});

batch('a throttled StartExecution is tried again until it starts; one failing with a 503 every time fails its row after 5 attempts; the others go on', async () => {
  const seen = new Set<string>();
  const proxy = await startCountingProxy(emu.endpoint, {
    fail: (body) => body.includes('batch/always.mp4'),
    throttle: (body) => {
      // Throttled more often than the SDK's own 5 attempts: only dispatch's pacing gets it started.
      if (body.includes('batch/often.mp4') && seen.size < 7) return seen.add(`often-${seen.size}`), true;
      return false;
    },
  });
  try {
    const file = writeBatch('throttled.jsonl', [entry('batch/ok.mp4', {}), entry('batch/often.mp4', {}), entry('batch/always.mp4', {})]);
    const run = await batchCli(['--batch', file, '--state-machine-arn', passMachine, '--json'], proxy.endpoint);
    assert.is(run.status, 1, run.stderr);
    const rows = JSON.parse(run.stdout) as BatchManifestRow[];
    assert.equal(rows.map((r) => r.status), ['started', 'started', 'failed-to-start']);
    assert.is(rows[2].error, 'ServiceUnavailable: Service is unavailable');
    assert.is(proxy.throttled, 7, 'throttled 7 times, then started');
    assert.is(proxy.failed, 5, 'all 5 attempts of the failing entry');
    assert.is(proxy.startExecutions, 1 + 8 + 5);
  } finally {
    await proxy.close();
  }
});

batch('200 lines through a proxy that throttles 30% of starts: all 200 start, none failed-to-start, never more than --max-concurrent 8 in flight', async () => {
  // Seeded, so a run is repeatable: about 30% of StartExecution calls answered ThrottlingException.
  let state = 7;
  const proxy = await startCountingProxy(emu.endpoint, {
    holdMs: 20,
    throttle: () => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state / 2 ** 31 < 0.3;
    },
  });
  try {
    const lines = Array.from({ length: 200 }, (_, i) => entry(`batch/paced-${i}.mp4`, { title: `viewer ${i}` }));
    const run = await batchCli(['--batch', writeBatch('paced.jsonl', lines), '--max-concurrent', '8', '--state-machine-arn', passMachine, '--json'], proxy.endpoint);
    assert.is(run.status, 0, run.stderr);
    const rows = JSON.parse(run.stdout) as BatchManifestRow[];
    assert.equal(rows.map((r) => r.status), Array(200).fill('started'));
    assert.ok(proxy.throttled >= 40, `${proxy.throttled} of ${proxy.startExecutions} starts throttled`);
    assert.is(proxy.startExecutions, 200 + proxy.throttled, 'every throttled start tried again, each started once');
    assert.ok(proxy.maxInFlight <= 8, `at most 8 in flight, saw ${proxy.maxInFlight}`);
    assert.match(run.stderr, /200 renders x 1 chunk; /);
  } finally {
    await proxy.close();
  }
});

batch('variables: a mismatch warns naming the line; --strict-variables fails that entry only; --variables-file is refused', async () => {
  const file = writeBatch('typed.jsonl', [entry('batch/t1.mp4', { fill: 42 }), entry('batch/t2.mp4', { fill: '#123456' })]);
  const loose = await batchCli(['--batch', file, '--dry-run']);
  assert.is(loose.status, 0, loose.stderr);
  assert.match(loose.stderr, /vidkit: warning: line 1 \(batch\/t1\.mp4\): .*fill/);
  const strict = await batchCli(['--batch', file, '--dry-run', '--strict-variables', '--json']);
  assert.is(strict.status, 1, strict.stderr);
  const rows = JSON.parse(strict.stdout) as BatchManifestRow[];
  assert.equal(rows.map((r) => r.status), ['failed-to-start', 'would-invoke']);
  assert.match(rows[0].error!, /^strict variables: .*fill/);

  const refused = await batchCli(['--batch', file, '--variables-file', file]);
  assert.is(refused.status, 2);
  assert.equal(errorLines(refused.stderr), ['vidkit: error: --variables-file does not apply to render-batch: each JSONL line carries its own "variables" object']);
});

batch.run();
