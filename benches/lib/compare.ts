import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Row } from '../run';
import { printColumns } from './table';

/**
 * What makes two bench results comparable: the same cores, CPU model and memory, and the same
 * speed. Virtual machines that report one CPU model and core count have run the same renders,
 * vidkit's and the peer's alike, 1.9x apart on different days, so the model alone does not say a
 * machine is as fast as another.
 */
export interface MachineClass {
  cpus: number;
  model: string;
  memGb: number;
  /** CPU seconds of {@link SPEED_PROBE}, the median of {@link SPEED_PROBE_RUNS}: lower is faster. */
  speedSeconds: number;
}

/**
 * The speed probe: one x264 encode on one thread of ffmpeg's own test pattern, nothing read or
 * written, so only the CPU decides its time. Its CPU seconds (user + system, as ffmpeg's
 * `-benchmark` reports them) move little with other load, where wall time would.
 */
const SPEED_PROBE = ['-v', 'info', '-nostats', '-hide_banner', '-benchmark', '-f', 'lavfi', '-i', 'testsrc2=s=1280x720:r=30:d=2', '-c:v', 'libx264', '-preset', 'medium', '-threads', '1', '-f', 'null', '-'];
const SPEED_PROBE_RUNS = 5;
/** Two machines whose probes differ by more than this share are of different speeds. */
export const SPEED_TOLERANCE = 0.1;

/** A slowdown beyond this share of the committed time fails the guard. */
export const WORSE_BY = 0.1;
/** Runs a compared median needs, as the committed results were measured. */
export const COMPARE_RUNS = 3;

let measured: MachineClass | undefined;

/** This machine's class; the speed probe runs once per bench, on the first call. */
export function thisMachine(): MachineClass {
  measured ??= { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown', memGb: os.totalmem() / 2 ** 30, speedSeconds: speedProbe() };
  return measured;
}

function speedProbe(): number {
  const times = Array.from({ length: SPEED_PROBE_RUNS }, () => {
    const run = spawnSync('ffmpeg', SPEED_PROBE, { encoding: 'utf8' });
    const m = /utime=([\d.]+)s stime=([\d.]+)s/.exec(run.stderr ?? '');
    if (run.status !== 0 || !m) throw new Error(`the speed probe (ffmpeg ${SPEED_PROBE.join(' ')}) failed or printed no CPU times: ${(run.stderr ?? String(run.error)).slice(-300)}`);
    return Number(m[1]) + Number(m[2]);
  }).sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const describe = (m: Omit<MachineClass, 'speedSeconds'>) => `${m.cpus} cores of ${m.model}, ${Math.round(m.memGb)} GiB`;

/**
 * Why a results file measured on `theirs` cannot judge a run on `ours`, or undefined when they are
 * of one class. Memory is compared in whole GiB: the kernel's share moves it by a few MiB.
 */
export function classMismatch(file: string, theirs: Partial<MachineClass> | undefined, ours: MachineClass): string | undefined {
  if (!theirs || theirs.cpus === undefined || theirs.model === undefined || theirs.memGb === undefined) {
    return `${file} does not record its machine's cores, CPU model and memory: compare with a results file that does`;
  }
  const same = theirs.cpus === ours.cpus && theirs.model === ours.model && Math.round(theirs.memGb) === Math.round(ours.memGb);
  if (!same) return `${file} was measured on ${describe(theirs as MachineClass)}; this machine has ${describe(ours)}: compare only with results of the same machine class`;
  if (theirs.speedSeconds === undefined) {
    return `${file} does not record its machine's speed (the speed probe came later): machines of one model have differed 1.9x, so its times cannot judge this run; commit results measured with the probe (--out, --note) and compare with those`;
  }
  const change = ours.speedSeconds / theirs.speedSeconds - 1;
  if (Math.abs(change) <= SPEED_TOLERANCE) return undefined;
  return `${file} was measured on a machine that ran the speed probe in ${theirs.speedSeconds.toFixed(2)} CPU s; this one takes ${ours.speedSeconds.toFixed(2)} s (${(Math.abs(change) * 100).toFixed(0)}% ${change > 0 ? 'slower' : 'faster'}, more than ${SPEED_TOLERANCE * 100}%): its times say nothing about a change in vidkit; compare on a machine of the same speed`;
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
