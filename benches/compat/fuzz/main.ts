/**
 * `npm run compat -- --fuzz N --seed S`: N generated compositions (compose.ts) rendered by the peer
 * and by vidkit and compared frame by frame; each mismatch is reduced (reduce.ts) to a smallest set
 * of parts that still differs and kept as a regression row of the compatibility suite (a folder
 * under compositions/ and a line of fuzz/rows.json), unless an earlier row already holds the same
 * reduced parts. Prints a summary; writes JSON after every case, so a run stopped part-way can go
 * on with --resume. The oracle (oracle.ts) compares whole frames and each cell of them.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { printColumns } from '../../lib/table';
import { drawsText, FuzzCase, generateCase } from './compose';
import { PASS_DB } from '../suite';
import { lowestCellDb, Outcome, renderAndCompare, writeProject } from './oracle';
import { describePart, Part } from './parts';
import { reduce } from './reduce';

/** What the oracle compares, written in the results file: a run compared otherwise is not resumed. */
const COMPARES = 'frames and cells';

/** Renders one reduction may spend (each renders with both tools). */
const REDUCE_TESTS = 12;

export interface FuzzRow {
  name: string;
  feature: string;
  text?: true;
}

interface CaseRecord {
  index: number;
  parts: string[];
  verdict: Outcome['verdict'];
  /** Lowest PSNR of a whole frame, and of any cell of a frame. */
  minDb: number | null;
  minCellDb: number | null;
  note?: string;
  wallSeconds: Outcome['wallSeconds'];
  reduced?: { parts: string[]; minDb: number | null; worstFrame: number | null; note?: string; tests: number; row: string; newRow: boolean };
}

export interface FuzzOptions {
  count: number;
  seed: number;
  root: string;
  work: string;
  out?: string;
  /** Keeps the cases the results file at `out` already holds for this seed and renders only the others. */
  resume?: boolean;
}

export async function runFuzz(opts: FuzzOptions): Promise<void> {
  const rowsFile = path.join(opts.root, 'benches', 'compat', 'fuzz', 'rows.json');
  const compositions = path.join(opts.root, 'benches', 'compat', 'compositions');
  const out = opts.out ?? path.join(opts.root, 'benches', 'results', `${new Date().toISOString().slice(0, 10)}-compat-fuzz-seed${opts.seed}.json`);
  const records: CaseRecord[] = opts.resume ? earlierCases(out, opts.seed) : [];
  const done = new Set(records.map((r) => r.index).filter((i) => i < opts.count));
  if (opts.resume) log(`resuming ${out}: ${done.size} of the ${opts.count} cases are there already`);
  /** Reduced part sets already kept as rows, by what they are regardless of their cells. */
  const kept = new Map<string, string>();
  for (const row of readRows(rowsFile)) kept.set(signatureOfRow(compositions, row.name), row.name);

  const write = () => {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const record = { date: new Date().toISOString(), machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model }, seed: opts.seed, count: opts.count, passDb: PASS_DB, compares: COMPARES, cases: records };
    fs.writeFileSync(out, `${JSON.stringify(record, null, 2)}\n`);
  };

  for (let index = 0; index < opts.count; index++) {
    if (done.has(index)) continue;
    const c = generateCase(opts.seed, index);
    const name = caseName(c);
    const outcome = await renderAndCompare(opts.root, c.parts, name, opts.work);
    const record: CaseRecord = { index, parts: c.parts.map(describePart), verdict: outcome.verdict, minDb: finite(outcome.minDb), minCellDb: finite(lowestCellDb(outcome.cells)), note: outcome.note, wallSeconds: outcome.wallSeconds };
    log(`case ${index}: ${outcome.verdict}, min ${db(outcome.minDb)} dB, cells ${db(lowestCellDb(outcome.cells))} dB${outcome.note ? `; ${outcome.note}` : ''} (${record.parts.join(' ')})`);
    const ownRow = outcome.verdict === 'differs' ? readRows(rowsFile).find((r) => r.name === name) : undefined;
    if (ownRow) {
      // Reduced and kept by an earlier run of this seed: its row stands for it.
      record.reduced = { parts: titleParts(compositions, name), minDb: null, worstFrame: null, note: 'reduced by an earlier run', tests: 0, row: name, newRow: false };
      log(`case ${index}: kept as row ${name} by an earlier run`);
    } else if (outcome.verdict === 'differs') {
      let step = 0;
      const outcomes = new Map<string, Outcome>();
      const reduction = await reduce(
        c.parts,
        async (parts) => {
          const o = await renderAndCompare(opts.root, parts, `${name}-r${++step}`, opts.work);
          outcomes.set(JSON.stringify(parts), o);
          log(`case ${index}: reduce ${step}: ${o.verdict}, min ${db(o.minDb)} dB, cells ${db(lowestCellDb(o.cells))} dB (${parts.map(describePart).join(' ')})`);
          return o.verdict === 'differs';
        },
        REDUCE_TESTS,
      );
      const final = outcomes.get(JSON.stringify(reduction.parts)) ?? outcome;
      const signature = signatureOf(reduction.parts);
      const existing = kept.get(signature);
      const row = existing ?? name;
      if (!existing) {
        keepRow(compositions, rowsFile, c, reduction.parts, final);
        kept.set(signature, name);
      }
      record.reduced = { parts: reduction.parts.map(describePart), minDb: finite(final.minDb), worstFrame: final.worstFrame, note: final.note, tests: reduction.tests, row, newRow: !existing };
      log(`case ${index}: reduced to ${record.reduced.parts.join(' ')} in ${reduction.tests} tests, min ${db(final.minDb)} dB; ${existing ? `same as row ${existing}` : `kept as row ${name}`}`);
    }
    records.push(record);
    records.sort((a, b) => a.index - b.index);
    write();
  }
  summarise(records.filter((r) => r.index < opts.count), out);
}

/**
 * The cases an earlier run of `seed` wrote to `out` (a run stopped part-way writes every case it
 * finished); none when there is no such file. A file of another seed is refused: resuming it would
 * mix two runs' cases.
 */
function earlierCases(out: string, seed: number): CaseRecord[] {
  if (!fs.existsSync(out)) return [];
  const earlier = JSON.parse(fs.readFileSync(out, 'utf8')) as { seed?: number; compares?: string; cases?: CaseRecord[] };
  if (earlier.seed !== seed) throw new Error(`--resume: ${out} holds seed ${earlier.seed}'s cases, not seed ${seed}'s`);
  if (earlier.compares !== COMPARES) throw new Error(`--resume: ${out} was compared by whole frames only; start a new run (another --out)`);
  return earlier.cases ?? [];
}

function caseName(c: FuzzCase): string {
  return `fuzz-s${c.seed}-c${c.index}`;
}

/** Writes the reduced composition under compositions/ and lists it in rows.json. */
function keepRow(compositions: string, rowsFile: string, c: FuzzCase, parts: Part[], outcome: Outcome): void {
  const name = caseName(c);
  const described = parts.map(describePart).join(' ');
  writeProject(parts, `fuzzer seed ${c.seed} case ${c.index}, reduced: ${described}`, path.join(compositions, name));
  const row: FuzzRow = { name, feature: `fuzz seed ${c.seed} case ${c.index} (reduced; min ${db(outcome.minDb)} dB, cells ${db(lowestCellDb(outcome.cells))} dB when found): ${described}` };
  if (drawsText(parts)) row.text = true;
  fs.mkdirSync(path.dirname(rowsFile), { recursive: true });
  fs.writeFileSync(rowsFile, `${JSON.stringify([...readRows(rowsFile), row], null, 2)}\n`);
}

function readRows(rowsFile: string): FuzzRow[] {
  return fs.existsSync(rowsFile) ? (JSON.parse(fs.readFileSync(rowsFile, 'utf8')) as FuzzRow[]) : [];
}

/** Kinds and options of a part set, cells left out, so the same reduced cause found twice is kept once. */
function signatureOf(parts: Part[]): string {
  return parts.map(describePart).sort().join(' ');
}

/** A kept row's reduced parts, read back from the title line its index.html carries. */
function titleParts(compositions: string, name: string): string[] {
  const file = path.join(compositions, name, 'index.html');
  const title = fs.existsSync(file) ? /<!-- .*reduced: (.*) -->/.exec(fs.readFileSync(file, 'utf8'))?.[1] : undefined;
  return title ? title.split(' ') : [name];
}

function signatureOfRow(compositions: string, name: string): string {
  return titleParts(compositions, name).sort().join(' ');
}

function summarise(records: CaseRecord[], out: string): void {
  const compared = records.filter((r) => r.verdict !== 'peer failed');
  const matched = compared.filter((r) => r.verdict === 'match').length;
  const mismatches = records.filter((r) => r.reduced);
  if (mismatches.length > 0) {
    printColumns([
      ['case', 'min dB', 'reduced to', 'reduced min dB', 'worst frame', 'row', 'note'],
      ...mismatches.map((r) => [String(r.index), db(r.minDb), r.reduced!.parts.join(' '), db(r.reduced!.minDb), String(r.reduced!.worstFrame ?? '-'), `${r.reduced!.row}${r.reduced!.newRow ? ' (new)' : ''}`, r.reduced!.note ?? '']),
    ]);
  }
  const peerFailed = records.length - compared.length;
  const percent = compared.length > 0 ? ((100 * matched) / compared.length).toFixed(1) : '-';
  process.stdout.write(`\n${matched} of ${compared.length} match (${percent}%)${peerFailed ? `; the peer failed on ${peerFailed} more` : ''}\n`);
  log(`results written to ${out}`);
}

function log(line: string): void {
  process.stderr.write(`compat fuzz: ${line}\n`);
}

const finite = (n: number | null) => (n === null || Number.isFinite(n) ? n : null);
const db = (n: number | null | undefined) => (n === null || n === undefined ? '-' : Number.isFinite(n) ? n.toFixed(1) : 'inf');
