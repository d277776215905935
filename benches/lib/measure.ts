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
  /** With `threads`: the tree's CPU time by thread name, most first. */
  threads?: ThreadTime[];
}

/** The CPU time of a process tree's threads of one name (Chromium's and Node's name their threads). */
export interface ThreadTime {
  name: string;
  /** User and system seconds, summed over the threads of this name. */
  cpuSeconds: number;
  /** The system (kernel) part: page faults, system calls. */
  systemSeconds: number;
  /** Page faults served without reading a disk: each first touch of fresh memory is one. */
  minorFaults: number;
  /** How many threads of this name ran. */
  threads: number;
}

const SAMPLE_MS = 100;
const PAGE_SIZE = 4096;

/**
 * Runs a command, sampling the RSS of its whole process tree every 100 ms. With `timeoutMs`, the
 * command runs in its own process group, which is sent SIGTERM past the limit (so its cleanup runs)
 * and SIGKILL 5 s later. With `threads`, each sample also reads every thread's times and faults
 * (one more read per thread of the tree, over a hundred on a 2-worker render, so it is asked for).
 */
export function measure(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs?: number, threads = false): Promise<Measured> {
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
    const threadTimes = new Map<string, ThreadSample>();
    const sample = () => {
      const tree = sampleTree(child.pid!);
      peak = Math.max(peak, tree.rssBytes);
      for (const [process, ticks] of tree.cpuTicks) cpuTicks.set(process, ticks);
      if (threads) for (const pid of tree.pids) sampleThreads(pid, threadTimes);
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
      resolve({ status: code ?? -1, wallSeconds, peakRssBytes: peak, cpuSeconds, stdout, stderr, timedOut, ...(threads ? { threads: byName(threadTimes) } : {}) });
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

/** The fields of a /proc stat line read here, by their number in proc(5). */
const STAT = { ppid: 4, minflt: 10, utime: 14, stime: 15, starttime: 22, rss: 24 } as const;

/**
 * A process's or thread's /proc stat line: its command name and its numeric fields by number. The
 * name is parenthesised and may hold spaces and parentheses, so the fields are counted from after
 * its last `)`, where field 3 begins.
 */
function readStat(file: string): { name: string; field: (n: number) => number } {
  const stat = fs.readFileSync(file, 'utf8');
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return { name: stat.slice(stat.indexOf('(') + 1, close), field: (n) => Number(fields[n - 3]) };
}

/**
 * Sum of RSS over `root` and all its descendants, and each one's CPU time so far in clock ticks,
 * keyed by pid and start time (a pid can be reused), read from /proc.
 */
function sampleTree(root: number): { rssBytes: number; cpuTicks: Map<string, number>; pids: number[] } {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  const cpu = new Map<number, [string, number]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const { field } = readStat(`/proc/${entry}/stat`);
      const pid = Number(entry);
      const ppid = field(STAT.ppid);
      rss.set(pid, field(STAT.rss) * PAGE_SIZE);
      cpu.set(pid, [`${pid}@${field(STAT.starttime)}`, field(STAT.utime) + field(STAT.stime)]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid)!.push(pid);
    } catch {
      // The process ended between readdir and read.
    }
  }
  let rssBytes = 0;
  const cpuTicks = new Map<string, number>();
  const pids: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    pids.push(pid);
    rssBytes += rss.get(pid) ?? 0;
    const ticks = cpu.get(pid);
    if (ticks) cpuTicks.set(...ticks);
    stack.push(...(children.get(pid) ?? []));
  }
  return { rssBytes, cpuTicks, pids };
}

interface ThreadSample {
  name: string;
  userTicks: number;
  systemTicks: number;
  minorFaults: number;
}

/**
 * Records the times and faults of each thread of `pid` so far, keyed by process, thread and start
 * time: a thread that ends keeps its last sample (at most one sampling period of it is missed).
 */
function sampleThreads(pid: number, into: Map<string, ThreadSample>): void {
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return;
  }
  for (const tid of tids) {
    try {
      const { name, field } = readStat(`/proc/${pid}/task/${tid}/stat`);
      into.set(`${pid}/${tid}@${field(STAT.starttime)}`, { name, userTicks: field(STAT.utime), systemTicks: field(STAT.stime), minorFaults: field(STAT.minflt) });
    } catch {
      // The thread ended between readdir and read.
    }
  }
}

/** Threads summed by name (in clock ticks, turned into seconds once), most CPU first. */
function byName(samples: Map<string, ThreadSample>): ThreadTime[] {
  const names = new Map<string, ThreadSample & { threads: number }>();
  for (const t of samples.values()) {
    const sum = names.get(t.name) ?? { name: t.name, userTicks: 0, systemTicks: 0, minorFaults: 0, threads: 0 };
    sum.userTicks += t.userTicks;
    sum.systemTicks += t.systemTicks;
    sum.minorFaults += t.minorFaults;
    sum.threads += 1;
    names.set(t.name, sum);
  }
  return [...names.values()]
    .map((t) => ({ name: t.name, cpuSeconds: (t.userTicks + t.systemTicks) / CLOCK_TICKS, systemSeconds: t.systemTicks / CLOCK_TICKS, minorFaults: t.minorFaults, threads: t.threads }))
    .sort((a, b) => b.cpuSeconds - a.cpuSeconds);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
