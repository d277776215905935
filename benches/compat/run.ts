// `npm run compat`: every composition of the compatibility suite (suite.ts) rendered by the peer
// (hyperframes, benches/peer) and by vidkit in the same run, one after the other, compared frame
// by frame (PSNR of vidkit's frame against the peer's, every frame) and, where the composition has
// audio, by loudness over time. Prints a table; writes JSON.
//   npm run compat -- [--only clips-window,adapter-anime] [--keep <dir>] [--out benches/results/compat-latest.json]
// With --hyperframes <checkout>, HyperFrames' own producer regression fixtures instead (hyperframes-fixtures.ts):
//   npm run compat -- --hyperframes <checkout> [--only a,b] [--keep <dir>] [--timeout <s>] [--out <file>] [--peer-renders <kept dir>,...]
// (--peer-renders: compare with the peer's renders that earlier runs kept, instead of rendering them again)
// With --fuzz N, N generated compositions instead (fuzz/main.ts):
//   npm run compat -- --fuzz N [--seed S] [--keep <dir>] [--out <file>] [--resume]
// --resume goes on with the results file (--out, or the day's default) of a run that stopped:
// the cases it holds are kept, the others rendered.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { LEVEL_WINDOW_SECONDS, audioLevels, integratedLoudness, maxLevelDifference } from '../lib/audio';
import { Measured, measure } from '../lib/measure';
import { projectHtml } from '../lib/stage';
import { printColumns } from '../lib/table';
import { frameCount, framePsnr, frameSize } from '../lib/video';
import { runFuzz } from './fuzz/main';
import { cellNotes, compareCells } from './fuzz/oracle';
import { runHyperframesFixtures } from './hyperframes-fixtures';
import { stageCompatComposition } from './stage';
import { CompatCase, PASS_DB, SUITE } from './suite';

const ROOT = path.resolve(__dirname, '..', '..');
/** The most two soundtracks' levels (50 ms windows, dBFS) may differ anywhere. */
export const AUDIO_TOLERANCE_DB = 1;
/** The most two soundtracks' integrated loudness (EBU R 128) may differ, LU. */
export const LOUDNESS_TOLERANCE_LU = 0.5;
/** A render of a 2 s composition that takes longer has hung (the peer waits without end on some pages). */
const RENDER_TIMEOUT_MS = 120_000;

const { values: opts } = parseArgs({
  options: {
    only: { type: 'string' },
    keep: { type: 'string' },
    out: { type: 'string' },
    hyperframes: { type: 'string' },
    timeout: { type: 'string', default: '600' },
    fuzz: { type: 'string' },
    seed: { type: 'string', default: '1' },
    resume: { type: 'boolean', default: false },
    'peer-renders': { type: 'string' },
  },
});

export type Verdict = 'pass' | 'FAIL' | 'FAIL (text)' | 'peer failed';

export interface CompatRow {
  composition: string;
  feature: string;
  text: boolean;
  format: string;
  frames: { vidkit: number | null; peer: number | null };
  /** vidkit's frame i against the peer's frame i, dB; null where identical (infinite PSNR). */
  psnr: Array<number | null>;
  minDb: number | null;
  /** Mean of the frames' PSNR, each counted at most 100 dB (identical frames). */
  meanDb: number | null;
  /** Largest loudness difference (dB) between the soundtracks, for compositions with audio. */
  audioMaxDiffDb?: number;
  /** Integrated loudness (EBU R 128, LUFS) of each soundtrack, for compositions with audio. */
  loudnessLufs?: { vidkit: number | null; peer: number | null };
  verdict: Verdict;
  /** Why a row failed when it is not the pictures: a render error, a frame count or size. */
  note?: string;
  wallSeconds: { vidkit: number; peer: number };
}

let work = '';

function byName(name: string): CompatCase {
  const found = SUITE.find((c) => c.name === name);
  if (!found) throw new Error(`--only: no composition "${name}" in benches/compat/suite.ts`);
  return found;
}

function vidkitRun(c: CompatCase, dir: string, output: string): Promise<Measured> {
  const args = [path.join(ROOT, 'dist', 'cli', 'main.js'), 'render', dir, '--output', output, '--quality', 'high', '--json'];
  if (c.format) args.push('--format', c.format);
  if (c.variables) args.push('--variables', JSON.stringify(c.variables));
  if (c.workers) args.push('--workers', String(c.workers));
  return measure(process.execPath, args, {}, (c.timeoutSeconds ?? RENDER_TIMEOUT_MS / 1000) * 1000);
}

function peerRun(c: CompatCase, dir: string, output: string): Promise<Measured> {
  const args = [path.join(ROOT, 'benches', 'peer', 'render.sh'), dir, output];
  if (c.format) args.push('--format', c.format);
  if (c.variables) args.push('--variables', JSON.stringify(c.variables));
  if (c.workers) args.push('--workers', String(c.workers));
  return measure('bash', args, {}, (c.timeoutSeconds ?? RENDER_TIMEOUT_MS / 1000) * 1000);
}

/** The last error line a tool printed, for the table. */
function failure(m: Measured, tool: string): string {
  const lines = `${m.stderr}\n${m.stdout}`.split('\n').map((l) => l.trim()).filter(Boolean);
  const error = [...lines].reverse().find((l) => /error/i.test(l)) ?? lines[lines.length - 1] ?? '';
  return `${tool} exited ${m.status}: ${error.slice(0, 200)}`;
}

async function compare(c: CompatCase): Promise<CompatRow> {
  const dir = stageCompatComposition(ROOT, c.folder ?? c.name, path.join(work, 'compositions'));
  const ext = c.format === 'webm' ? '.webm' : '.mp4';
  const peerOut = path.join(work, `${c.name}-peer${ext}`);
  const vidkitOut = path.join(work, `${c.name}-vidkit${ext}`);
  process.stderr.write(`compat: ${c.name}: peer\n`);
  const peer = await peerRun(c, dir, peerOut);
  process.stderr.write(`compat: ${c.name}: vidkit\n`);
  const vidkit = await vidkitRun(c, dir, vidkitOut);
  const row: CompatRow = {
    composition: c.name,
    feature: c.feature,
    text: c.text === true,
    format: c.format ?? 'mp4',
    frames: { vidkit: null, peer: null },
    psnr: [],
    minDb: null,
    meanDb: null,
    verdict: 'FAIL',
    wallSeconds: { vidkit: vidkit.wallSeconds, peer: peer.wallSeconds },
  };
  if (peer.status !== 0) return { ...row, verdict: 'peer failed', note: failure(peer, 'peer') };
  row.frames.peer = frameCount(peerOut);
  if (vidkit.status !== 0) return { ...row, note: failure(vidkit, 'vidkit') };
  row.frames.vidkit = frameCount(vidkitOut);

  const notes: string[] = [];
  const [vs, ps] = [frameSize(vidkitOut), frameSize(peerOut)];
  if (vs.width !== ps.width || vs.height !== ps.height) {
    return { ...row, note: `size differs: vidkit ${vs.width}x${vs.height}, peer ${ps.width}x${ps.height}` };
  }
  if (row.frames.vidkit !== row.frames.peer) notes.push(`frame count differs (compared the first ${Math.min(row.frames.vidkit, row.frames.peer)})`);
  const psnr = framePsnr(vidkitOut, peerOut, { alpha: c.format === 'webm' });
  row.psnr = psnr.map((db) => (Number.isFinite(db) ? db : null));
  row.minDb = Math.min(...psnr);
  row.meanDb = psnr.reduce((sum, db) => sum + Math.min(db, 100), 0) / psnr.length;
  let pass = row.frames.vidkit === row.frames.peer && row.minDb >= PASS_DB;
  if (c.cells) {
    const cells = cellNotes(compareCells(vidkitOut, peerOut), psnr.length);
    if (cells.length > 0) pass = false;
    notes.push(...cells);
  }
  if (projectHtml(dir).includes('<audio')) {
    const seconds = row.frames.peer / 30;
    // Windows that overlap a known difference are left out of the comparison.
    const W = LEVEL_WINDOW_SECONDS;
    const compared = (levels: number[]) => levels.map((level, i) => (c.audioDifferences?.some((d) => (i + 1) * W > d.from && i * W < d.to) ? 0 : level));
    row.audioMaxDiffDb = maxLevelDifference(compared(audioLevels(vidkitOut, seconds)), compared(audioLevels(peerOut, seconds)));
    for (const d of c.audioDifferences ?? []) notes.push(`levels not compared ${d.from}-${d.to} s: ${d.why}`);
    if (row.audioMaxDiffDb > AUDIO_TOLERANCE_DB) {
      pass = false;
      notes.push(`audio levels differ by up to ${row.audioMaxDiffDb.toFixed(1)} dB`);
    }
    row.loudnessLufs = { vidkit: integratedLoudness(vidkitOut), peer: integratedLoudness(peerOut) };
    const { vidkit: vl, peer: pl } = row.loudnessLufs;
    if ((vl === null) !== (pl === null) || (vl !== null && pl !== null && Math.abs(vl - pl) > LOUDNESS_TOLERANCE_LU)) {
      pass = false;
      notes.push(`integrated loudness ${lufs(vl)} against the peer's ${lufs(pl)}`);
    }
  }
  if (!pass && row.minDb < PASS_DB) notes.push(`${psnr.filter((db) => db < PASS_DB).length} of ${psnr.length} frames under ${PASS_DB} dB`);
  row.verdict = pass ? 'pass' : c.text ? 'FAIL (text)' : 'FAIL';
  if (notes.length > 0) row.note = notes.join('; ');
  return row;
}

const lufs = (n: number | null) => (n === null ? 'silence' : `${n.toFixed(1)} LUFS`);
const db = (n: number | null | undefined) => (n === null || n === undefined ? '-' : Number.isFinite(n) ? n.toFixed(1) : 'inf');

async function main(): Promise<void> {
  const out = opts.out ?? path.join('benches', 'results', 'compat-latest.json');
  const cases = opts.only ? opts.only.split(',').map(byName) : SUITE;
  work = opts.keep ? path.resolve(opts.keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-compat-'));
  fs.mkdirSync(work, { recursive: true });
  const rows: CompatRow[] = [];
  for (const c of cases) {
    const row = await compare(c);
    rows.push(row);
    // The run takes an hour or more; each row's outcome as it lands.
    process.stderr.write(`compat: ${row.composition}: ${row.verdict}, min ${db(row.minDb)} dB, frames ${row.frames.vidkit ?? '-'}/${row.frames.peer ?? '-'}, wall ${row.wallSeconds.vidkit.toFixed(0)}/${row.wallSeconds.peer.toFixed(0)} s${row.note ? `; ${row.note}` : ''}\n`);
  }
  const header = ['composition', 'feature', 'frames v/p', 'min dB', 'mean dB', 'audio Δ dB', 'LUFS v/p', `≥ ${PASS_DB} dB every frame`, 'note'];
  printColumns([
    header,
    ...rows.map((r) => [
      r.composition,
      r.feature,
      `${r.frames.vidkit ?? '-'}/${r.frames.peer ?? '-'}`,
      db(r.minDb),
      db(r.meanDb),
      db(r.audioMaxDiffDb),
      r.loudnessLufs ? `${db(r.loudnessLufs.vidkit)}/${db(r.loudnessLufs.peer)}` : '-',
      r.verdict,
      r.note ?? '',
    ]),
  ]);
  const failed = rows.filter((r) => r.verdict !== 'pass');
  process.stdout.write(`\n${rows.length - failed.length} of ${rows.length} pass`);
  const text = failed.filter((r) => r.text).map((r) => r.composition);
  if (text.length > 0) process.stdout.write(`; text rows below ${PASS_DB} dB (font rasterisation unless their frames show otherwise): ${text.join(', ')}`);
  process.stdout.write('\n');
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  const record = { date: new Date().toISOString(), machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model }, passDb: PASS_DB, audioToleranceDb: AUDIO_TOLERANCE_DB, loudnessToleranceLu: LOUDNESS_TOLERANCE_LU, rows };
  fs.writeFileSync(out, `${JSON.stringify(record, null, 2)}\n`);
  process.stderr.write(`compat: results written to ${out}${opts.keep ? `; renders kept in ${work}` : ''}\n`);
  if (!opts.keep) fs.rmSync(work, { recursive: true, force: true });
  // Text rows may fail on font rasterisation alone; any other failure fails the run.
  process.exitCode = failed.some((r) => !r.text) ? 1 : 0;
}

async function hyperframes(checkout: string): Promise<void> {
  const timeoutSeconds = Number(opts.timeout);
  if (!(timeoutSeconds > 0)) throw new Error(`--timeout: a number of seconds above 0 (got ${opts.timeout})`);
  const date = new Date().toISOString().slice(0, 10);
  const out = opts.out ?? path.join('benches', 'results', `${date}-compat-hyperframes.json`);
  process.exitCode = await runHyperframesFixtures({ checkout, only: opts.only?.split(','), keep: opts.keep, out, timeoutSeconds, peerRenders: opts['peer-renders']?.split(',') });
}

async function fuzz(count: number): Promise<void> {
  const dir = opts.keep ? path.resolve(opts.keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-compat-'));
  fs.mkdirSync(dir, { recursive: true });
  // The fuzzer names its own results file unless --out is given.
  await runFuzz({ count, seed: Number(opts.seed), root: ROOT, work: dir, out: opts.out, resume: opts.resume });
  if (!opts.keep) fs.rmSync(dir, { recursive: true, force: true });
}

(opts.hyperframes ? hyperframes(opts.hyperframes) : opts.fuzz ? fuzz(Number(opts.fuzz)) : main()).catch((err) => {
  process.stderr.write(`compat: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
