import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';

/**
 * What a render leaves behind if the process ends early: browser processes and temporary paths
 * (segments, partial outputs, browser profiles). A signal handler removes them all synchronously
 * before the process exits, so no Chromium outlives vidkit and no half-written file stays.
 */
const processes = new Set<ChildProcess>();
const paths = new Set<string>();

export function trackProcess(proc: ChildProcess): void {
  processes.add(proc);
}

export function untrackProcess(proc: ChildProcess): void {
  processes.delete(proc);
}

export function trackPath(p: string): void {
  paths.add(p);
}

export function untrackPath(p: string): void {
  paths.delete(p);
}

/**
 * Kills `proc` and its process group: puppeteer starts browsers detached, each the leader of its
 * own group, and a distribution's launcher script (Debian's /usr/bin/chromium-headless-shell) runs
 * the real browser as its child, which killing the script alone leaves running.
 */
export function killGroup(proc: ChildProcess): void {
  if (proc.pid === undefined) return;
  try {
    process.kill(-proc.pid, 'SIGKILL');
  } catch {
    // The group is gone already; the process may still be ours alone.
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  }
}

/** Kills every tracked process and removes every tracked path, now. */
export function removeLeftovers(): void {
  for (const proc of processes) killGroup(proc);
  processes.clear();
  for (const p of paths) {
    try {
      fs.rmSync(p, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // Nothing more can be done on the way out; the path is under the system's temporary directory.
    }
  }
  paths.clear();
}
