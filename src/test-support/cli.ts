import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { built } from './build';

export { built };

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const FIXTURES = path.join(__dirname, 'fixtures');
/** The built CLI, checked to be built from the current sources. */
export const cli = (): string => built('cli', 'main.js');

export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `vidkit` CLI (dist/cli/main.js) as a user would, stdin closed. */
export function vidkit(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliRun {
  const r = spawnSync(process.execPath, [cli(), ...args], {
    cwd: opts.cwd ?? REPO_ROOT,
    env: { ...process.env, ...opts.env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 300_000,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Like {@link vidkit}, without blocking this process: for tests that serve something themselves,
 * or that act on the running command (`watch` sees its stderr so far after each write).
 */
export function vidkitAsync(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; watch?: (stderr: string, child: ChildProcess) => void } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli(), ...args], { cwd: REPO_ROOT, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      opts.watch?.(stderr, child);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}

/** Every directory {@link tempDir} made in this test process, removed when the process exits. */
const madeDirs: string[] = [];

/** A new directory under the system's temporary folder, removed with everything in it when this test process exits. */
export function tempDir(prefix = 'vidkit-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (madeDirs.push(dir) === 1) {
    // A clean-clone suite left 225 of these (48 MB) in /tmp before they were removed here.
    process.on('exit', () => {
      for (const made of madeDirs) fs.rmSync(made, { recursive: true, force: true, maxRetries: 3 });
    });
  }
  return dir;
}

/**
 * A copy of the fixture `name` in a new directory under `parent`, with GSAP from
 * devDependencies beside its index.html (gsap.min.js) for fixtures whose timelines use it.
 */
export function fixtureCopy(name: string, parent: string, opts: { gsap?: boolean } = {}): string {
  const dir = fs.mkdtempSync(path.join(parent, `${name}-`));
  fs.cpSync(path.join(FIXTURES, name), dir, { recursive: true });
  if (opts.gsap) fs.copyFileSync(path.join(REPO_ROOT, 'node_modules', 'gsap', 'dist', 'gsap.min.js'), path.join(dir, 'gsap.min.js'));
  return dir;
}

/**
 * The frame-clock fixture (30 fps, frame i shows i; 5 s) made `seconds` long, in `parent`: once
 * per length and folder, then the same folder again.
 */
export function frameClock(seconds: number, parent: string): string {
  const dir = path.join(parent, `frame-clock-${seconds}s`);
  if (fs.existsSync(dir)) return dir;
  const html = fs.readFileSync(path.join(FIXTURES, 'frame-clock', 'index.html'), 'utf8');
  if (!html.includes('data-duration="5"')) throw new Error('the frame-clock fixture no longer declares data-duration="5"');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.html'), html.replace('data-duration="5"', `data-duration="${seconds}"`));
  return dir;
}

/** The lines of stderr that are errors (warnings, progress and info lines excluded). */
export function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('vidkit: error:'));
}

export interface ServingCli {
  /** What the command printed on stdout first: the URL it serves. */
  url: string;
  stderr(): string;
  /** Ctrl-C; resolves with the exit code. */
  stop(): Promise<number>;
}

/** Starts a long-running `vidkit` command (preview) and waits for the URL it prints. */
export function vidkitServe(args: string[]): Promise<ServingCli> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli(), ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const exited = new Promise<number>((done) => child.on('close', (code) => done(code ?? -1)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const line = stdout.split('\n');
      if (line.length > 1) {
        resolve({
          url: line[0],
          stderr: () => stderr,
          stop: () => {
            child.kill('SIGINT');
            return exited;
          },
        });
      }
    });
    void exited.then((code) => reject(new Error(`vidkit ${args.join(' ')} exited ${code} before printing a URL: ${stderr}`)));
  });
}
