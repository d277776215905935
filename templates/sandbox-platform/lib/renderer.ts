import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Sandbox } from '@vercel/sandbox';
import type { WarmTemplateRenderer } from 'vidkit/template-renderer';
import { RenderTimeoutError, renderCliArgs, renderFailed } from 'vidkit/web-template';
import snapshot from './snapshot.generated.json';
import { useLocalAdapters } from './config';

/** Renders a composition project with vidkit and returns the MP4's bytes. */
export interface Renderer {
  render(projectDir: string, variables: Record<string, unknown>): Promise<Buffer>;
}

// The sandbox allows 5 hours; a render of a short composition takes minutes.
const SANDBOX_TIMEOUT_MS = 30 * 60 * 1000;
const SANDBOX_WORKDIR = '/vercel/sandbox';
// Where scripts/prepare-snapshot.mjs links the headless browser in the snapshot.
const SANDBOX_BROWSER = '/usr/local/bin/chromium-headless-shell';

/** The platform path: a microVM restored from the snapshot prepared at build time. */
class SandboxRenderer implements Renderer {
  constructor(
    private readonly snapshotId: string,
    private readonly timeoutSeconds: number,
  ) {}

  async render(projectDir: string, variables: Record<string, unknown>): Promise<Buffer> {
    const sandbox = await Sandbox.create({
      source: { type: 'snapshot', snapshotId: this.snapshotId },
      resources: { vcpus: 4 },
      timeout: SANDBOX_TIMEOUT_MS,
    });
    try {
      const remoteDir = `${SANDBOX_WORKDIR}/composition`;
      const variablesFile = `${SANDBOX_WORKDIR}/variables.json`;
      await sandbox.writeFiles([...(await projectFiles(projectDir, remoteDir)), { path: variablesFile, content: JSON.stringify(variables) }]);
      const output = `${SANDBOX_WORKDIR}/render.mp4`;
      const deadline = AbortSignal.timeout(this.timeoutSeconds * 1000);
      let done;
      try {
        done = await sandbox.runCommand({
          cmd: 'vidkit',
          args: renderCliArgs(remoteDir, output, variablesFile, process.env),
          env: { VIDKIT_BROWSER: SANDBOX_BROWSER },
          signal: deadline,
        });
      } catch (err) {
        if (deadline.aborted) throw new RenderTimeoutError(this.timeoutSeconds);
        throw err;
      }
      if (done.exitCode !== 0) throw renderFailed(await done.stderr(), done.exitCode);
      const bytes = await sandbox.readFileToBuffer({ path: output });
      if (!bytes) throw new Error('render finished but the sandbox has no output file');
      return bytes;
    } finally {
      // Stopping the microVM ends the render too, when it timed out.
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

/**
 * The local adapter: vidkit in this process, its browser kept warm between requests (one for the
 * whole server, however many times the route makes a renderer). Loaded by Node at run time rather
 * than bundled: the renderer finds its fonts, browser and native addon in vidkit's install.
 */
let warm: Promise<WarmTemplateRenderer> | undefined;

function warmRenderer(): Promise<WarmTemplateRenderer> {
  warm ??= import(/* turbopackIgnore: true */ /* webpackIgnore: true */ 'vidkit/template-renderer').then((mod) => new (mod.default ?? mod).WarmTemplateRenderer());
  return warm;
}

class LocalWarmRenderer implements Renderer {
  constructor(private readonly timeoutSeconds: number) {}

  async render(projectDir: string, variables: Record<string, unknown>): Promise<Buffer> {
    return (await warmRenderer()).render({ projectDir, variables, env: process.env, timeoutSeconds: this.timeoutSeconds });
  }
}

/** A render running longer than `timeoutSeconds` is stopped and fails with a RenderTimeoutError. */
export function createRenderer(timeoutSeconds: number): Renderer {
  if (useLocalAdapters) return new LocalWarmRenderer(timeoutSeconds);
  if (!snapshot.snapshotId) throw new Error('no sandbox snapshot: run `npm run build` (it prepares one) or set SANDBOX_SNAPSHOT_ID');
  return new SandboxRenderer(snapshot.snapshotId, timeoutSeconds);
}
