// The programmatic render API (package entry `vidkit`): `vidkit render` as a function, with the
// CLI's defaults. The cloud SDK is `vidkit/cloud-sdk`, the player `vidkit/player`.
import type { Overrides } from './composition/variables';
import { badInput } from './errors';
import type { CaptureMode } from './render/browser';
import { OutputFormat, parseOutputFormat } from './render/formats';
import { LocalRenderResult, renderLocal } from './render/local-render';
import { parseDeliveryOptions } from './render/output-writer';
import { Quality, qualitySettings } from './render/quality';
import type { PageTimeouts } from './render/render-context';
import { parseWorkers } from './render/workers';
import { EPOCH_FORMS, parseEpoch } from './runtime/boot';

export { ExitCode, VidkitError } from './errors';
export type { CaptureMode, OutputFormat, Overrides, PageTimeouts, Quality };

/** Options of {@link render}; each mirrors a flag of `vidkit render` and defaults the same way. */
export interface RenderOptions {
  /** The project directory, holding `index.html`. */
  projectDir: string;
  /** The page to render, a path in the project (`vidkit render --composition`); default `index.html`. */
  composition?: string;
  /** Defaults to `out/<composition id>.<format's extension>` under the working directory. */
  output?: string;
  /** Default `mp4`. */
  format?: OutputFormat;
  /** Overrides of the declared variables' defaults. */
  variables?: Overrides;
  /** Undeclared or mistyped variables fail the render instead of warning. Default false. */
  strictVariables?: boolean;
  /** Parallel browser sessions, 1 to 64, or `auto` (the default). */
  workers?: number | 'auto';
  /** Overrides the composition's `data-fps`. */
  fps?: number;
  /** Output size in pixels, keeping the aspect ratio; default `data-width` × `data-height`. */
  width?: number;
  height?: number;
  /** A named output size instead of width and height: `1080p`, `720p`, `portrait-4k`... (docs/reference/resolution-presets.md). */
  resolution?: string;
  /** `gif` only: repeats after the first play, 0 to 65535; default 0, for ever. */
  gifLoop?: number;
  /** `hls` only: whole seconds a segment lasts, 1 to 60; default 4. */
  hlsSegmentSeconds?: number;
  /** Default `standard`. */
  quality?: Quality;
  /** x264 CRF 0 to 51, overriding the quality's. */
  crf?: number;
  /** Use the GPU when the browser probe finds one. Default true. */
  browserGpu?: boolean;
  /** Default `auto`. */
  capture?: CaptureMode | 'auto';
  /** A remote asset that cannot be fetched is a warning and a transparent placeholder, not an error. */
  allowMissingMedia?: boolean;
  /** The page and its remote assets may reach loopback, link-local and private addresses (refused by default). */
  allowPrivateNetwork?: boolean;
  /** The page may register service workers (refused by default). */
  allowServiceWorkers?: boolean;
  /** Bytes one remote asset may have; default 512 MiB. */
  maxAssetBytes?: number;
  /** Page deadlines in milliseconds; default 60 s to load, 30 s a frame. */
  timeouts?: Partial<PageTimeouts>;
  /** Seeds `Math.random` and `crypto` in the page; default `vidkit`. */
  seed?: string;
  /** What `Date` reads at time 0: an ISO date or ms since 1970; default 2024-01-01T00:00:00Z. */
  epoch?: string | number;
  /** Aborting stops the render; it then rejects with exit code 130 and leaves no output. */
  signal?: AbortSignal;
  onWarning?: (message: string) => void;
  onInfo?: (message: string) => void;
  onStart?: (plan: { totalFrames: number; workers: number }) => void;
  /** Called once per captured frame. */
  onFrame?: () => void;
}

export type RenderResult = LocalRenderResult;

/**
 * Renders a composition to a video file on this machine, as `vidkit render` does; resolves once
 * the output is complete. Rejects with a {@link VidkitError} whose `exitCode` is the CLI's.
 */
export async function render(options: RenderOptions): Promise<RenderResult> {
  const quality = qualitySettings(options.quality, options.crf === undefined ? undefined : String(options.crf), {
    quality: 'options.quality',
    crf: 'options.crf',
  });
  const epochMs = options.epoch === undefined ? undefined : parseEpoch(options.epoch);
  if (options.epoch !== undefined && epochMs === undefined) {
    throw badInput(`options.epoch must be ${EPOCH_FORMS}, got ${JSON.stringify(options.epoch)}`);
  }
  const format = parseOutputFormat(options.format, 'options.format');
  const delivery = parseDeliveryOptions(
    format,
    { gifLoop: options.gifLoop?.toString(), hlsSegmentSeconds: options.hlsSegmentSeconds?.toString() },
    { format: 'options.format', gifLoop: 'options.gifLoop', hlsSegmentSeconds: 'options.hlsSegmentSeconds' },
  );
  return renderLocal({
    projectDir: options.projectDir,
    composition: options.composition,
    output: options.output,
    format,
    ...delivery,
    overrides: options.variables ?? {},
    strictVariables: options.strictVariables ?? false,
    workers: parseWorkers(options.workers === undefined ? undefined : String(options.workers), 'options.workers'),
    fps: options.fps,
    width: options.width,
    height: options.height,
    resolution: options.resolution,
    ...quality,
    allowGpu: options.browserGpu ?? true,
    capture: options.capture ?? 'auto',
    allowMissingMedia: options.allowMissingMedia,
    allowPrivateNetwork: options.allowPrivateNetwork,
    allowServiceWorkers: options.allowServiceWorkers,
    maxAssetBytes: options.maxAssetBytes,
    timeouts: options.timeouts,
    seed: options.seed,
    epochMs,
    signal: options.signal,
    onWarning: options.onWarning,
    onInfo: options.onInfo,
    onStart: options.onStart,
    onFrame: options.onFrame,
  });
}
