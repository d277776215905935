import { spawn } from 'node:child_process';
import * as fs from 'node:fs';

export interface Measured {
  status: number;
  wallSeconds: number;
  /** Peak of the summed resident memory of the whole process tree (browser children included). */
  peakRssBytes: number;
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
    const timer = setInterval(() => {
      peak = Math.max(peak, treeRss(child.pid!));
    }, SAMPLE_MS);
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
      resolve({ status: code ?? -1, wallSeconds, peakRssBytes: peak, stdout, stderr, timedOut });
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

/** Sum of RSS over `root` and all its descendants, read from /proc. */
function treeRss(root: number): number {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the parenthesised command name: state ppid ... rss is field 24 overall.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pid = Number(entry);
      const ppid = Number(fields[1]);
      rss.set(pid, Number(fields[21]) * PAGE_SIZE);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid)!.push(pid);
    } catch {
      // The process ended between readdir and read.
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    total += rss.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
