import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ExitCode, VidkitError } from '../errors';
import { loadNative } from '../native';
import type { CaptureMode } from '../values/capture-mode';
import { BrowserFailure, CaptureSession, MediaElementTiming } from './capture/capture-session';
import { ChunkRange, SessionSlot, discardingSink, renderChunk, settleSession } from './capture/chunk-renderer';
import { OutputFormat, assertOutputExtension, formatExtension, isDirectoryFormat } from '../values/formats';
import { trackPath, untrackPath } from './browser/leftovers';
import { assertReplaceableDirectory } from './output/output-directory';
import { partialPathFor, prepareOutput, renderWriteError } from './output/output-path';
import { outputWriter } from './output/output-writer';
import { RenderSettings, cellsOfPage, createRenderContext, framesOfPage } from './render-context';
import { checkTempSpace, makeRunDir } from './browser/run-dir';
import { AssetPolicy, serveComposition } from './serve/served-composition';
import { earlySoundtrack, renderSoundtrack } from './output/soundtrack';
import { measureIdle } from './plan/cpu-idle';
import { FramePart, FrameScheduler } from './plan/frame-scheduler';
import { MissingGlyphs, describeMissingGlyphs, mergeMissingGlyphs, missingGlyphsError } from './capture/missing-glyphs';
import { ADD_SAMPLE_MS, WorkersOption, resolveWorkers, shouldAddWorker } from './plan/workers';

export interface LocalRenderOptions extends RenderSettings, AssetPolicy {
  /** Defaults to `out/<composition id>.<format's extension>` (a directory for png-sequence and hls) under the working directory. */
  output?: string;
  /** Default mp4. */
  format?: OutputFormat;
  /** Repeats of a gif after its first play; 0 (default) loops for ever. */
  gifLoop?: number;
  /** Whole seconds an hls segment lasts; default 4. */
  hlsSegmentSeconds?: number;
  workers: WorkersOption;
  /** `discard` captures every frame and drops it, writing nothing: the benchmarks' capture-only limit. */
  sink?: 'encode' | 'discard';
  signal?: AbortSignal;
  onInfo?: (message: string) => void;
  onStart?: (plan: { totalFrames: number; workers: number }) => void;
  onFrame?: () => void;
}

export interface LocalRenderResult {
  output: string;
  compositionId: string;
  width: number;
  height: number;
  fps: number;
  frames: number;
  durationSeconds: number;
  bytes: number;
  /** Most workers drawing at once (`auto` may add one while the cores sit idle). */
  workers: number;
  /** Ranges rendered and joined: more than the workers when one took over the rest of another's range. */
  segments: number;
  capture: CaptureMode;
  gl: string;
  wallSeconds: number;
  /** Seconds from process start to the first captured frame. */
  firstFrameSeconds: number;
  /** Text that no font could draw, each also a warning (docs/explanation/fonts.md). */
  missingGlyphs: MissingGlyphs[];
}

/**
 * Neither half of a split part may be shorter: a worker that takes one may have to open a new page
 * (about 0.5 s), and in a format without cells (hls) each part is one more segment to encode and join.
 */
const MIN_SPLIT_FRAMES = 15;
/** Frames the first worker draws to time a frame before `auto` decides on the other workers. */
const PAYOFF_SAMPLE_FRAMES = 3;

/**
 * `vidkit render`: plan chunks, render them in parallel browser sessions, join the segments.
 * The output appears only when complete: segments live in a temporary directory and the joined
 * file is written under a hidden partial name, then renamed.
 */
export async function renderLocal(opts: LocalRenderOptions): Promise<LocalRenderResult> {
  const started = Date.now();
  const format = opts.format ?? 'mp4';
  const outputFor = (compositionId: string) => path.resolve(opts.output ?? path.join('out', `${compositionId}${formatExtension(format)}`));
  const context = await createRenderContext({
    ...opts,
    format,
    beforeBrowser: ({ composition }) => {
      const output = outputFor(composition.id);
      if (opts.sink !== 'discard') prepareOutput(output, { directory: isDirectoryFormat(format), projectDir: composition.projectDir });
      assertOutputExtension(opts.output ?? output, format);
      if (opts.sink !== 'discard' && isDirectoryFormat(format)) assertReplaceableDirectory(output, format);
      checkTempSpace();
    },
  });
  const { composition, profile, size, settings } = context;
  for (const w of context.warnings) opts.onWarning?.(w);
  const extension = formatExtension(format);
  const output = outputFor(composition.id);
  const native = loadNative();
  const tmpDir = makeRunDir('render');
  const partial = partialPathFor(output, extension);
  trackPath(tmpDir);
  trackPath(partial);
  const server = await serveComposition(composition, tmpDir, opts);
  const { url, assets } = server;
  let profiles = 0;
  // Every worker's page loads and steps through the same times: each warning about the page once.
  const pageWarnings = new Set<string>();
  const onPageWarning = (message: string) => {
    if (pageWarnings.has(message)) return;
    pageWarnings.add(message);
    opts.onWarning?.(message);
  };
  // Profiles live in the render's temporary directory, so an interrupted render leaves none.
  const openSession = () =>
    CaptureSession.open({ ...context.sessionOptions(url, assets, path.join(tmpDir, `profile-${profiles++}`)), onWarning: onPageWarning });
  const slots = new Set<SessionSlot>();
  // Set once every worker has settled; a pending decision to add a worker then does nothing.
  let finished = false;
  const stopAll = () => Promise.all([...slots].map((slot) => slot.stop()));
  const onAbort = () => void stopAll();
  opts.signal?.addEventListener('abort', onAbort);
  try {
    // The first worker's page, opened before the plan when only the page can tell the length.
    const startedAt = performance.now();
    const firstSlot = new SessionSlot(openSession);
    slots.add(firstSlot);
    const totalFrames = context.totalFrames ?? (await framesOfPage(context, await firstSlot.current()));
    const plan = resolveWorkers(opts.workers, totalFrames);
    const cells = opts.sink === 'discard' ? undefined : await pageCells(async () => cellsOfPage(context, await firstSlot.current(), totalFrames));
    const chunks: ChunkRange[] = native.planChunks({ totalFrames, maxParallelChunks: plan.initial, chunkSize: 1 });
    opts.onInfo?.(
      `rendering ${composition.id}: ${size.width}x${size.height}, ${totalFrames} frames at ${context.fps} fps, ` +
        `${opts.workers === 'auto' ? `up to ${plan.max} worker${plan.max === 1 ? '' : 's'} (auto)` : `${chunks.length} worker${chunks.length === 1 ? '' : 's'}`}, capture ${profile.capture}, GL ${profile.gl} (${profile.glRenderer})`,
    );
    opts.onStart?.({ totalFrames, workers: chunks.length });
    // Each worker's encoder gets its share of the cores, the workers being the parallelism: on 2
    // cores x264 at its automatic count (3 threads) spent 22% more CPU than with one on the same
    // 180 1080p frames (4.1 vs 3.4 s, mostly kernel time).
    const encoderThreads = Math.max(1, Math.floor(os.availableParallelism() / chunks.length));
    const writer =
      opts.sink === 'discard'
        ? undefined
        : outputWriter({ settings, tmpDir, partial, output, encoderThreads, gifLoop: opts.gifLoop, hlsSegmentSeconds: opts.hlsSegmentSeconds, cells });
    const sound = { assets, durationSeconds: (totalFrames * settings.fps.den) / settings.fps.num };
    const early = writer?.soundtrackFormat && (await earlySoundtrack(firstSlot, writer.soundtrackFormat, sound));
    let firstFrameSeconds = 0;
    let framesDrawn = 0;
    let framesPainted = 0;
    const onFrame = (painted: boolean) => {
      framesDrawn += 1;
      if (painted) framesPainted += 1;
      // performance.now() counts from process start: the time a user waits for the first frame.
      if (firstFrameSeconds === 0) firstFrameSeconds = performance.now() / 1000;
      opts.onFrame?.();
    };
    let timeline: MediaElementTiming[] = [];
    const glyphs: MissingGlyphs[][] = [];
    const segments = new Set<number>();
    const scheduler = new FrameScheduler(chunks, MIN_SPLIT_FRAMES);
    // The first error of the render: the others may be what stopping the workers did to them.
    let failure: { error: unknown } | undefined;
    const fail = (err: unknown) => {
      failure ??= { error: err };
      void stopAll();
    };
    // Each worker's wait for its page's last requests to be judged, once it has drawn its parts.
    const settling: Array<Promise<void>> = [];
    let drawing = 0;
    let active = 0;
    let peakWorkers = 0;
    // One worker: renders the part `take` gives it, then takes half of the largest part left, until
    // none is. It takes its first part once its page is ready, with the frames the others have
    // drawn meanwhile counted (FrameScheduler.takePlanned); a browser that fails to start is the
    // chunk renderer's to relaunch.
    const work = async (take: () => FramePart | undefined, slot = new SessionSlot(openSession)) => {
      slots.add(slot);
      let drew = false;
      active += 1;
      peakWorkers = Math.max(peakWorkers, active);
      try {
        await slot.current().catch((err) => {
          if (!(err instanceof BrowserFailure)) throw err;
        });
        for (let part = take(); part; part = scheduler.next()) {
          throwIfAborted(opts.signal);
          const sink = writer ? writer.sink(part) : discardingSink();
          const current = part;
          const done = await renderChunk(slot, part, sink, {
            onFrame: (frame, painted) => {
              // Closing the sessions on abort is not enough: the chunk renderer reopens a closed one.
              throwIfAborted(opts.signal);
              current.next = frame + 1;
              if (!drew) drawing += 1;
              drew = true;
              onFrame(painted);
            },
            onRelaunch: (message) => opts.onWarning?.(message),
            settleLater: true,
          });
          glyphs.push(done.missingGlyphs);
          segments.add(part.index);
          // Each page steps through every earlier frame, so the one that drew the last frame
          // has seen every media element of the timeline.
          if (part.endFrame === totalFrames) timeline = await (await slot.current()).mediaTimeline();
        }
      } catch (err) {
        // One failed part fails the render: stop the other workers now rather than at the end.
        fail(err);
        await slot.close();
        throw err;
      } finally {
        active -= 1;
      }
      // The page's last requests are judged (up to 0.3 s of quiet) while the output is joined,
      // which waits for the verdict before it appears; a refusal still stops the other workers.
      const settled = settleSession(slot).finally(() => slot.close());
      settled.catch(fail);
      settling.push(settled);
    };
    const pool: Array<Promise<void>> = [];
    const launch = (take: () => FramePart | undefined, slot?: SessionSlot) => {
      const running = work(take, slot);
      // Handled here as well as where the pool is awaited: a worker may fail after another has.
      running.catch(() => undefined);
      pool.push(running);
    };
    // `auto` starts the other planned workers only where they pay for their start. Each costs about
    // what the first took to its first frame (a browser, the page's load); where one browser would
    // draw the rest in less than twice that, it draws it alone (the planned ranges it has not
    // reached are its next parts). 60 frames of a CSS page took 1.8 s with one worker and 2.5 s
    // with two at 320x180; at 1920x1080, 3.8-4.2 s and 3.6-3.8 s. Workers are still added while
    // the cores sit idle (grow, below).
    const othersPayOff = async (): Promise<boolean> => {
      const startUp = performance.now() - startedAt;
      const from = { at: performance.now(), painted: framesPainted };
      await waitFor(() => framesPainted - from.painted >= PAYOFF_SAMPLE_FRAMES || failure !== undefined || active === 0);
      if (failure !== undefined || active === 0) return false;
      // Timed by the frames the page drew anew: one that repeats an unchanged page costs next to
      // nothing, and a page holding still at first (a title, the first slide) looked as if every
      // frame would (slides at 720p: 1.5-2.3 ms a frame sampled, about 10 ms drawn, one worker).
      const perFrame = (performance.now() - from.at) / (framesPainted - from.painted);
      return (totalFrames - framesDrawn) * perFrame > 2 * startUp;
    };
    // The other workers start their browsers once the first has drawn: started together they
    // share the cores and every one reaches its first frame late.
    const takePlanned = () => scheduler.takePlanned();
    launch(takePlanned, firstSlot);
    await waitFor(() => drawing > 0 || failure !== undefined);
    if (opts.workers !== 'auto' || (await othersPayOff())) {
      for (let i = 1; i < chunks.length && failure === undefined; i++) launch(takePlanned);
    }
    // `auto` adds workers, one at a time, while the cores sit idle with every worker drawing.
    const grow = async () => {
      while (pool.length < plan.max) {
        await waitFor(() => drawing >= pool.length || failure !== undefined || finished);
        const idle = measureIdle();
        await delay(ADD_SAMPLE_MS, undefined, { ref: false });
        if (failure !== undefined || finished || opts.signal?.aborted || !shouldAddWorker(idle()) || !scheduler.canSplit()) return;
        launch(() => scheduler.next());
      }
    };
    if (opts.workers === 'auto') void grow();
    for (let settled = 0; settled < pool.length; ) {
      const batch = pool.slice(settled);
      settled = pool.length;
      await Promise.all(batch).catch((err) => {
        throwIfAborted(opts.signal);
        throw failure ? failure.error : err;
      });
    }
    finished = true;
    const missingGlyphs = mergeMissingGlyphs(glyphs);
    // Before the output is joined: under --strict no output appears.
    if (opts.strictGlyphs && missingGlyphs.length > 0) throw missingGlyphsError(missingGlyphs);
    for (const m of missingGlyphs) opts.onWarning?.(describeMissingGlyphs(m));
    let joined = { frames: totalFrames, bytes: 0 };
    const cleared = Promise.all(settling).then(() => undefined);
    // Awaited below or by the writer; a refusal before then is not unhandled.
    cleared.catch(() => undefined);
    if (writer) joined = await writer.finish(scheduler.inOrder(), () => renderSoundtrack(timeline, sound, early), cleared);
    else await cleared;
    return {
      output,
      compositionId: composition.id,
      width: size.width,
      height: size.height,
      fps: context.fps,
      frames: joined.frames,
      durationSeconds: joined.frames / context.fps,
      bytes: joined.bytes,
      workers: peakWorkers,
      segments: segments.size,
      capture: profile.capture,
      gl: profile.gl,
      wallSeconds: (Date.now() - started) / 1000,
      firstFrameSeconds,
      missingGlyphs,
    };
  } catch (err) {
    // A part, a profile or the output that could not be written: its disk's fault, not the render's.
    throw renderWriteError(err, output);
  } finally {
    finished = true;
    opts.signal?.removeEventListener('abort', onAbort);
    await stopAll();
    await server.close();
    fs.rmSync(tmpDir, { recursive: true, force: true, maxRetries: 3 });
    fs.rmSync(partial, { recursive: true, force: true });
    untrackPath(tmpDir);
    untrackPath(partial);
  }
}

/**
 * The render's cells, or none when the first browser failed to start: the chunk renderer relaunches
 * it, and each part is then one segment.
 */
async function pageCells(read: () => Promise<ChunkRange[] | undefined>): Promise<ChunkRange[] | undefined> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof BrowserFailure) return undefined;
    throw err;
  }
}

/** Polls `done` every 20 ms: the workers' progress lives in plain counters. */
async function waitFor(done: () => boolean): Promise<void> {
  while (!done()) await delay(20, undefined, { ref: false });
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new VidkitError('render interrupted', { exitCode: ExitCode.Interrupted });
}
