import type { Row } from '../run';

const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);

/** The bench table: one line per tool and composition, ratios against the peer on vidkit's line. */
export function printTable(rows: Row[], sweep?: Array<{ workers: string; medianWall: number }>): void {
  const header = ['composition', 'res', 'tool', 'wall s', 'CPU s', 'fps', 'peak RSS MB', 'size MB', 'PSNR dB', 'frames', 'wall ratio', 'PSNR diff', 'size ratio', 'RSS ratio', 'render fps', 'capture-only fps', 'e2e/capture', '1st frame s'];
  const lines: string[][] = [header];
  for (const r of rows) {
    const v = r.vidkit;
    const p = r.peer;
    lines.push([
      r.composition, `${r.resolution}p`, `vidkit (${r.workers}w)`, f1(v.medianWall), f1(v.medianCpu), f1(v.fps), f1(v.peakRssMb), f2(v.sizeMb), f2(v.psnrDb), String(v.frames),
      p ? f2(v.medianWall / p.medianWall) : '-', p ? f2(v.psnrDb - p.psnrDb) : '-', p ? f2(v.sizeMb / p.sizeMb) : '-', p ? f2(v.peakRssMb / p.peakRssMb) : '-',
      f1(v.renderFps!), f1(r.captureOnlyFps), `${Math.round((v.renderFps! / r.captureOnlyFps) * 100)}%`, v.firstFrameSeconds !== undefined ? f2(v.firstFrameSeconds) : '-',
    ]);
    if (p) lines.push(['', '', 'peer', f1(p.medianWall), f1(p.medianCpu), f1(p.fps), f1(p.peakRssMb), f2(p.sizeMb), f2(p.psnrDb), String(p.frames), '', '', '', '', '', '', '', '']);
  }
  printColumns(lines);
  if (sweep) {
    const best = Math.min(...sweep.filter((s) => s.workers !== 'auto').map((s) => s.medianWall));
    process.stdout.write('\nworkers | median wall s | vs best fixed\n');
    for (const s of sweep) process.stdout.write(`${s.workers.padEnd(7)} | ${f1(s.medianWall).padEnd(13)} | ${f2(s.medianWall / best)}\n`);
  }
}

/** Prints rows of cells as aligned columns separated by ` | `; the first row is the header. */
export function printColumns(lines: string[][]): void {
  const widths = lines[0].map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  for (const l of lines) process.stdout.write(`${l.map((c, i) => c.padEnd(widths[i])).join(' | ')}\n`);
}

/** How many thread names `--threads` lists per tool and row; the rest are summed as `other`. */
const THREAD_NAMES = 10;

/**
 * `--threads`: where each tool's CPU time went, by thread name (medians of the runs): its system
 * part and minor page faults, so that time lost to faulting in fresh memory shows as such.
 */
export function printThreads(rows: Row[]): void {
  const lines: string[][] = [['composition', 'res', 'tool', 'thread', 'threads', 'CPU s', 'system s', 'minor faults']];
  for (const r of rows) {
    for (const result of [r.vidkit, r.peer]) {
      if (!result?.threads) continue;
      const shown = result.threads.slice(0, THREAD_NAMES);
      const rest = result.threads.slice(THREAD_NAMES);
      const sum = (pick: (t: (typeof rest)[number]) => number) => rest.reduce((a, t) => a + pick(t), 0);
      const entries = rest.length > 0 ? [...shown, { name: 'other', threads: sum((t) => t.threads), cpuSeconds: sum((t) => t.cpuSeconds), systemSeconds: sum((t) => t.systemSeconds), minorFaults: sum((t) => t.minorFaults) }] : shown;
      for (const t of entries) lines.push([r.composition, `${r.resolution}p`, result.tool, t.name, String(t.threads), f1(t.cpuSeconds), f1(t.systemSeconds), String(Math.round(t.minorFaults))]);
    }
  }
  process.stdout.write('\n');
  printColumns(lines);
}
