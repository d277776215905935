import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BUILD_ROOTFS, DOCKERFILE } from '../cli/docker';

// The render image without Docker: its root filesystem from cloud/image/build-rootfs.sh (cached
// outside the repository, see that script) and its configuration read from cloud/image/Dockerfile,
// run under bubblewrap the way Lambda runs a container: an unprivileged user, read-only root, empty
// writable /tmp, no writable /dev/shm, the image's ENV, WORKDIR, ENTRYPOINT and CMD.

/** What a Dockerfile target sets for the container it runs. */
export interface ImageConfig {
  env: Record<string, string>;
  workdir: string;
  entrypoint: string[];
  cmd: string[];
}

/** The configuration of one target of the Dockerfile (stages inherit from the stage they name in FROM). */
export function imageConfig(target: string): ImageConfig {
  const stages = new Map<string, ImageConfig>();
  let stage: ImageConfig | undefined;
  for (const line of fs.readFileSync(DOCKERFILE, 'utf8').split('\n')) {
    const [, instruction, rest] = /^([A-Z]+)\s+(.*)$/.exec(line.trim()) ?? [];
    if (instruction === 'FROM') {
      const [base, , name] = rest.split(/\s+/);
      const parent = stages.get(base);
      stage = parent ? structuredClone(parent) : { env: {}, workdir: '/', entrypoint: [], cmd: [] };
      if (name) stages.set(name, stage);
    } else if (stage && instruction === 'ENV') {
      for (const [, key, value] of rest.matchAll(/(\w+)=(\S+)/g)) stage.env[key] = value;
    } else if (stage && instruction === 'WORKDIR') {
      stage.workdir = rest;
    } else if (stage && instruction === 'ENTRYPOINT') {
      // As in Docker: a new ENTRYPOINT drops the CMD inherited from the base stage.
      stage.entrypoint = JSON.parse(rest);
      stage.cmd = [];
    } else if (stage && instruction === 'CMD') {
      stage.cmd = JSON.parse(rest);
    }
  }
  const config = stages.get(target);
  if (!config) throw new Error(`${DOCKERFILE} has no stage ${target}`);
  return config;
}

/** Runs build-rootfs.sh (cold: minutes; warm: seconds); throws with its log on failure. */
export function buildRootfs(out: string): void {
  const run = spawnSync('bash', [BUILD_ROOTFS, out], { encoding: 'utf8', timeout: 30 * 60_000 });
  if (run.status !== 0) throw new Error(`build-rootfs.sh ${out} failed (${run.status ?? run.signal}):\n${run.stderr}`);
}

/**
 * The command line that runs a command (appended by the caller) in the root filesystem with the
 * target's ENV and WORKDIR plus `env`: bubblewrap as an unprivileged user (as Lambda runs a
 * function; from root through setpriv), sharing the network (the emulator on loopback). `binds` are
 * [host, inside, writable]; inside paths go under /tmp, the only place a mount point can be made.
 */
export function inImage(rootfs: string, config: ImageConfig, env: Record<string, string> = {}, binds: [string, string, boolean][] = []): string[] {
  return [
    ...(process.getuid?.() === 0 ? ['setpriv', `--reuid=${LAMBDA_USER}`, `--regid=${LAMBDA_USER}`, '--clear-groups'] : []),
    'bwrap',
    ...['--ro-bind', rootfs, '/', '--tmpfs', '/tmp', '--proc', '/proc', '--dev', '/dev', '--remount-ro', '/dev', '--die-with-parent', '--clearenv'],
    ...binds.flatMap(([host, inside, writable]) => [writable ? '--bind' : '--ro-bind', host, inside]),
    ...Object.entries({ ...config.env, ...env }).flatMap(([k, v]) => ['--setenv', k, v]),
    ...['--chdir', config.workdir],
  ];
}

/** The user the image runs as here: nobody, so the files it needs must be readable by anyone. */
export const LAMBDA_USER = 65534;
