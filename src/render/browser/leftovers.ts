import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { ProcessEntry, processTable } from './process-table';

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

/** Every process but this one that is neither dead nor a zombie. */
const liveProcesses = () => processTable().filter((p) => p.pid !== process.pid && p.state !== 'Z' && p.state !== 'X');

/**
 * Kills `proc`'s group as {@link killGroup} does and resolves once none of it runs, or after `ms`:
 * SIGKILL takes effect when the kernel next schedules each process, and a caller that has closed a
 * browser may say so (a timed-out render's answer) while a loaded machine has not yet run it.
 */
export async function killGroupAndWait(proc: ChildProcess, ms: number): Promise<void> {
  killGroup(proc);
  const group = proc.pid;
  if (group === undefined) return;
  const running = () => liveProcesses().some((p) => p.pgrp === group);
  for (const deadline = Date.now() + ms; running() && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * Kills every tracked process's group, and every process whose command line names a tracked path
 * (a browser still being launched, not yet tracked, already names its profile under the render's
 * temporary directory), then waits, synchronously and at most `ms`, until they have died: SIGKILL
 * takes effect when the kernel next schedules each process, which on a busy machine can be after
 * vidkit has exited, and no browser may be seen running once vidkit is gone.
 */
function killAll(ms: number): void {
  const groups = new Set<number>();
  for (const proc of processes) {
    killGroup(proc);
    if (proc.pid !== undefined) groups.add(proc.pid);
  }
  processes.clear();
  const named = (p: ProcessEntry) => [...paths].some((dir) => p.cmdline.includes(dir));
  const pids = new Set<number>();
  if (paths.size > 0) {
    for (const p of liveProcesses().filter(named)) {
      pids.add(p.pid);
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  }
  if (groups.size === 0 && pids.size === 0) return;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const running = () => liveProcesses().some((p) => groups.has(p.pgrp) || pids.has(p.pid));
  for (const deadline = Date.now() + ms; running() && Date.now() < deadline; ) Atomics.wait(pause, 0, 0, 10);
}

/** Kills every tracked process (and any process naming a tracked path) and removes every tracked path, now. */
export function removeLeftovers(): void {
  killAll(3000);
  for (const p of paths) {
    try {
      fs.rmSync(p, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // Nothing more can be done on the way out; the path is under the system's temporary directory.
    }
  }
  paths.clear();
}
