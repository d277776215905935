import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadComposition, totalFrames as framesOf } from '../composition/composition';
import { resolveVariables } from '../composition/resolve';
import type { Overrides } from '../composition/variables';
import { ExitCode, VidkitError, badInput } from '../errors';
import { loadNative } from '../native';
import { AssetRouter } from './asset-router';
import { CaptureMode, findBrowser, resolveProfile } from './browser';
import { CaptureSession, FrameFormat, MediaElementTiming } from './capture-session';
import { ChunkRange, EncodeSettings, discardingSink, renderChunk, segmentEncoder } from './chunk-renderer';
import { OutputFormat, assertOutputExtension, formatExtension, hasAlpha } from './formats';
import { fpsToRational } from './fps';
import { resolveOutputSize } from './output-size';
import { serveProject } from './project-server';
import { RemoteAssets } from './remote-assets';
import { soundtrackOf } from './soundtrack';
import { VideoProxies } from './video-proxies';
import { WorkersOption, resolveWorkers } from './workers';

export interface LocalRenderOptions {
  projectDir: string;
  /** Defaults to `out/<composition id>.<format's extension>` under the working directory. */
  output?: string;
  /** Default mp4. */
  format?: OutputFormat;
  overrides: Overrides;
  strictVariables: boolean;
  workers: WorkersOption;
  /** Overrides the composition's `data-fps`. */
  fps?: number;
  /** Output size; the composition is drawn at the matching device scale factor. */
  width?: number;
  height?: number;
  crf: number;
  preset: string;
  x264Params?: string;
  frameFormat: FrameFormat;
  allowGpu: boolean;
  capture: CaptureMode | 'auto';
  /** A remote asset that cannot be fetched is a warning and a transparent placeholder, not an error. */
  allowMissingMedia?: boolean;
  /** `discard` captures every frame and drops it, writing nothing: the benchmarks' capture-only limit. */
  sink?: 'encode' | 'discard';
  signal?: AbortSignal;
  onWarning?: (message: string) => void;
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
  workers: number;
  capture: CaptureMode;
  gl: string;
  wallSeconds: number;
  /** Seconds from process start to the first captured frame. */
  firstFrameSeconds: number;
}

/**
 * `vidkit render`: plan chunks, render them in parallel browser sessions, join the segments.
 * The output appears only when complete: segments live in a temporary directory and the joined
 * file is written under a hidden partial name, then renamed.
 */
export async function renderLocal(opts: LocalRenderOptions): Promise<LocalRenderResult> {
  const started = Date.now();
  const composition = loadComposition(opts.projectDir);
  const variables = resolveVariables(composition, opts.overrides, opts.strictVariables);
  for (const w of variables.warnings) opts.onWarning?.(w);

  const fpsValue = opts.fps ?? composition.fps;
  const fps = fpsToRational(fpsValue);
  const totalFrames = framesOf(composition.durationSeconds, fpsValue);
  if (totalFrames < 1) throw badInput(`${composition.id}: data-duration ${composition.durationSeconds}s is shorter than one frame at ${fpsValue} fps`);

  const format = opts.format ?? 'mp4';
  const extension = formatExtension(format);
  const output = path.resolve(opts.output ?? path.join('out', `${composition.id}${extension}`));
  assertOutputExtension(opts.output ?? output, format);
  // Transparency needs PNG frames: JPEG has no alpha.
  const transparent = hasAlpha(format);
  const frameFormat: FrameFormat = transparent ? { type: 'png' } : opts.frameFormat;

  const size = resolveOutputSize(composition, opts.width, opts.height);
  const workers = resolveWorkers(opts.workers, totalFrames);
  const native = loadNative();
  const chunks: ChunkRange[] = native.planChunks({ totalFrames, maxParallelChunks: workers, chunkSize: 1 });
  const profile = await resolveProfile({ executablePath: findBrowser(), capture: captureFor(composition.entryFile, opts.capture), allowGpu: opts.allowGpu });
  opts.onInfo?.(
    `rendering ${composition.id}: ${size.width}x${size.height}, ${totalFrames} frames at ${fpsValue} fps, ` +
      `${chunks.length} worker${chunks.length === 1 ? '' : 's'}, capture ${profile.capture}, GL ${profile.gl} (${profile.glRenderer})`,
  );
  opts.onStart?.({ totalFrames, workers: chunks.length });

  const settings: EncodeSettings = {
    format,
    width: size.width,
    height: size.height,
    fps,
    crf: opts.crf,
    preset: opts.preset,
    x264Params: opts.x264Params,
    frameFormat,
  };
  // Each worker's encoder gets its share of the cores, the workers being the parallelism: on 2
  // cores x264 at its automatic count (3 threads) spent 22% more CPU than with one on the same
  // 180 1080p frames (4.1 vs 3.4 s, mostly kernel time).
  const encoderThreads = Math.max(1, Math.floor(os.availableParallelism() / chunks.length));
  fs.mkdirSync(path.dirname(output), { recursive: true });
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-'));
  const partial = path.join(path.dirname(output), `.${path.basename(output, extension)}.${process.pid}.partial${extension}`);
  const assetDir = path.join(tmpDir, 'assets');
  const remote = new RemoteAssets({ dir: assetDir, allowMissing: opts.allowMissingMedia ?? false, onWarning: opts.onWarning });
  const server = await serveProject(composition.projectDir, { remoteDir: assetDir });
  const assets = new AssetRouter({ projectDir: composition.projectDir, serverUrl: server.url, remote, proxies: new VideoProxies(assetDir) });
  const sessions = new Set<CaptureSession>();
  const closeAll = () => Promise.all([...sessions].map((s) => s.close()));
  const onAbort = () => void closeAll();
  opts.signal?.addEventListener('abort', onAbort);
  try {
    const boot = { variables: variables.values, fps: fpsValue, epochMs: started };
    let firstFrameSeconds = 0;
    const onFrame = () => {
      // performance.now() counts from process start: the time a user waits for the first frame.
      if (firstFrameSeconds === 0) firstFrameSeconds = performance.now() / 1000;
      opts.onFrame?.();
    };
    const url = new URL('index.html', server.url).href;
    let timeline: MediaElementTiming[] = [];
    // The other workers start their browsers once the first has its page open: started together
    // they share the cores and every one reaches its first frame late.
    let firstOpen: Promise<unknown> = Promise.resolve();
    const segments = await Promise.all(
      chunks.map(async (chunk) => {
        if (chunk.index > 0) await firstOpen;
        throwIfAborted(opts.signal);
        const opening = CaptureSession.open({
          profile,
          url,
          width: composition.width,
          height: composition.height,
          scale: size.scale,
          boot,
          format: frameFormat,
          transparent,
          assets,
        });
        if (chunk.index === 0) firstOpen = opening.catch(() => undefined);
        const session = await opening;
        sessions.add(session);
        try {
          throwIfAborted(opts.signal);
          const segment = path.join(tmpDir, `chunk-${String(chunk.index).padStart(4, '0')}${extension}`);
          const sink = opts.sink === 'discard' ? discardingSink() : segmentEncoder(settings, segment, encoderThreads);
          await renderChunk(session, chunk, sink, onFrame);
          // Each worker steps its page through every earlier frame, so the last one has seen
          // every media element of the timeline.
          if (chunk.endFrame === totalFrames) timeline = await session.mediaTimeline();
          return segment;
        } catch (err) {
          // One failed chunk fails the render: stop the other workers now rather than at the end.
          void closeAll();
          throw err;
        } finally {
          await session.close();
          sessions.delete(session);
        }
      }),
    ).catch((err) => {
      throwIfAborted(opts.signal);
      throw err;
    });
    let joined = { frames: totalFrames, bytes: 0 };
    if (opts.sink !== 'discard') {
      const audio = await soundtrackOf(timeline, {
        assets,
        durationSeconds: (totalFrames * fps.den) / fps.num,
      });
      joined = await native.concatSegments(segments, partial, { faststart: true, format, audio });
      fs.renameSync(partial, output);
    }
    return {
      output,
      compositionId: composition.id,
      width: size.width,
      height: size.height,
      fps: fpsValue,
      frames: joined.frames,
      durationSeconds: joined.frames / fpsValue,
      bytes: joined.bytes,
      workers: chunks.length,
      capture: profile.capture,
      gl: profile.gl,
      wallSeconds: (Date.now() - started) / 1000,
      firstFrameSeconds,
    };
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    await closeAll();
    await server.close();
    fs.rmSync(tmpDir, { recursive: true, force: true });
    fs.rmSync(partial, { force: true });
  }
}

/**
 * `auto` capture of a page with a `<video>` takes screenshots: with begin-frame control, a seeked
 * video's new picture was measured to reach the capture one seek late now and then (a whole
 * chunk one frame behind in about 1 render in 10 of the frame-index test composition, on a loaded
 * 2-core machine; none in 10 with screenshots, at about twice the time).
 */
export function captureFor(entryFile: string, capture: CaptureMode | 'auto'): CaptureMode | 'auto' {
  if (capture !== 'auto') return capture;
  return /<video[\s>]/i.test(fs.readFileSync(entryFile, 'utf8')) ? 'screenshot' : 'auto';
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new VidkitError('render interrupted', { exitCode: ExitCode.Interrupted });
}
