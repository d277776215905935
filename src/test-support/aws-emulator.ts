import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freePort } from './ports';
import { REPO_ROOT, tempDir } from './cli';

/**
 * MiniStack (PyPI, installed into .venv by scripts/setup.sh): a local AWS emulator speaking the real
 * wire protocol for CloudFormation, S3, Step Functions (Map, Retry, lambda:invoke) and Lambda, whose
 * Node.js zip functions run as local subprocesses. One per test file, on a free loopback port.
 */
export interface AwsEmulator {
  endpoint: string;
  /** The environment a vidkit process needs to talk to it. */
  env: Record<string, string>;
  /** Its log, for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

const MINISTACK = path.join(REPO_ROOT, '.venv', 'bin', 'ministack');

/**
 * The state machine's Retry back-off (1 s, then 2 s, after a failed chunk; 2 s doubling after a
 * throttle) waited at a tenth: every retry still happens, in the same order and number, without
 * the seconds of idle a test would spend on each.
 */
const WAIT_SCALE = { SFN_WAIT_SCALE: '0.1' };

export const TEST_CREDENTIALS = { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' };

export async function startAwsEmulator(extraEnv: Record<string, string> = {}): Promise<AwsEmulator> {
  if (!fs.existsSync(MINISTACK)) throw new Error(`${MINISTACK} is missing: run scripts/setup.sh`);
  const port = await freePort();
  const dir = tempDir('vidkit-ministack-');
  const logFile = path.join(dir, 'ministack.log');
  const logFd = fs.openSync(logFile, 'w');
  const endpoint = `http://127.0.0.1:${port}`;
  const env = { ...TEST_CREDENTIALS, AWS_ENDPOINT_URL: endpoint };
  // Its own process group, so stopping it also ends the function subprocesses it started.
  const child: ChildProcess = spawn(MINISTACK, [], {
    cwd: dir,
    env: { ...process.env, ...env, ...WAIT_SCALE, ...extraEnv, GATEWAY_PORT: String(port), BIND_HOST: '127.0.0.1', TMPDIR: dir },
    stdio: ['ignore', logFd, logFd],
    detached: true,
  });
  fs.closeSync(logFd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const res = await fetch(`${endpoint}/_ministack/health`);
      if (res.ok) break;
    } catch {
      // Not listening yet.
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`ministack did not start:\n${fs.readFileSync(logFile, 'utf8')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    endpoint,
    env,
    log: () => fs.readFileSync(logFile, 'utf8'),
    stop: async () => {
      if (child.exitCode === null) {
        process.kill(-child.pid!, 'SIGTERM');
        const killed = setTimeout(() => child.exitCode === null && process.kill(-child.pid!, 'SIGKILL'), 5000);
        await exited;
        clearTimeout(killed);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
