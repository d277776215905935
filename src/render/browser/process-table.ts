import * as fs from 'node:fs';

/**
 * The processes of this machine as /proc shows them: the one reader behind vidkit's cleanup of
 * what a render leaves running (leftovers.ts), its run-directory owners (run-dir.ts) and the
 * tests' process checks. Without /proc (not Linux), every answer is empty or undefined.
 */

/** The fields of `/proc/<pid>/stat` vidkit reads. */
export interface ProcessStat {
  pid: number;
  /** R, S, D, T, Z (zombie), X (dead), … */
  state: string;
  ppid: number;
  pgrp: number;
  /** When it started, clock ticks after boot (field 22), as /proc writes it. */
  startTime: string;
}

export interface ProcessEntry extends ProcessStat {
  /** Its arguments, each ended by a NUL, as the kernel keeps them. */
  cmdline: string;
}

export function processStat(pid: number): ProcessStat | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, state: fields[0], ppid: Number(fields[1]), pgrp: Number(fields[2]), startTime: fields[19] };
  } catch {
    return undefined;
  }
}

/** Every process listed, those gone while listed left out. */
export function processTable(): ProcessEntry[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const found: ProcessEntry[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = processStat(Number(entry));
    try {
      if (stat) found.push({ ...stat, cmdline: fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8') });
    } catch {
      // Gone while listed.
    }
  }
  return found;
}

/** Its environment as `NAME=value` strings; undefined when gone or not ours to read. */
export function processEnvironment(pid: number): string[] | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
}
