import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const FIXTURES = path.join(__dirname, 'fixtures');
const CLI = path.join(REPO_ROOT, 'dist', 'cli', 'main.js');

export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `vidkit` CLI (dist/cli/main.js) as a user would, stdin closed. */
export function vidkit(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliRun {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? REPO_ROOT,
    env: { ...process.env, ...opts.env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 300_000,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Like {@link vidkit}, without blocking this process: for tests that serve something themselves. */
export function vidkitAsync(args: string[], opts: { env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}

export function tempDir(prefix = 'vidkit-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** The lines of stderr that are errors (warnings, progress and info lines excluded). */
export function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('vidkit: error:'));
}
