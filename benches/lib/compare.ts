import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Row } from '../run';
import { printColumns } from './table';

/** What makes two bench results comparable: the same cores, CPU model and memory. */
export interface MachineClass {
  cpus: number;
  model: string;
  memGb: number;
  /**
   * CPU seconds of {@link SPEED_PROBE}, the median of {@link SPEED_PROBE_RUNS}: lower is faster.
   * Recorded and printed, not judged: see {@link compareRows}.
   */
  speedSeconds?: number;
}

/**
 * The speed probe: one x264 encode on one thread of ffmpeg's own test pattern, nothing read or
 * written, so only the CPU decides its time (user + system seconds, as ffmpeg's `-benchmark`
 * reports them).
 */
const SPEED_PROBE = ['-v', 'info', '-nostats', '-hide_banner', '-benchmark', '-f', 'lavfi', '-i', 'testsrc2=s=1280x720:r=30:d=2', '-c:v', 'libx264', '-preset', 'medium', '-threads', '1', '-f', 'null', '-'];
const SPEED_PROBE_RUNS = 5;

/** A slowdown beyond this share of the committed time fails the guard. */
export const WORSE_BY = 0.1;
/** A move of the speed probe beyond this share is printed with the comparison ({@link probeMoved}). */
const PROBE_MOVED_BY = 0.1;
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
  /** vidkit's median then and now. */
  committed?: number;
  now: number;
  /** vidkit's median over the peer's of the same run, then and now. */
  committedRatio?: number;
  nowRatio?: number;
  /** nowRatio / committedRatio - 1, when both are known. */
  change?: number;
  worse: boolean;
  /** Why there is nothing to judge by: the committed file lacks the row, this measure of it, or the peer's. */
  missing?: 'no such row committed' | 'not measured then' | 'no peer times';
}

const rowKey = (r: Pick<Row, 'composition' | 'resolution'>) => `${r.composition}-${r.resolution}p`;

/**
 * vidkit's median wall and CPU time of each row, judged as a share of the peer's in the same run
 * against that share in the committed row of the same composition and resolution. The same 2-core
 * virtual machine has run the same row 1.9x apart on different days, and its speed probe moves by
 * 20% within minutes, vidkit's and the peer's times alike; runs that alternate the two tools see
 * the same machine, so their ratio moves with vidkit alone (gsap-text: 0.43x on one day, 0.42x on
 * a machine 1.9x slower).
 */
export function compareRows(committed: Row[], now: Row[]): Verdict[] {
  const verdicts: Verdict[] = [];
  for (const row of now) {
    const before = committed.find((c) => rowKey(c) === rowKey(row));
    const pairs: Array<[Verdict['metric'], (t: Row['vidkit']) => number | undefined]> = [
      ['wall s', (t) => t.medianWall],
      ['CPU s', (t) => t.medianCpu],
    ];
    for (const [metric, of] of pairs) {
      const current = of(row.vidkit);
      if (current === undefined) continue;
      const then = before ? of(before.vidkit) : undefined;
      const ratio = (r: Row | undefined) => {
        const v = r ? of(r.vidkit) : undefined;
        const p = r?.peer ? of(r.peer) : undefined;
        return v !== undefined && p ? v / p : undefined;
      };
      const committedRatio = ratio(before);
      const nowRatio = ratio(row);
      const change = committedRatio !== undefined && nowRatio !== undefined ? nowRatio / committedRatio - 1 : undefined;
      const missing = before === undefined ? 'no such row committed' : then === undefined ? 'not measured then' : change === undefined ? 'no peer times' : undefined;
      verdicts.push({ row: rowKey(row), metric, committed: then, now: current, committedRatio, nowRatio, change, worse: change !== undefined && change > WORSE_BY, missing });
    }
  }
  return verdicts;
}

/**
 * How far the machine's speed moved between the committed results and now (the probe's relative
 * change), when more than {@link PROBE_MOVED_BY}: the share of the peer moves with it too, less
 * than seconds do (benches/README.md gives a slowdown it hid).
 */
function probeMoved(committed: MachineClass | undefined, now: MachineClass): number | undefined {
  if (committed?.speedSeconds === undefined || now.speedSeconds === undefined) return undefined;
  const moved = Math.abs(now.speedSeconds / committed.speedSeconds - 1);
  return moved > PROBE_MOVED_BY ? moved : undefined;
}

/** Prints the comparison; true when no row got worse by more than {@link WORSE_BY}. */
export function printComparison(file: string, verdicts: Verdict[], machines: { committed?: MachineClass; now: MachineClass }): boolean {
  const probe = (m?: MachineClass) => (m?.speedSeconds === undefined ? '-' : `${m.speedSeconds.toFixed(2)} CPU s`);
  process.stdout.write(
    `\nvidkit against ${path.basename(file)} (medians; vidkit/peer of the same run, worse by more than ${WORSE_BY * 100}% fails; ` +
      `speed probe then ${probe(machines.committed)}, now ${probe(machines.now)}):\n`,
  );
  const lines = [['row', 'metric', 'vidkit then', 'vidkit now', 'x peer then', 'x peer now', 'change', 'verdict']];
  const fixed = (n: number | undefined, digits: number) => (n === undefined ? '-' : n.toFixed(digits));
  for (const v of verdicts) {
    lines.push([
      v.row,
      v.metric,
      fixed(v.committed, 1),
      fixed(v.now, 1),
      fixed(v.committedRatio, 3),
      fixed(v.nowRatio, 3),
      v.change === undefined ? '-' : `${v.change >= 0 ? '+' : ''}${(v.change * 100).toFixed(1)}%`,
      v.missing ?? (v.worse ? 'SLOWER' : 'ok'),
    ]);
  }
  printColumns(lines);
  const moved = probeMoved(machines.committed, machines.now);
  if (moved !== undefined) {
    process.stdout.write(
      `the speed probe moved by ${(moved * 100).toFixed(0)}% since then, and vidkit's share of the peer moves with the machine's speed too: ` +
        'a change within a few percent of the line may be the machine; bench a baseline in this hour (--out elsewhere) and compare against it\n',
    );
  }
  const slower = verdicts.filter((v) => v.worse);
  if (slower.length > 0) process.stdout.write(`slower than committed: ${slower.map((v) => `${v.row} (${v.metric})`).join(', ')}\n`);
  return slower.length === 0;
}
