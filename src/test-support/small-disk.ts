import { spawnSync } from 'node:child_process';
import { built, tempDir } from './cli';

export interface ShellRun {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `script` (sh) with a small tmpfs mounted on a new directory for each entry of `disks`
 * (`{ T: '40m' }`: `$T` names a directory holding a 40 MiB tmpfs), in a user and mount namespace of
 * its own (no privilege needed; the mounts go with it, the machine's own are untouched).
 * `$VIDKIT` runs the CLI.
 */
export function withSmallDisks(disks: Record<string, string>, script: string, timeoutMs = 180_000): ShellRun {
  const dirs = Object.fromEntries(Object.keys(disks).map((name) => [name, tempDir(`vidkit-small-${name.toLowerCase()}-`)]));
  const mounts = Object.entries(disks).map(([name, size]) => `mount -t tmpfs -o size=${size} tmpfs "$${name}"`);
  const run = spawnSync('unshare', ['--user', '--map-root-user', '--mount', 'sh', '-c', `${mounts.join(' && ')}\n${script}`], {
    encoding: 'utf8',
    env: { ...process.env, ...dirs, VIDKIT: `${process.execPath} ${built('cli', 'main.js')}` },
    timeout: timeoutMs,
  });
  return { status: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}
