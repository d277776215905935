import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { renderSize } from '../composition/render-request';
import type { Overrides } from '../composition/variables';
import { VidkitError, errorMessage } from '../errors';
import { inputLimitsFromEnv } from '../options/input-limits';
import { resolveRenderSettings } from '../options/resolve';
import { WarmPool } from '../batch/warm-pool';
import { removeLeftovers } from '../render/browser/leftovers';
import { describeMissingGlyphs } from '../render/capture/missing-glyphs';
import { withDeadline } from '../render/browser/deadline';
import { makeRunDir } from '../render/browser/run-dir';
import { RenderTimeoutError } from './render-errors';

export interface TemplateRenderOptions {
  projectDir: string;
  /** Checked against the composition already (the request contract); rendered under --strict-variables rules. */
  variables: Overrides;
  /** The process environment: RENDER_WIDTH/HEIGHT/FPS, VIDKIT_MAX_VARIABLE_BYTES/VIDKIT_MAX_VARIABLES_BYTES. */
  env: NodeJS.ProcessEnv;
  timeoutSeconds: number;
}

/**
 * Template renders in this process on a warm browser (docs/guide/templates.md): one
 * {@link WarmPool} of one browser per composition and size, kept between requests, so a request
 * pays for its frames, not for a browser launch and a page load. The variables go to the page as
 * they are, never through an argument list. Renders run one at a time (the template's RenderQueue).
 * A render past its timeout closes its pool, the browser and the pool's files with it, and fails
 * with a {@link RenderTimeoutError}; the next request starts a new one.
 */
export class WarmTemplateRenderer {
  private readonly pools = new Map<string, Promise<WarmPool>>();

  constructor() {
    // The host process may end without closing this (a server stopped with process.exit): its
    // browsers lead process groups of their own and would outlive it, with their profiles.
    if (process.listeners('exit').includes(removeLeftovers)) return;
    process.once('exit', removeLeftovers);
  }

  /** Renders and returns the MP4's bytes; the output lives in a temporary directory removed afterwards. */
  async render(opts: TemplateRenderOptions): Promise<Buffer> {
    const work = makeRunDir('template-render');
    try {
      const output = path.join(work, 'render.mp4');
      await this.renderTo(opts, output);
      return await fs.readFile(output);
    } finally {
      await fs.rm(work, { recursive: true, force: true });
    }
  }

  /**
   * Renders the MP4 to `output`, written under a hidden partial name beside it and renamed once
   * complete, so `output` is either whole or absent (also after a failure or a timeout).
   */
  async renderTo(opts: TemplateRenderOptions, output: string): Promise<void> {
    const size = renderSize(opts.env);
    const key = JSON.stringify([path.resolve(opts.projectDir), size]);
    const rendering = (async () => {
      const pool = await this.pool(key, opts.projectDir, size, opts.env);
      // The server's log gets what `vidkit render` would have warned about: the page (a dismissed
      // dialog), and text no font could draw.
      const warn = (message: string) => console.warn(`vidkit: warning: ${message}`);
      const done = await pool.render(pool.plan(opts.variables, true), output, { onWarning: warn });
      for (const m of done.missingGlyphs) warn(describeMissingGlyphs(m));
    })();
    // Told apart from a deadline inside the render (a frame's), which is a failed render.
    let expired = false;
    try {
      await withDeadline(rendering, opts.timeoutSeconds * 1000, () => {
        expired = true;
        return 'render timed out';
      });
    } catch (err) {
      if (expired) {
        await this.drop(key);
        // Its browser is gone: the render fails at once, and only then has its partial file gone.
        await rendering.catch(() => undefined);
        throw new RenderTimeoutError(opts.timeoutSeconds);
      }
      throw renderFailure(err);
    }
  }

  /** Closes every pool: their browsers and files. */
  async close(): Promise<void> {
    await Promise.all([...this.pools.keys()].map((key) => this.drop(key)));
  }

  private pool(key: string, projectDir: string, size: ReturnType<typeof renderSize>, env: NodeJS.ProcessEnv): Promise<WarmPool> {
    let pool = this.pools.get(key);
    if (!pool) {
      // The size read as `vidkit render --width --height --fps` reads it (the other way templates render); the rest its defaults.
      const settings = resolveRenderSettings('cli', size);
      const { width, height, fps } = settings.values;
      const inputLimits = inputLimitsFromEnv(env);
      pool = WarmPool.open({ projectDir, format: settings.format, size: 1, ...settings.encode, width, height, fps, capture: settings.capture, allowGpu: settings.allowGpu, inputLimits });
      this.pools.set(key, pool);
      pool.catch(() => this.pools.delete(key));
    }
    return pool;
  }

  private async drop(key: string): Promise<void> {
    const pool = this.pools.get(key);
    this.pools.delete(key);
    await pool?.then((p) => p.close()).catch(() => undefined);
  }
}

/** A failed render as the templates answer it (500): `render failed (exit N): vidkit: error: …`, as the CLI would have said it. */
function renderFailure(err: unknown): Error {
  const exitCode = err instanceof VidkitError ? err.exitCode : 1;
  return new Error(`render failed (exit ${exitCode}): vidkit: error: ${errorMessage(err)}`);
}
