import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Sandbox } from '@vercel/sandbox';
import { renderCliArgs } from 'vidkit/web-template';
import snapshot from './snapshot.generated.json';
import { useLocalAdapters } from './config';

/** Renders a composition project with `vidkit render` and returns the MP4's bytes. */
export interface Renderer {
  render(projectDir: string, variables: Record<string, unknown>): Promise<Buffer>;
}

/** The last line of a failed render's stderr: vidkit's `vidkit: error: ...` line. */
function failure(stderr: string, code: number | null): Error {
  const last = stderr.trim().split('\n').filter(Boolean).pop() ?? '';
  return new Error(`render failed (exit ${code}): ${last}`);
}

// The sandbox allows 5 hours; a render of a short composition takes minutes (SPEC.md 8).
const SANDBOX_TIMEOUT_MS = 30 * 60 * 1000;
const SANDBOX_WORKDIR = '/vercel/sandbox';
// Where scripts/prepare-snapshot.mjs links the headless browser in the snapshot.
const SANDBOX_BROWSER = '/usr/local/bin/chromium-headless-shell';

/** The platform path: a microVM restored from the snapshot prepared at build time. */
class SandboxRenderer implements Renderer {
  constructor(private readonly snapshotId: string) {}

  async render(projectDir: string, variables: Record<string, unknown>): Promise<Buffer> {
    const sandbox = await Sandbox.create({
      source: { type: 'snapshot', snapshotId: this.snapshotId },
      resources: { vcpus: 4 },
      timeout: SANDBOX_TIMEOUT_MS,
    });
    try {
      const remoteDir = `${SANDBOX_WORKDIR}/composition`;
      await sandbox.writeFiles(await projectFiles(projectDir, remoteDir));
      const output = `${SANDBOX_WORKDIR}/render.mp4`;
      const done = await sandbox.runCommand({
        cmd: 'vidkit',
        args: renderCliArgs(remoteDir, output, variables, process.env),
        env: { VIDKIT_BROWSER: SANDBOX_BROWSER },
      });
      if (done.exitCode !== 0) throw failure(await done.stderr(), done.exitCode);
      const bytes = await sandbox.readFileToBuffer({ path: output });
      if (!bytes) throw new Error('render finished but the sandbox has no output file');
      return bytes;
    } finally {
      await sandbox.stop();
    }
  }
}

async function projectFiles(dir: string, remoteDir: string): Promise<{ path: string; content: Uint8Array }[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return Promise.all(
    entries
      .filter((e) => e.isFile())
      .map(async (e) => {
        const local = path.join(e.parentPath, e.name);
        return { path: `${remoteDir}/${path.relative(dir, local)}`, content: await fs.readFile(local) };
      }),
  );
}

/** The local adapter: the same `vidkit render` as a process on this machine (`VIDKIT_CLI`). */
class LocalProcessRenderer implements Renderer {
  constructor(private readonly command: string[]) {}

  async render(projectDir: string, variables: Record<string, unknown>): Promise<Buffer> {
    const work = await fs.mkdtemp(path.join(os.tmpdir(), 'vidkit-sandbox-'));
    try {
      const output = path.join(work, 'render.mp4');
      const [cmd, ...pre] = this.command;
      const args = [...pre, ...renderCliArgs(projectDir, output, variables, process.env)];
      await new Promise<void>((resolve, reject) => {
        const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve() : reject(failure(stderr, code))));
      });
      return await fs.readFile(output);
    } finally {
      await fs.rm(work, { recursive: true, force: true });
    }
  }
}

export function createRenderer(): Renderer {
  if (useLocalAdapters) return new LocalProcessRenderer((process.env.VIDKIT_CLI ?? 'vidkit').split(/\s+/).filter(Boolean));
  if (!snapshot.snapshotId) throw new Error('no sandbox snapshot: run `npm run build` (it prepares one) or set SANDBOX_SNAPSHOT_ID');
  return new SandboxRenderer(snapshot.snapshotId);
}
