import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Overrides } from '../composition/variables';
import { ExitCode, VidkitError, badInput } from '../errors';
import { loadNative } from '../native';
import type { AssetRouter } from '../render/serve/asset-router';
import type { BrowserProfile } from '../render/browser/browser';
import { CaptureSession } from '../render/capture/capture-session';
import { SessionSlot, renderChunk } from '../render/capture/chunk-renderer';
import { DeadlineError } from '../render/browser/deadline';
import { OutputFormat, formatExtension, isDirectoryFormat } from '../values/formats';
import { trackPath, untrackPath } from '../render/browser/leftovers';
import { MissingGlyphs, missingGlyphsError } from '../render/capture/missing-glyphs';
import { renderWriteError, partialPathFor } from '../render/output/output-path';
import { outputWriter } from '../render/output/output-writer';
import { PlannedRender, RenderContext, RenderSettings, cellsOfPage, framesOfPage, planRender, profileFor, withProfile } from '../render/render-context';
import { checkTempSpace, makeRunDir } from '../render/browser/run-dir';
import { AssetPolicy, ServedComposition, serveComposition } from '../render/serve/served-composition';
import { SoundtrackContext, earlySoundtrack, renderSoundtrack } from '../render/output/soundtrack';

/** What every render of a pool shares: the project, its page and how to draw and encode it; not the variables. */
export interface WarmPoolOptions extends Omit<RenderSettings, 'overrides' | 'strictVariables'>, AssetPolicy {
  format: OutputFormat;
  /** Browsers kept warm, each rendering one video at a time. */
  size: number;
  /** Repeats of a gif after its first play (`--gif-loop`). */
  gifLoop?: number;
}

export interface PooledRender {
  output: string;
  frames: number;
  bytes: number;
  seconds: number;
  /** Text that no font could draw (docs/explanation/fonts.md). */
  missingGlyphs: MissingGlyphs[];
}

export interface PooledRenderHooks {
  /** Frames are known: declared, or read off the page once it loaded. */
  onFrames?(totalFrames: number): void;
  onFrame?(): void;
  /** Stops this render at its next frame, its browser kept for the next. */
  signal?: AbortSignal;
  /** Told what this render's page did that the render went past (a dialog it dismissed). */
  onWarning?(message: string): void;
}

/** A pool browser with its page reset to one render's variables (see {@link WarmPool.withPage}). */
export interface PoolPage {
  /** Counts the pool's renders: names their temporary files apart. */
  index: number;
  slot: SessionSlot;
  context: RenderContext;
  totalFrames: number;
  /** The render's own temporary folder. */
  renderDir: string;
  /** Threads of each encoder this browser feeds. */
  encoderThreads: number;
  sound: SoundtrackContext;
}

interface Worker {
  id: number;
  slot: SessionSlot;
  profiles: number;
  /** Where its page's warnings go: the render it is doing now (its session outlives each). */
  onWarning?(message: string): void;
}

/**
 * Renders one video after another with browsers kept open between them (docs/guide/batch.md): each render sets its variables by resetting a warm page ({@link CaptureSession.reset})
 * instead of launching a browser, and remote assets are fetched and media proxies made once for
 * the pool's lifetime. A render is one whole-video range through the chunk renderer and output
 * writer of `vidkit render`, so its frames and file are those of a cold render. Used by
 * `vidkit render --batch` and by the web templates.
 */
export class WarmPool {
  private readonly idle: Worker[] = [];
  private readonly waiting: Array<{ resolve: (worker: Worker) => void; reject: (err: Error) => void }> = [];
  private readonly workers: Worker[] = [];
  private profile?: Promise<BrowserProfile>;
  private closed = false;
  private renders = 0;

  private constructor(
    private readonly opts: WarmPoolOptions,
    private readonly tmpDir: string,
    private readonly served: ServedComposition,
    /** The composition as planned without overrides: the page and settings every render shares. */
    readonly base: PlannedRender,
  ) {
    for (let id = 0; id < opts.size; id++) {
      const worker: Worker = { id, slot: new SessionSlot(() => Promise.reject(new VidkitError('no render set this browser up'))), profiles: 0 };
      this.workers.push(worker);
      this.idle.push(worker);
    }
  }

  /** Checks the project (as `vidkit render` does before any browser) and serves it; browsers start with the first render. */
  static async open(opts: WarmPoolOptions): Promise<WarmPool> {
    // The record of a batch is one file per line: its size tells a complete one (batch-record.ts).
    if (isDirectoryFormat(opts.format)) throw badInput(`--format ${opts.format} writes a directory: a batch writes one file per line (mp4, webm, mov, hdr-pq, hdr-hlg, gif)`);
    const base = planRender({ ...opts, overrides: {}, strictVariables: false });
    checkTempSpace();
    const tmpDir = makeRunDir('pool');
    trackPath(tmpDir);
    return new WarmPool(opts, tmpDir, await serveComposition(base.composition, tmpDir, opts), base);
  }

  /** One render's plan with its variables: throws a VidkitError naming what is wrong, before any browser work. */
  plan(overrides: Overrides, strictVariables: boolean): PlannedRender {
    return planRender({ ...this.opts, overrides, strictVariables });
  }

  /**
   * Renders `planned` to `output` on the next free browser: written under a hidden partial name
   * beside it and renamed once complete, so `output` is either whole or absent.
   */
  async render(planned: PlannedRender, output: string, hooks: PooledRenderHooks = {}): Promise<PooledRender> {
    return this.withPage(planned, hooks.onWarning, (page) => this.renderPage(page, output, hooks));
  }

  /**
   * Runs `work` on the next free browser, its page reset to `planned`: a render's own frame
   * ranges (batch-reuse.ts) or its whole video. `renderDir` is the render's own temporary folder,
   * removed after `work`.
   */
  async withPage<T>(planned: PlannedRender, onWarning: ((message: string) => void) | undefined, work: (page: PoolPage) => Promise<T>): Promise<T> {
    const worker = await this.acquire();
    try {
      this.profile ??= profileFor(this.opts);
      const context = withProfile(planned, await this.profile);
      const { url, assets } = this.served;
      const options = { ...context.sessionOptions(url, assets), onWarning: (message: string) => worker.onWarning?.(message) };
      worker.onWarning = onWarning;
      // Profiles live in the pool's temporary directory, so an interrupted batch leaves none.
      const open = () => CaptureSession.open({ ...options, profileDir: path.join(this.tmpDir, `profile-${worker.id}-${worker.profiles++}`) });
      await worker.slot.reset(open, options.boot);
      const { slot } = worker;
      const totalFrames = context.totalFrames ?? (await framesOfPage(context, await slot.current()));
      const index = this.renders++;
      const renderDir = path.join(this.tmpDir, `render-${index}`);
      fs.mkdirSync(renderDir);
      // Each browser's encoder gets its share of the cores, as a worker of `vidkit render` does.
      const encoderThreads = Math.max(1, Math.floor(os.availableParallelism() / this.opts.size));
      const sound = { assets, durationSeconds: (totalFrames * context.settings.fps.den) / context.settings.fps.num };
      try {
        return await work({ index, slot, context, totalFrames, renderDir, encoderThreads, sound });
      } catch (err) {
        // A page stuck in a script would hang the next render's reset too: its browser goes.
        if (err instanceof DeadlineError) await slot.close();
        throw err;
      } finally {
        fs.rmSync(renderDir, { recursive: true, force: true });
        // The encoder's buffers are freed but kept by malloc: without this the pool's process grew
        // by about 10 MB a render (73 MB after 10 at 720p).
        loadNative().releaseMemory();
      }
    } finally {
      this.release(worker);
    }
  }

  private async renderPage(page: PoolPage, output: string, hooks: PooledRenderHooks): Promise<PooledRender> {
    const started = Date.now();
    const { slot, context, totalFrames, renderDir, sound } = page;
    hooks.onFrames?.(totalFrames);
    const extension = formatExtension(context.format);
    const partial = partialPathFor(output, extension, page.index);
    trackPath(partial);
    try {
      // The writer of `vidkit render`, with one part: the whole video, in the same cells.
      const cells = await cellsOfPage(context, await slot.current(), totalFrames);
      const writer = outputWriter({ settings: context.settings, tmpDir: renderDir, partial, output, encoderThreads: page.encoderThreads, gifLoop: this.opts.gifLoop, cells });
      const early = writer.soundtrackFormat && (await earlySoundtrack(slot, writer.soundtrackFormat, sound));
      const whole = { index: 0, startFrame: 0, endFrame: totalFrames };
      const rendered = await renderChunk(slot, whole, writer.sink(whole), {
        onFrame: () => {
          if (hooks.signal?.aborted) throw new VidkitError('render interrupted', { exitCode: ExitCode.Interrupted });
          hooks.onFrame?.();
        },
        onRelaunch: (message) => this.opts.onWarning?.(message),
      });
      const { missingGlyphs } = rendered;
      if (this.opts.strictGlyphs && missingGlyphs.length > 0) throw missingGlyphsError(missingGlyphs);
      const timeline = await (await slot.current()).mediaTimeline();
      const done = await writer.finish([whole], () => renderSoundtrack(timeline, sound, early));
      return { output, frames: done.frames, bytes: done.bytes, seconds: (Date.now() - started) / 1000, missingGlyphs };
    } catch (err) {
      // A part or the output that could not be written: its disk's fault, not the render's.
      throw renderWriteError(err, output);
    } finally {
      fs.rmSync(partial, { force: true });
      untrackPath(partial);
    }
  }

  private acquire(): Promise<Worker> {
    if (this.closed) return Promise.reject(new VidkitError('the render pool is closed'));
    const worker = this.idle.pop();
    if (worker) return Promise.resolve(worker);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private release(worker: Worker): void {
    const next = this.waiting.shift();
    if (next) next.resolve(worker);
    else this.idle.push(worker);
  }

  /** Where the pool's renders read the project's files and fetched assets from. */
  get assets(): AssetRouter {
    return this.served.assets;
  }

  /** The origin the pool serves the project from: a page's URLs of project files start with it. */
  get origin(): string {
    return new URL(this.served.url).origin;
  }

  /** Browsers launched so far: one per worker that rendered, plus any relaunched after one died. */
  get launchedBrowsers(): number {
    return this.workers.reduce((sum, w) => sum + w.profiles, 0);
  }

  /** Stops every browser and removes the pool's files; renders in flight fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.reject(new VidkitError('the render pool is closed'));
    await Promise.all(this.workers.map((w) => w.slot.stop()));
    await this.served.close();
    fs.rmSync(this.tmpDir, { recursive: true, force: true, maxRetries: 3 });
    untrackPath(this.tmpDir);
  }
}
