import { Composition, checkedFrames, loadComposition } from '../composition/composition';
import { resolveVariables } from '../composition/resolve';
import type { Overrides } from '../composition/variables';
import { badInput } from '../errors';
import { Determinism, RuntimeBoot, fontsStylesheetUrl, runtimeBoot } from '../runtime/boot';
import type { AssetRouter } from './serve/asset-router';
import { findBrowser, resolveProfile } from './browser/browser';
import type { CaptureMode } from '../values/capture-mode';
import type { PageTimeouts } from '../values/page-timeouts';
import type { BrowserProfile } from './browser/browser';
import type { CaptureSession, SessionOptions } from './capture/capture-session';
import type { FrameFormat } from '../values/quality';
import type { ChunkRange, EncodeSettings } from './capture/chunk-renderer';
import { cellGrid } from './plan/cell-grid';
import { OutputFormat, capturesPng, hasAlpha, isDirectoryFormat, takesConvertedFrames } from '../values/formats';
import { Rational, fpsToRational } from '../values/fps';
import { OutputSize, resolveOutputSize } from '../values/output-size';
import { hasVideoElement, projectPage } from '../composition/project-page';
import { resolutionSize } from '../values/resolution-presets';
import { DEFAULT_TIMEOUTS } from '../values/constants';
import { DEFAULT_INPUT_LIMITS, InputLimits, checkVariables } from '../options/input-limits';
import { flagOf } from '../options/registry';


/** Level 6.2 of H.264, HEVC and VP9 alike: the most pixels a frame of any output format may have. */
const MAX_FRAME_PIXELS = 35_651_584;
const MAX_SIDE = 16_384;

/** What a caller asks of a render, local or cloud: the project, its variables and how to draw and encode it. */
export interface RenderSettings extends Determinism {
  projectDir: string;
  /** The page to render, a path in the project; default index.html. */
  composition?: string;
  overrides: Overrides;
  strictVariables: boolean;
  /** Bounds on the overrides; default {@link DEFAULT_INPUT_LIMITS}. */
  inputLimits?: InputLimits;
  /** Text that no font can draw fails the render, before any output appears (otherwise a warning). */
  strictGlyphs?: boolean;
  /** Overrides the composition's `data-fps`. */
  fps?: number;
  /** Output size; the composition is drawn at the matching device scale factor. */
  width?: number;
  height?: number;
  /** A named output size (`1080p`, `portrait-720p`...), instead of width and height. */
  resolution?: string;
  crf: number;
  preset: string;
  /** Extra x264 options after the preset (mp4 only). */
  x264Params?: string;
  /** Instead of `x264Params` when the page has a `<video>` (mp4 only). */
  x264ParamsWithVideo?: string;
  /** Frames as the browser hands them over; alpha formats always take PNG. */
  frameFormat: FrameFormat;
  capture: CaptureMode | 'auto';
  allowGpu: boolean;
  /** Page deadlines; each defaults as in {@link DEFAULT_TIMEOUTS}. */
  timeouts?: Partial<PageTimeouts>;
}

export interface RenderContextOptions extends RenderSettings {
  format: OutputFormat;
  /** Checks of the caller's own (the output path) that must pass before a browser starts. */
  beforeBrowser?: (planned: PlannedRender) => void;
  /**
   * Frames of the render when the composition's root declares no data-duration and the caller
   * already knows them (the cloud plan step measured the page, see {@link framesOfPage}).
   */
  totalFrames?: number;
}

/** What is known of a render before any browser starts. */
export type PlannedRender = Omit<RenderContext, 'profile' | 'sessionOptions'>;

/**
 * Everything about one render that does not depend on who renders it: the composition, its
 * variables, size, frames, encoder settings, browser profile and page deadlines. Built once, in
 * one place, by `vidkit render` and by the cloud chunk function alike.
 */
export interface RenderContext {
  composition: Composition;
  /** Warnings about the variables (mismatches that did not stop the render). */
  warnings: string[];
  fps: number;
  /**
   * Undefined when the root declares no data-duration: the page tells its length once loaded
   * ({@link framesOfPage}).
   */
  totalFrames?: number;
  size: OutputSize;
  format: OutputFormat;
  transparent: boolean;
  profile: BrowserProfile;
  settings: EncodeSettings;
  boot: RuntimeBoot;
  timeouts: PageTimeouts;
  /** `--strict`: an image, stylesheet or font that fails to load fails the render. */
  strictLoads: boolean;
  /** Options of one capture session of this render. */
  sessionOptions(url: string, assets: AssetRouter | undefined, profileDir?: string): SessionOptions;
}

/**
 * Everything that can be checked before a browser starts is checked here, so bad input fails in
 * milliseconds with a message naming it, never after a browser launch.
 */
export function planRender(opts: Omit<RenderContextOptions, 'capture' | 'allowGpu'>): PlannedRender {
  checkVariables(opts.overrides, 'variables', opts.inputLimits ?? DEFAULT_INPUT_LIMITS);
  const composition = loadComposition(opts.projectDir, opts.composition);
  // Mounted here too, so that a missing or looping data-composition-src fails before a browser starts.
  const page = projectPage(composition.projectDir, composition.entryFile);
  const variables = resolveVariables(composition, opts.overrides, opts.strictVariables);
  const fps = opts.fps ?? composition.fps;
  const totalFrames =
    composition.durationSeconds === undefined ? opts.totalFrames : checkedFrames(composition.id, composition.durationSeconds, fps, 'data-duration');
  const size = outputSizeOf(composition, opts);
  assertEncodableSize(size);
  const transparent = hasAlpha(opts.format);
  // Transparency needs PNG frames (JPEG has no alpha); the gif palette is built from lossless ones.
  const frameFormat: FrameFormat = capturesPng(opts.format) ? { type: 'png' } : opts.frameFormat;
  const rational: Rational = fpsToRational(fps);
  return {
    composition,
    strictLoads: opts.strictGlyphs === true,
    warnings: variables.warnings,
    fps,
    totalFrames,
    size,
    format: opts.format,
    transparent,
    settings: {
      format: opts.format,
      width: size.width,
      height: size.height,
      fps: rational,
      crf: opts.crf,
      preset: opts.preset,
      x264Params: opts.x264ParamsWithVideo !== undefined && hasVideoElement(page) ? opts.x264ParamsWithVideo : opts.x264Params,
      frameFormat,
    },
    boot: { ...runtimeBoot(variables.values, opts.overrides, fps, opts), transparent },
    timeouts: { ...DEFAULT_TIMEOUTS, ...opts.timeouts },
  };
}

/** {@link planRender}, then the browser profile (probed once per browser binary). */
export async function createRenderContext(opts: RenderContextOptions): Promise<RenderContext> {
  const planned = planRender(opts);
  opts.beforeBrowser?.(planned);
  return withProfile(planned, await profileFor(opts));
}

/** The browser profile a render runs with: one per render, or one for a warm pool's every row. */
export function profileFor(opts: Pick<RenderSettings, 'capture' | 'allowGpu'>): Promise<BrowserProfile> {
  return resolveProfile({ executablePath: findBrowser(), capture: opts.capture, allowGpu: opts.allowGpu });
}

/** A planned render made whole with the profile its sessions run with. */
export function withProfile(planned: PlannedRender, profile: BrowserProfile): RenderContext {
  return {
    ...planned,
    profile,
    sessionOptions: (url, assets, profileDir) => ({
      profile,
      url,
      width: planned.composition.width,
      height: planned.composition.height,
      scale: planned.size.scale,
      boot: { ...planned.boot, fontsUrl: fontsStylesheetUrl(url) },
      format: planned.settings.frameFormat,
      transparent: planned.transparent,
      assets,
      timeouts: planned.timeouts,
      profileDir,
      strictLoads: planned.strictLoads,
      rawFrames: takesConvertedFrames(planned.format),
    }),
  };
}

function outputSizeOf(composition: Composition, opts: Pick<RenderSettings, 'width' | 'height' | 'resolution'>): OutputSize {
  if (opts.resolution === undefined) return resolveOutputSize(composition, opts.width, opts.height);
  if (opts.width !== undefined || opts.height !== undefined) {
    throw badInput('--resolution names the output size: give it or --width/--height, not both');
  }
  const preset = resolutionSize(opts.resolution, composition, flagOf('resolution'));
  return resolveOutputSize(composition, preset.width, preset.height);
}

function assertEncodableSize({ width, height }: OutputSize): void {
  if (width > MAX_SIDE || height > MAX_SIDE || width * height > MAX_FRAME_PIXELS) {
    throw badInput(
      `output ${width}x${height} is over the encoders' limit of ${MAX_SIDE} pixels a side and ${MAX_FRAME_PIXELS} pixels a frame ` +
        '(8192x4352, level 6.2): lower --width/--height or data-width/data-height',
    );
  }
}

/**
 * The frames of a composition whose root declares no data-duration, from the length its page
 * reports once ready (a session opened on it).
 */
export async function framesOfPage(context: PlannedRender, session: CaptureSession): Promise<number> {
  return checkedFrames(context.composition.id, await session.durationSeconds(), context.fps, 'its inferred length');
}

/**
 * The cells a render of `context` encodes each alone (render/plan/cell-grid.ts), from what its
 * variables reach in its loaded page; undefined for the formats that keep frames (gif,
 * png-sequence) or cut their own grid (hls).
 */
export async function cellsOfPage(context: PlannedRender, session: CaptureSession, totalFrames: number): Promise<ChunkRange[] | undefined> {
  if (context.format === 'gif' || isDirectoryFormat(context.format)) return undefined;
  return cellGrid(await session.reach(totalFrames), context.boot, totalFrames, context.settings.fps);
}
