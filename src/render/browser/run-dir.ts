import { randomInt } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ExitCode, VidkitError, errorCode, errorMessage } from '../../errors';
import { processStat } from './process-table';
import { SHARED_MEMORY_DIR } from './shared-memory';

/**
 * Bytes TMPDIR must have free before a render starts a browser: its segments, frames and browser
 * profiles live there (a short render at 480x270 kept about 3 MB), and Chromium keeps its shared
 * memory there where /dev/shm is not used; a browser that cannot write it crashes.
 */
const MIN_FREE_BYTES = 32 * 1024 * 1024;

/**
 * `vidkit-<label>-<pid>.<start>.<pid namespace>-XXXXXX`: the process that made the directory (or a
 * render's file in shared memory, {@link runFileName}), by its id, its start time (a reused id
 * belongs to a process that started later) and the pid namespace the id is counted in (a container
 * sharing TMPDIR counts its own).
 */
const RUN_DIR = /^vidkit-[a-z-]+-(\d+)\.(\d+)\.(\d+)-[A-Za-z0-9]{6}$/;
const NAME_CHARACTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

let swept = false;

/**
 * A new temporary directory of this run under TMPDIR, named for its owner (see {@link RUN_DIR}).
 * The first one a process makes first removes those a killed vidkit left (SIGKILL, a crash, a
 * power cut: no handler ran), never one whose owner still runs. Throws exit 4 naming TMPDIR when it
 * cannot be made.
 */
export function makeRunDir(label: string): string {
  if (!swept) {
    swept = true;
    removeDeadRunDirs();
  }
  try {
    return fs.mkdtempSync(path.join(os.tmpdir(), `vidkit-${label}-${ownerTag()}-`));
  } catch (err) {
    throw tempDirError(err) ?? err;
  }
}

/**
 * A name for a file of this run outside TMPDIR (a frame channel in shared memory), in the form of
 * {@link RUN_DIR}, which the sweep of a later run removes once this process is gone. Not made here:
 * the caller creates it exclusively.
 */
export function runFileName(label: string): string {
  const suffix = Array.from({ length: 6 }, () => NAME_CHARACTERS[randomInt(NAME_CHARACTERS.length)]).join('');
  return `vidkit-${label}-${ownerTag()}-${suffix}`;
}

/** `<pid>.<start>.<pid namespace>` of this process as {@link RUN_DIR} names it; start and namespace 0 where /proc does not tell. */
function ownerTag(): string {
  const owner = processIdentity();
  return owner ? `${owner.pid}.${owner.start}.${owner.namespace}` : `${process.pid}.0.0`;
}

/**
 * Removes the run directories under TMPDIR, and the run files in shared memory, whose owner is
 * gone: made by a process of this pid namespace that no longer exists (or whose id now names a
 * later process), and owned by this user. Where /proc cannot tell, nothing is removed.
 */
export function removeDeadRunDirs(): void {
  const me = processIdentity();
  if (!me) return;
  const places = [
    { dir: os.tmpdir(), kind: (stats: fs.Stats) => stats.isDirectory() },
    { dir: SHARED_MEMORY_DIR, kind: (stats: fs.Stats) => stats.isFile() },
  ];
  for (const { dir, kind } of places) {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const match = RUN_DIR.exec(name);
      if (!match || match[3] !== me.namespace) continue;
      const [pid, start] = [Number(match[1]), match[2]];
      if (pid === process.pid || startOf(pid) === start) continue;
      const left = path.join(dir, name);
      try {
        const stats = fs.lstatSync(left);
        if (!kind(stats) || stats.uid !== process.getuid?.()) continue;
        fs.rmSync(left, { recursive: true, force: true, maxRetries: 3 });
      } catch {
        // Another run removed it first, or it is not ours to remove.
      }
    }
  }
}

/** Throws exit 4 naming TMPDIR when it has less room than a render needs ({@link MIN_FREE_BYTES}). */
export function checkTempSpace(): void {
  const dir = os.tmpdir();
  let free: number;
  try {
    const stats = fs.statfsSync(dir);
    free = stats.bavail * stats.bsize;
  } catch (err) {
    throw new VidkitError(`TMPDIR (${dir}) cannot be used: ${errorMessage(err)}; set TMPDIR to a writable directory`, { exitCode: ExitCode.OutputFailed });
  }
  if (free < MIN_FREE_BYTES) {
    throw new VidkitError(
      `TMPDIR (${dir}) is full: ${(free / 1024 / 1024).toFixed(1)} MiB free, and a render needs at least ${MIN_FREE_BYTES / 1024 / 1024} MiB there ` +
        'for its segments and browser profiles; free some space, or set TMPDIR to a directory with room',
      { exitCode: ExitCode.OutputFailed },
    );
  }
}

/**
 * A failed write under TMPDIR (`err` names a path there, or came from making a directory there) as
 * the exit-4 error naming TMPDIR; undefined when it is no write failure.
 */
export function tempDirError(err: unknown): VidkitError | undefined {
  const dir = os.tmpdir();
  const code = errorCode(err);
  if (['ENOSPC', 'EDQUOT', 'VIDKIT_DISK_FULL'].includes(code)) {
    return new VidkitError(`TMPDIR (${dir}) is full: free some space, or set TMPDIR to a directory with room for the render's segments and browser profiles`, {
      exitCode: ExitCode.OutputFailed,
    });
  }
  if (['EROFS', 'EACCES', 'EPERM', 'VIDKIT_PERMISSION_DENIED'].includes(code)) {
    return new VidkitError(`TMPDIR (${dir}) is not writable: set TMPDIR to a directory vidkit may write`, { exitCode: ExitCode.OutputFailed });
  }
  return undefined;
}

/** This process as {@link RUN_DIR} names it; undefined where /proc does not tell. */
function processIdentity(): { pid: number; start: string; namespace: string } | undefined {
  const start = startOf(process.pid);
  let namespace: string | undefined;
  try {
    namespace = /\[(\d+)\]/.exec(fs.readlinkSync('/proc/self/ns/pid'))?.[1];
  } catch {
    // No /proc: run directories are made, but never judged left behind.
  }
  return start === undefined || namespace === undefined ? undefined : { pid: process.pid, start, namespace };
}

/** When process `pid` started (clock ticks after boot); undefined when there is none. */
const startOf = (pid: number): string | undefined => processStat(pid)?.startTime;
