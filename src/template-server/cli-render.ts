import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { renderCliArgs } from '../composition/render-request';
import type { Overrides } from '../composition/variables';
import { killProcessTree } from './process-tree';
import { RenderTimeoutError, renderFailed } from './render-errors';

export interface CliRenderOptions {
  /** How to run vidkit, e.g. `['vidkit']` or `['node', '/path/to/dist/cli/main.js']`. */
  command: string[];
  projectDir: string;
  variables: Overrides;
  /** The process environment: RENDER_WIDTH/HEIGHT/FPS and whatever vidkit itself reads. */
  env: NodeJS.ProcessEnv;
  timeoutSeconds: number;
}

/**
 * One template render with the `vidkit` CLI on this machine; returns the MP4's bytes. Everything
 * the render writes (the variables file, the output, vidkit's and the browser's temporary files,
 * as TMPDIR) lives in one directory that is removed afterwards, also after a failure or a timeout.
 */
export async function renderWithCli(opts: CliRenderOptions): Promise<Buffer> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'vidkit-template-render-'));
  try {
    const variablesFile = path.join(work, 'variables.json');
    await fs.writeFile(variablesFile, JSON.stringify(opts.variables));
    const output = path.join(work, 'render.mp4');
    const [cmd, ...pre] = opts.command;
    await runWithDeadline(cmd, [...pre, ...renderCliArgs(opts.projectDir, output, variablesFile, opts.env)], { ...opts.env, TMPDIR: work }, opts.timeoutSeconds);
    return await fs.readFile(output);
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

function runWithDeadline(cmd: string, args: string[], env: NodeJS.ProcessEnv, timeoutSeconds: number): Promise<void> {
  return new Promise((resolve, reject) => {
    // Its own process group, so a timeout can stop it and everything it started.
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env, detached: true });
    let stderr = '';
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) killProcessTree(child.pid);
    }, timeoutSeconds * 1000);
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (err) => {
      clearTimeout(deadline);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(deadline);
      if (timedOut) reject(new RenderTimeoutError(timeoutSeconds));
      else if (code === 0) resolve();
      else reject(renderFailed(stderr, code));
    });
  });
}
