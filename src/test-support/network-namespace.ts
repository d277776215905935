import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, tempDir } from './cli';

/** The addresses private-network-world.ts serves on: the cloud metadata service, a private host and one standing for the public internet. */
export const WORLD_ADDRESSES = { metadata: '169.254.169.254', inside: '10.0.0.5', outside: '1.2.3.4' };

/**
 * Runs the TypeScript module `script` (with `args`) in a network namespace of its own, inside a
 * user namespace of its own so no privilege is needed (util-linux unshare, iproute2 ip): its
 * loopback interface also answers on each of `addresses` (a cloud metadata address, a private
 * one, one standing for the public internet), and /etc/resolv.conf names 127.0.0.1, where the
 * script may answer DNS itself. Nothing it starts can reach this machine's own network or be
 * reached from it. Resolves with the script's exit status and output.
 */
export function inNetworkNamespace(script: string, args: string[], addresses: string[]): { status: number; stdout: string; stderr: string } {
  const resolv = path.join(tempDir('vidkit-netns-'), 'resolv.conf');
  fs.writeFileSync(resolv, 'nameserver 127.0.0.1\noptions timeout:2 attempts:1\n');
  const setup = [
    'set -e',
    'ip link set lo up',
    ...addresses.map((address) => `ip addr add ${address}/32 dev lo`),
    `mount --bind ${resolv} /etc/resolv.conf`,
    'exec "$@"',
  ].join('\n');
  const run = spawnSync(
    'unshare',
    ['--user', '--map-root-user', '--net', '--mount', 'sh', '-c', setup, 'sh', process.execPath, '-r', 'tsx/cjs', script, ...args],
    { cwd: REPO_ROOT, encoding: 'utf8', timeout: 300_000 },
  );
  return { status: run.status ?? -1, stdout: run.stdout, stderr: `${run.stderr}${run.error ? `\n${run.error}` : ''}` };
}
