// `npm run bench:local-batch`: one template rendered for 40 viewers on this machine (issue 18).
// The same 40 rows of `compositions/batch-card` (3 s, 1280x720, 30 fps, one text and one colour
// variable) three ways, in the same run, alternating which goes first:
//   - vidkit `render --batch` (warm browser pool, `--batch-concurrency auto`);
//   - the peer's `render --batch` (hyperframes 0.8.170, its defaults: one row at a time, auto workers);
//   - a loop of single `vidkit render` calls, one process per row, with as many workers as the
//     batch ran browsers (its peak RSS is a single render's with that worker count).
// Prints renders per minute, peak RSS (whole process tree) and the ratios against the targets.
//   npm run bench:local-batch -- [--rows 40] [--runs 1]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Measured, measure, median } from './lib/measure';
import { stageComposition } from './lib/stage';
import { printColumns } from './lib/table';
import { frameCount } from './lib/video';

const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
const { values: opts } = parseArgs({ options: { rows: { type: 'string', default: '40' }, runs: { type: 'string', default: '1' } } });
const rowCount = Number(opts.rows);
const runs = Number(opts.runs);
const ACCENTS = ['#ff3366', '#5b5bf0', '#00a676', '#ff8c00', '#8a2be2', '#0096c7', '#e63946', '#2a9d8f'];
const FRAMES = 90;

type Tool = 'vidkit --batch' | 'peer --batch' | 'vidkit render loop';

interface Run {
  wallSeconds: number;
  peakRssBytes: number;
}

function check(m: Measured, what: string): Measured {
  if (m.status !== 0) throw new Error(`${what} failed (exit ${m.status}): ${m.stderr.slice(-2000)}`);
  return m;
}

/** Every output there, each with every frame: a tool that skipped work would not be compared. */
function checkOutputs(files: string[], what: string): void {
  for (const file of files) {
    if (!fs.existsSync(file)) throw new Error(`${what}: ${file} is missing`);
    const frames = frameCount(file);
    if (frames !== FRAMES) throw new Error(`${what}: ${file} has ${frames} frames, not ${FRAMES}`);
  }
}

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-bench-local-batch-'));
  const dir = stageComposition(ROOT, 'batch-card', path.join(work, 'compositions'));
  const variables = Array.from({ length: rowCount }, (_, i) => ({ headline: `Hello, viewer ${i + 1}`, accent: ACCENTS[i % ACCENTS.length] }));
  const jsonl = path.join(work, 'rows.jsonl');
  fs.writeFileSync(jsonl, variables.map((v, i) => JSON.stringify({ outputKey: `row-${i}.mp4`, variables: v })).join('\n') + '\n');
  const peerRows = path.join(work, 'rows.json');
  fs.writeFileSync(peerRows, JSON.stringify(variables));
  const rowFiles = variables.map((v, i) => {
    const file = path.join(work, `row-${i}.json`);
    fs.writeFileSync(file, JSON.stringify(v));
    return file;
  });

  const results = new Map<Tool, Run[]>();
  const record = (tool: Tool, run: Run) => results.set(tool, [...(results.get(tool) ?? []), run]);
  let browsers = 0;

  const vidkitBatch = async () => {
    const out = path.join(work, 'vidkit-batch');
    const m = check(await measure(process.execPath, [CLI, 'render', dir, '--batch', jsonl, '--output-dir', out, '--batch-concurrency', 'auto', '--force', '--json']), 'vidkit --batch');
    browsers = Number(/(\d+) at once/.exec(m.stderr)?.[1] ?? 0);
    checkOutputs(variables.map((_, i) => path.join(out, `row-${i}.mp4`)), 'vidkit --batch');
    record('vidkit --batch', m);
  };
  const peerBatch = async () => {
    const out = path.join(work, 'peer-batch');
    fs.rmSync(out, { recursive: true, force: true });
    const m = check(await measure('bash', [path.join(ROOT, 'benches', 'peer', 'render.sh'), dir, path.join(out, '{index}.mp4'), '--batch', peerRows, '--quiet']), 'peer --batch');
    checkOutputs(variables.map((_, i) => path.join(out, `${i}.mp4`)), 'peer --batch');
    record('peer --batch', m);
  };
  const loop = async () => {
    const out = path.join(work, 'loop');
    let wallSeconds = 0;
    let peakRssBytes = 0;
    for (let i = 0; i < rowCount; i++) {
      const output = path.join(out, `row-${i}.mp4`);
      const m = check(await measure(process.execPath, [CLI, 'render', dir, '--output', output, '--variables-file', rowFiles[i], '--workers', String(browsers)]), `vidkit render row ${i}`);
      wallSeconds += m.wallSeconds;
      peakRssBytes = Math.max(peakRssBytes, m.peakRssBytes);
    }
    checkOutputs(variables.map((_, i) => path.join(out, `row-${i}.mp4`)), 'vidkit render loop');
    record('vidkit render loop', { wallSeconds, peakRssBytes });
  };

  // The loop takes the batch's browser count, so the batch goes first in the first run.
  const steps: Array<[Tool, () => Promise<void>]> = [
    ['vidkit --batch', vidkitBatch],
    ['peer --batch', peerBatch],
    ['vidkit render loop', loop],
  ];
  for (let run = 0; run < runs; run++) {
    for (const [tool, step] of run % 2 === 0 ? steps : [...steps].reverse()) {
      process.stderr.write(`bench:local-batch: ${tool}, run ${run + 1}/${runs}\n`);
      await step();
    }
  }

  const stat = (tool: Tool) => {
    const r = results.get(tool)!;
    const wall = median(r.map((x) => x.wallSeconds));
    return { wall, perMinute: (rowCount / wall) * 60, rssMb: median(r.map((x) => x.peakRssBytes)) / 2 ** 20 };
  };
  const batch = stat('vidkit --batch');
  const peer = stat('peer --batch');
  const single = stat('vidkit render loop');
  const f1 = (n: number) => n.toFixed(1);
  const f2 = (n: number) => n.toFixed(2);
  process.stdout.write(`${rowCount} rows of batch-card (3 s, 1280x720, 30 fps), ${runs} run(s), ${os.availableParallelism()} cores; vidkit --batch ran ${browsers} browsers\n`);
  printColumns([
    ['tool', 'wall s', 'renders/min', 'peak RSS MB'],
    ...(['vidkit --batch', 'peer --batch', 'vidkit render loop'] as Tool[]).map((tool) => {
      const s = stat(tool);
      return [tool, f1(s.wall), f1(s.perMinute), f1(s.rssMb)];
    }),
  ]);
  process.stdout.write('\n');
  const rssLimit = single.rssMb * 1.2;
  printColumns([
    ['target', 'measured', 'wanted', 'met'],
    ['throughput vs peer --batch', `${f2(batch.perMinute / peer.perMinute)}x`, '>= 3x', batch.perMinute / peer.perMinute >= 3 ? 'yes' : 'NO'],
    ['throughput vs vidkit render loop', `${f2(batch.perMinute / single.perMinute)}x`, '>= 1.5x', batch.perMinute / single.perMinute >= 1.5 ? 'yes' : 'NO'],
    [`peak RSS vs one render (${browsers} workers) + 20%`, `${f1(batch.rssMb)} MB`, `<= ${f1(rssLimit)} MB`, batch.rssMb <= rssLimit ? 'yes' : 'NO'],
  ]);
  fs.rmSync(work, { recursive: true, force: true });
}

main().catch((err) => {
  process.stderr.write(`bench:local-batch: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
