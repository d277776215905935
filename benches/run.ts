// `npm run bench`: vidkit against the peer tool on the same compositions, in the same run,
// alternating, and against the capture-only limit. Prints a table; writes JSON.
//   npm run bench -- [--runs 3] [--only gsap-text,slides] [--resolutions 1080,720]
//                    [--workers-sweep ui-3d-reveal] [--no-peer] [--out benches/results/latest.json]
//                    [--compare benches/results/<file>.json] [--note "why these results"]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { QUALITY_SETTINGS } from '../dist/values/quality';
import { renderLocal } from '../dist/render/local-render';
import { loadComposition } from '../dist/composition/composition';
import { COMPARE_RUNS, MachineClass, classMismatch, compareRows, printComparison, thisMachine } from './lib/compare';
import { Measured, ThreadTime, measure, median } from './lib/measure';
import { renderReference } from './lib/reference';
import { projectHtml, stageComposition } from './lib/stage';
import { printTable, printThreads } from './lib/table';
import { frameCount, psnr } from './lib/video';

const ROOT = path.resolve(__dirname, '..');
const RESULTS = path.join(ROOT, 'benches', 'results');
/** The default output, not committed; any other file under benches/results is, and needs --note. */
const LATEST = path.join('benches', 'results', 'latest.json');
/** Compositions on a video, rendered at their own size only (three of them portrait). */
const VIDEO_COMPOSITIONS = ['video-talking-head', 'video-sub-composition', 'video-aroll-sub', 'video-pip'];
const COMPOSITIONS = ['gsap-text', 'gsap-cards', 'ui-3d-reveal', 'css-keyframes', 'canvas-raf', 'slides', ...VIDEO_COMPOSITIONS];

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    only: { type: 'string' },
    resolutions: { type: 'string' },
    'workers-sweep': { type: 'string' },
    'no-peer': { type: 'boolean', default: false },
    out: { type: 'string', default: LATEST },
    compare: { type: 'string' },
    note: { type: 'string' },
    threads: { type: 'boolean', default: false },
  },
});
const runs = Number(opts.runs);
const baseline = opts.compare === undefined ? undefined : readBaseline(opts.compare);
// Compared against a results file, the bench measures that file's rows unless told otherwise.
const names = opts.only ? opts.only.split(',') : baseline ? [...new Set(baseline.rows.map((r) => r.composition))] : COMPOSITIONS;
const resolutions = opts.resolutions ? opts.resolutions.split(',').map(Number) : baseline ? [...new Set(baseline.rows.map((r) => r.resolution))] : [1080, 720];
refuseUnnotedResults();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-bench-'));

export interface ToolResult {
  tool: 'vidkit' | 'peer';
  wallSeconds: number[];
  medianWall: number;
  /** CPU seconds (user + system) of the whole process tree, browsers included, each run. */
  cpuSeconds: number[];
  medianCpu: number;
  fps: number;
  peakRssMb: number;
  sizeMb: number;
  psnrDb: number;
  frames: number;
  firstFrameSeconds?: number;
  /** With `--threads`: CPU time by thread name, each figure the median of the runs, most first. */
  threads?: ThreadTime[];
  /**
   * vidkit only: frames per second of the render itself (the `--json` result's wallSeconds, from
   * the render's start to the output's rename), timed like the capture-only limit it is compared
   * with; the process wall adds Node's start-up and exit.
   */
  renderFps?: number;
}

export interface Row {
  composition: string;
  resolution: number;
  frames: number;
  vidkit: ToolResult;
  peer?: ToolResult;
  captureOnlyFps: number;
  workers: number;
}

/** Resolutions name the height of a 1920x1080 composition; other ones are drawn at a scale factor. */
const AUTHORED_HEIGHT = 1080;
const widthFor = (dir: string, resolution: number) => Math.round((loadComposition(dir).width * resolution) / AUTHORED_HEIGHT);

function projectDir(name: string): string {
  return stageComposition(ROOT, name, path.join(work, 'compositions'));
}

function vidkitRun(dir: string, output: string, resolution: number, workers = 'auto'): Promise<Measured> {
  const cli = path.join(ROOT, 'dist', 'cli', 'main.js');
  return measure(process.execPath, [cli, 'render', dir, '--output', output, '--workers', workers, '--width', String(widthFor(dir, resolution)), '--json'], {}, undefined, opts.threads);
}

function peerRun(dir: string, output: string, resolution: number): Promise<Measured> {
  const scaled = resolution === AUTHORED_HEIGHT ? [] : ['--resolution', `${resolution}p`];
  return measure('bash', [path.join(ROOT, 'benches', 'peer', 'render.sh'), dir, output, ...scaled], {}, undefined, opts.threads);
}

function check(m: Measured, what: string): Measured {
  if (m.status !== 0) throw new Error(`${what} failed (exit ${m.status}): ${m.stderr.slice(-2000)}`);
  return m;
}

function summarise(tool: ToolResult['tool'], measured: Measured[], output: string, reference: string): ToolResult {
  const walls = measured.map((m) => m.wallSeconds);
  const frames = frameCount(output);
  const result: ToolResult = {
    tool,
    wallSeconds: walls,
    medianWall: median(walls),
    cpuSeconds: measured.map((m) => m.cpuSeconds),
    medianCpu: median(measured.map((m) => m.cpuSeconds)),
    fps: frames / median(walls),
    peakRssMb: median(measured.map((m) => m.peakRssBytes)) / 2 ** 20,
    sizeMb: fs.statSync(output).size / 2 ** 20,
    psnrDb: psnr(output, reference),
    frames,
  };
  if (opts.threads) result.threads = medianThreads(measured.map((m) => m.threads ?? []));
  if (tool === 'vidkit') {
    const results = measured.map((m) => JSON.parse(m.stdout));
    result.firstFrameSeconds = median(results.map((r) => r.firstFrameSeconds));
    result.renderFps = frames / median(results.map((r) => r.wallSeconds));
  }
  return result;
}

/** Each thread name's median figures over the runs (a run without the name counts as zero). */
function medianThreads(runs: ThreadTime[][]): ThreadTime[] {
  const names = [...new Set(runs.flatMap((run) => run.map((t) => t.name)))];
  const of = (name: string, pick: (t: ThreadTime) => number) => median(runs.map((run) => pick(run.find((t) => t.name === name) ?? { name, cpuSeconds: 0, systemSeconds: 0, minorFaults: 0, threads: 0 })));
  return names
    .map((name) => ({ name, cpuSeconds: of(name, (t) => t.cpuSeconds), systemSeconds: of(name, (t) => t.systemSeconds), minorFaults: of(name, (t) => t.minorFaults), threads: of(name, (t) => t.threads) }))
    .sort((a, b) => b.cpuSeconds - a.cpuSeconds);
}

async function benchComposition(name: string, resolution: number): Promise<Row> {
  const dir = projectDir(name);
  const tag = `${name}-${resolution}`;
  process.stderr.write(`bench: ${tag}: lossless reference\n`);
  const reference = path.join(work, `${tag}-ref.mkv`);
  await renderReference(dir, reference, widthFor(dir, resolution), { browserVideo: projectHtml(dir).includes('<video') });

  const vidkitOut = path.join(work, `${tag}-vidkit.mp4`);
  const peerOut = path.join(work, `${tag}-peer.mp4`);
  const v: Measured[] = [];
  const p: Measured[] = [];
  const captureFps: number[] = [];
  const workerCounts: number[] = [];
  for (let i = 0; i < runs; i++) {
    // Alternate which tool goes first so neither always inherits a warm page cache.
    const order = i % 2 === 0 ? ['vidkit', 'peer'] : ['peer', 'vidkit'];
    for (const tool of order) {
      if (tool === 'peer' && opts['no-peer']) continue;
      process.stderr.write(`bench: ${tag}: ${tool} run ${i + 1}/${runs}\n`);
      if (tool === 'vidkit') v.push(check(await vidkitRun(dir, vidkitOut, resolution), `vidkit ${tag}`));
      else p.push(check(await peerRun(dir, peerOut, resolution), `peer ${tag}`));
    }
    // The limit for this run: the same capture with as many workers as `auto` ran, frames dropped.
    const workers = JSON.parse(v[v.length - 1].stdout).workers as number;
    process.stderr.write(`bench: ${tag}: capture-only limit run ${i + 1}/${runs} (${workers} workers)\n`);
    const captureOnly = await renderLocal({
      projectDir: dir,
      overrides: {},
      strictVariables: false,
      workers,
      width: widthFor(dir, resolution),
      ...QUALITY_SETTINGS.standard,
      allowGpu: true,
      capture: 'auto',
      sink: 'discard',
    });
    captureFps.push(captureOnly.frames / captureOnly.wallSeconds);
    workerCounts.push(workers);
  }
  const vidkit = summarise('vidkit', v, vidkitOut, reference);
  return {
    composition: name,
    resolution,
    frames: vidkit.frames,
    vidkit,
    peer: p.length > 0 ? summarise('peer', p, peerOut, reference) : undefined,
    captureOnlyFps: median(captureFps),
    workers: median(workerCounts),
  };
}

async function workersSweep(name: string): Promise<Array<{ workers: string; medianWall: number }>> {
  const dir = projectDir(name);
  const out = path.join(work, `${name}-sweep.mp4`);
  const results: Array<{ workers: string; medianWall: number }> = [];
  for (const workers of ['1', '2', '3', '4', 'auto']) {
    const walls: number[] = [];
    for (let i = 0; i < runs; i++) {
      process.stderr.write(`bench: workers sweep ${name}: --workers ${workers} run ${i + 1}/${runs}\n`);
      walls.push(check(await vidkitRun(dir, out, AUTHORED_HEIGHT, workers), `vidkit --workers ${workers}`).wallSeconds);
    }
    results.push({ workers, medianWall: median(walls) });
  }
  return results;
}

function writeRecord(machine: MachineClass, rows: Row[], sweep?: Array<{ workers: string; medianWall: number }>): void {
  fs.mkdirSync(path.dirname(path.resolve(opts.out!)), { recursive: true });
  const record = { date: new Date().toISOString(), machine, note: opts.note, runs, rows, sweep };
  fs.writeFileSync(`${opts.out!}.partial`, `${JSON.stringify(record, null, 2)}\n`);
  fs.renameSync(`${opts.out!}.partial`, opts.out!);
}

async function main(): Promise<void> {
  // Probed before the first render, while nothing of the bench loads the machine.
  const machine = thisMachine();
  const rows: Row[] = [];
  for (const name of names) {
    for (const resolution of resolutions) {
      if (VIDEO_COMPOSITIONS.includes(name) && resolution !== AUTHORED_HEIGHT) continue;
      const row = await benchComposition(name, resolution);
      rows.push(row);
      // A long run: each row as it lands, and on disk, so a later failure loses nothing measured.
      const ratio = row.peer ? ` (${(row.vidkit.medianWall / row.peer.medianWall).toFixed(2)}x)` : '';
      process.stderr.write(`bench: ${name}-${resolution}: vidkit ${row.vidkit.medianWall.toFixed(1)} s, ${row.vidkit.peakRssMb.toFixed(0)} MB, ${row.vidkit.psnrDb.toFixed(2)} dB; peer ${row.peer ? `${row.peer.medianWall.toFixed(1)} s, ${row.peer.peakRssMb.toFixed(0)} MB, ${row.peer.psnrDb.toFixed(2)} dB` : '-'}${ratio}\n`);
      writeRecord(machine, rows);
    }
  }
  const sweep = opts['workers-sweep'] ? await workersSweep(opts['workers-sweep']) : undefined;
  printTable(rows, sweep);
  if (opts.threads) printThreads(rows);
  writeRecord(machine, rows, sweep);
  process.stderr.write(`bench: results written to ${opts.out}\n`);
  fs.rmSync(work, { recursive: true, force: true });
  if (baseline && !printComparison(opts.compare!, compareRows(baseline.rows, rows), { committed: baseline.machine, now: machine })) process.exitCode = 1;
}

/** Stops the bench before it runs: a usage error. */
function refuse(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

/**
 * The committed results `--compare` judges a run by: of this machine's class, and compared as
 * they were measured, on medians of {@link COMPARE_RUNS} runs.
 */
function readBaseline(file: string): { rows: Row[]; machine?: MachineClass } {
  let record: { machine?: Record<string, unknown>; rows?: Row[] };
  try {
    record = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    refuse(`--compare ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!Array.isArray(record.rows) || record.rows.some((r) => r.vidkit?.medianWall === undefined)) refuse(`--compare ${file}: not a results file of npm run bench (no rows with vidkit's times)`);
  if (runs < COMPARE_RUNS) refuse(`--compare takes medians of at least ${COMPARE_RUNS} runs, as the committed results do: --runs ${runs} is too few`);
  if (opts['no-peer']) refuse('--compare judges vidkit against the peer of the same run: it cannot be used with --no-peer');
  if (opts.threads) refuse('--compare judges runs measured as the committed results were, without --threads (its sampling adds work to every run)');
  // Last: the machine's class includes its speed probe, which takes seconds.
  const mismatch = classMismatch(file, record.machine, thisMachine());
  if (mismatch) refuse(mismatch);
  return { rows: record.rows, machine: record.machine as unknown as MachineClass };
}

/** Results written where they are committed say why they were refreshed. */
function refuseUnnotedResults(): void {
  const out = path.resolve(opts.out!);
  const committed = path.dirname(out) === RESULTS && out !== path.join(ROOT, LATEST);
  if (committed && !opts.note?.trim()) refuse(`--out ${opts.out} writes committed results: say why with --note "<why these results replace or join the others>"`);
}

main().catch((err) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  // Renders and references take gigabytes; the rows measured so far are in --out already.
  fs.rmSync(work, { recursive: true, force: true });
  process.exit(1);
});
