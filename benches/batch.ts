// `npm run bench:batch`: the batch path at scale, against its targets (issue 5): a 100,000-line
// JSONL file parsed natively (median of 5, target < 100 ms) and a `render-batch --dry-run` over it
// (whole-process peak RSS, target < 200 MB). No peer: no other tool parses our batch format.
// Then (issue 27) one 2 s composition (640x360, 30 fps: one chunk) rendered in the cloud on the AWS
// emulator (MiniStack, as the tests run it) through the state machine and with `--direct`,
// alternating which goes first: the wall time of `cloudfn render --wait` each way, median of runs.
//   npm run bench:batch -- [--lines 100000] [--cloud-runs 3] [--no-cloud]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { loadNative } from '../dist/native';
import { startAwsEmulator } from '../src/test-support/aws-emulator';
import { TEST_IMAGE, registerZipHandler, testAwsClients } from '../src/test-support/cloud-stack';
import { measure, median } from './lib/measure';

const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
const { values: opts } = parseArgs({
  options: { lines: { type: 'string', default: '100000' }, 'cloud-runs': { type: 'string', default: '3' }, 'no-cloud': { type: 'boolean', default: false } },
});
const lines = Number(opts.lines);
const cloudRuns = Number(opts['cloud-runs']);

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-bench-batch-'));
  try {
    const file = path.join(dir, 'batch.jsonl');
    const out = fs.createWriteStream(file);
    for (let i = 0; i < lines; i++) {
      out.write(`${JSON.stringify({ outputKey: `renders/viewer-${i}.mp4`, variables: { headline: `Hello viewer ${i}`, accent: '#ff3366', cards: 3, showBadge: i % 2 === 0, theme: 'dark' } })}\n`);
    }
    await new Promise((resolve) => out.end(resolve));
    const bytes = fs.statSync(file).size;

    const native = loadNative();
    const parseMs: number[] = [];
    let entries = 0;
    for (let run = 0; run < 5; run++) {
      const started = process.hrtime.bigint();
      entries = (await native.parseBatchFile(file)).spans.length / 4;
      parseMs.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    if (entries !== lines) throw new Error(`parsed ${entries} entries of ${lines}`);

    const dry = await measure(process.execPath, [path.join(ROOT, 'dist', 'cli', 'main.js'), 'cloudfn', 'render-batch', path.join(ROOT, 'examples', 'ui-3d-reveal'), '--batch', file, '--dry-run', '--json'], {
      VIDKIT_BUCKET: 'bench-dry-run',
    });
    if (dry.status !== 0) throw new Error(`dry run exited ${dry.status}: ${dry.stderr.slice(-2000)}`);
    const rows = JSON.parse(dry.stdout) as Array<{ status: string }>;
    const wouldInvoke = rows.filter((r) => r.status === 'would-invoke').length;

    const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
    const table = [
      ['measure', 'value', 'target', 'met'],
      [`native parse of ${lines} lines (${mb(bytes)} MB), median of 5`, `${median(parseMs).toFixed(1)} ms`, '< 100 ms', median(parseMs) < 100 ? 'yes' : 'NO'],
      [`render-batch --dry-run over ${lines} lines, peak RSS`, `${mb(dry.peakRssBytes)} MB`, '< 200 MB', dry.peakRssBytes < 200 * 1024 * 1024 ? 'yes' : 'NO'],
      ['render-batch --dry-run, wall', `${dry.wallSeconds.toFixed(1)} s`, '-', '-'],
      ['rows would-invoke', String(wouldInvoke), String(lines), wouldInvoke === lines ? 'yes' : 'NO'],
    ];
    if (!opts['no-cloud']) table.push(...(await directAgainstStateMachine(dir)));
    const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
    for (const row of table) process.stdout.write(`${row.map((c, i) => c.padEnd(widths[i])).join(' | ')}\n`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Rows of the table: `cloudfn render --wait` of a one-chunk render through the state machine and direct. */
async function directAgainstStateMachine(dir: string): Promise<string[][]> {
  const project = path.join(dir, 'two-seconds');
  fs.mkdirSync(project);
  fs.writeFileSync(
    path.join(project, 'index.html'),
    `<!doctype html><html><body style="margin:0"><div id="root" data-composition-id="two-seconds" data-width="640" data-height="360" data-duration="2" data-fps="30" style="width:640px;height:360px;background:#123;position:relative">
<div id="box" style="position:absolute;top:150px;width:60px;height:60px;background:#f36"></div></div>
<script>const box = document.getElementById('box'); (function tick() { box.style.left = Math.round(performance.now() / 4) + 'px'; requestAnimationFrame(tick); })();</script></body></html>`,
  );
  const emu = await startAwsEmulator();
  try {
    const deployed = await measure(process.execPath, [CLI, 'cloudfn', 'deploy', '--image-uri', TEST_IMAGE], emu.env);
    if (deployed.status !== 0) throw new Error(`deploy exited ${deployed.status}: ${deployed.stderr.slice(-2000)}`);
    const field = (name: string) => deployed.stdout.split('\n').find((l) => l.startsWith(`${name}: `))!.slice(name.length + 2);
    const env = { ...emu.env, VIDKIT_BUCKET: field('RenderBucketName'), VIDKIT_SFN_ARN: field('RenderStateMachineArn'), VIDKIT_POLL_MS: '200' };
    await registerZipHandler(testAwsClients(emu), { bucket: env.VIDKIT_BUCKET, workDir: dir });
    const site = await measure(process.execPath, [CLI, 'cloudfn', 'sites', 'create', project], env);
    const siteId = /Site ID: (\S+)/.exec(site.stdout)?.[1];
    if (!siteId) throw new Error(`sites create: ${site.stderr.slice(-2000)}`);
    const seconds: Record<'state machine' | 'direct', number[]> = { 'state machine': [], direct: [] };
    // One warm-up each: the emulator starts the function's process on its first invocation.
    for (let run = -1; run < cloudRuns; run++) {
      const order: ('state machine' | 'direct')[] = run % 2 === 0 ? ['state machine', 'direct'] : ['direct', 'state machine'];
      for (const way of order) {
        const key = `bench/${way === 'direct' ? 'direct' : 'machine'}-${run + 1}.mp4`;
        const args = [CLI, 'cloudfn', 'render', project, '--site-id', siteId, '--output-key', key, '--wait', ...(way === 'direct' ? ['--direct'] : [])];
        const done = await measure(process.execPath, args, env);
        if (done.status !== 0) throw new Error(`${way} render exited ${done.status}: ${done.stderr.slice(-2000)}`);
        if (run >= 0) seconds[way].push(done.wallSeconds);
      }
    }
    const [machine, direct] = [median(seconds['state machine']), median(seconds.direct)];
    return [
      [`cloudfn render --wait, 2 s at 640x360 (60 frames, 1 chunk), state machine, median of ${cloudRuns} (emulator)`, `${machine.toFixed(2)} s`, '-', '-'],
      [`cloudfn render --wait --direct, the same, median of ${cloudRuns} (emulator)`, `${direct.toFixed(2)} s`, 'below the state machine', direct < machine ? 'yes' : 'NO'],
    ];
  } finally {
    await emu.stop();
  }
}

void main();
