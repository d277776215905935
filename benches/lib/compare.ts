import * as os from 'node:os';
import * as path from 'node:path';
import type { Row } from '../run';
import { printColumns } from './table';

/** What makes two bench results comparable: the same cores, CPU model and memory. */
export interface MachineClass {
  cpus: number;
  model: string;
  memGb: number;
}

/** A slowdown beyond this share of the committed time fails the guard. */
export const WORSE_BY = 0.1;
/** Runs a compared median needs, as the committed results were measured. */
export const COMPARE_RUNS = 3;

export function thisMachine(): MachineClass {
  return { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown', memGb: os.totalmem() / 2 ** 30 };
}

const describe = (m: MachineClass) => `${m.cpus} cores of ${m.model}, ${Math.round(m.memGb)} GiB`;

/**
 * Why a results file measured on `theirs` cannot judge a run on `ours`, or undefined when they are
 * of one class. Memory is compared in whole GiB: the kernel's share moves it by a few MiB.
 */
export function classMismatch(file: string, theirs: Partial<MachineClass> | undefined, ours: MachineClass): string | undefined {
  if (!theirs || theirs.cpus === undefined || theirs.model === undefined || theirs.memGb === undefined) {
    return `${file} does not record its machine's cores, CPU model and memory: compare with a results file that does`;
  }
  const same = theirs.cpus === ours.cpus && theirs.model === ours.model && Math.round(theirs.memGb) === Math.round(ours.memGb);
  if (same) return undefined;
  return `${file} was measured on ${describe(theirs as MachineClass)}; this machine has ${describe(ours)}: compare only with results of the same machine class`;
}

export interface Verdict {
  row: string;
  metric: 'wall s' | 'CPU s';
  committed?: number;
  now: number;
  /** now / committed - 1, when both are known. */
  change?: number;
  worse: boolean;
  /** Why there is nothing to compare with: the committed file lacks the row, or this measure of it. */
  missing?: 'no such row committed' | 'not measured then';
}

const rowKey = (r: Pick<Row, 'composition' | 'resolution'>) => `${r.composition}-${r.resolution}p`;

/** vidkit's median wall and CPU time of each row against the committed row of the same composition and resolution. */
export function compareRows(committed: Row[], now: Row[]): Verdict[] {
  const verdicts: Verdict[] = [];
  for (const row of now) {
    const before = committed.find((c) => rowKey(c) === rowKey(row));
    const pairs: Array<[Verdict['metric'], number | undefined, number | undefined]> = [
      ['wall s', before?.vidkit.medianWall, row.vidkit.medianWall],
      ['CPU s', before?.vidkit.medianCpu, row.vidkit.medianCpu],
    ];
    for (const [metric, then, current] of pairs) {
      if (current === undefined) continue;
      const change = then === undefined ? undefined : current / then - 1;
      const missing = before === undefined ? 'no such row committed' : then === undefined ? 'not measured then' : undefined;
      verdicts.push({ row: rowKey(row), metric, committed: then, now: current, change, worse: change !== undefined && change > WORSE_BY, missing });
    }
  }
  return verdicts;
}

/** Prints the comparison; true when no row got worse by more than {@link WORSE_BY}. */
export function printComparison(file: string, verdicts: Verdict[]): boolean {
  process.stdout.write(`\nvidkit against ${path.basename(file)} (medians; worse by more than ${WORSE_BY * 100}% fails):\n`);
  const lines = [['row', 'metric', 'committed', 'now', 'change', 'verdict']];
  for (const v of verdicts) {
    lines.push([
      v.row,
      v.metric,
      v.committed === undefined ? '-' : v.committed.toFixed(1),
      v.now.toFixed(1),
      v.change === undefined ? '-' : `${v.change >= 0 ? '+' : ''}${(v.change * 100).toFixed(1)}%`,
      v.missing ?? (v.worse ? 'SLOWER' : 'ok'),
    ]);
  }
  printColumns(lines);
  const slower = verdicts.filter((v) => v.worse);
  if (slower.length > 0) process.stdout.write(`slower than committed: ${slower.map((v) => `${v.row} (${v.metric})`).join(', ')}\n`);
  return slower.length === 0;
}
