import { spawn } from 'node:child_process';
import * as fs from 'node:fs';

export interface Measured {
  status: number;
  wallSeconds: number;
  /** Peak of the summed resident memory of the whole process tree (browser children included). */
  peakRssBytes: number;
  /**
   * CPU seconds (user + system) of the whole process tree: each process's own time as last sampled.
   * Read from /proc rather than from the exit status, because a browser's processes are not always
   * reaped through the command (its rusage missed 27 of 55 s on a 1080p render). At most one
   * sampling period of each process's last moments is missed.
   */
  cpuSeconds: number;
  stdout: string;
  stderr: string;
  /** Stopped past its time limit. */
  timedOut: boolean;
}

const SAMPLE_MS = 100;
const PAGE_SIZE = 4096;

/**
 * Runs a command, sampling the RSS of its whole process tree every 100 ms. With `timeoutMs`, the
 * command runs in its own process group, which is sent SIGTERM past the limit (so its cleanup runs)
 * and SIGKILL 5 s later.
 */
export function measure(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs?: number): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: timeoutMs !== undefined });
    let timedOut = false;
    const deadline =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            signalGroup(child.pid!, 'SIGTERM');
            setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), 5000).unref();
          }, timeoutMs);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    let peak = 0;
    const cpuTicks = new Map<string, number>();
    const sample = () => {
      const tree = sampleTree(child.pid!);
      peak = Math.max(peak, tree.rssBytes);
      for (const [process, ticks] of tree.cpuTicks) cpuTicks.set(process, ticks);
    };
    const timer = setInterval(sample, SAMPLE_MS);
    child.on('error', (err) => {
      clearInterval(timer);
      clearTimeout(deadline);
      reject(err);
    });
    child.on('close', (code) => {
      clearInterval(timer);
      clearTimeout(deadline);
      const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (timedOut) stderr += `\nerror: killed after ${timeoutMs! / 1000} s\n`;
      const cpuSeconds = [...cpuTicks.values()].reduce((a, b) => a + b, 0) / CLOCK_TICKS;
      resolve({ status: code ?? -1, wallSeconds, peakRssBytes: peak, cpuSeconds, stdout, stderr, timedOut });
    });
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group has already exited.
  }
}

/** The kernel's clock ticks per second (USER_HZ), the unit of /proc's CPU times: 100 on Linux. */
const CLOCK_TICKS = 100;

/**
 * Sum of RSS over `root` and all its descendants, and each one's CPU time so far in clock ticks,
 * keyed by pid and start time (a pid can be reused), read from /proc.
 */
function sampleTree(root: number): { rssBytes: number; cpuTicks: Map<string, number> } {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  const cpu = new Map<number, [string, number]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the parenthesised command name: state ppid ... utime and stime are fields 14
      // and 15 overall, starttime 22, rss 24.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pid = Number(entry);
      const ppid = Number(fields[1]);
      rss.set(pid, Number(fields[21]) * PAGE_SIZE);
      cpu.set(pid, [`${pid}@${fields[19]}`, Number(fields[11]) + Number(fields[12])]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid)!.push(pid);
    } catch {
      // The process ended between readdir and read.
    }
  }
  let rssBytes = 0;
  const cpuTicks = new Map<string, number>();
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    rssBytes += rss.get(pid) ?? 0;
    const ticks = cpu.get(pid);
    if (ticks) cpuTicks.set(...ticks);
    stack.push(...(children.get(pid) ?? []));
  }
  return { rssBytes, cpuTicks };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
