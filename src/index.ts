// The programmatic render API (package entry `vidkit`): `vidkit render` as a function, with the
// CLI's defaults. The cloud SDK is `vidkit/cloud-sdk`, the player `vidkit/player`.
import type { Overrides } from './composition/variables';
import { badInput } from './errors';
import { FPS_RULE, MAX_ASSET_BYTES_RULE, isValidFps, isValidMaxAssetBytes } from './options/checks';
import { inputLimits } from './options/input-limits';
import type { ApiOptions } from './options/registry';
import type { CaptureMode } from './values/capture-mode';
import { OutputFormat, parseOutputFormat } from './values/formats';
import { LocalRenderResult, renderLocal } from './render/local-render';
import { parseDeliveryOptions } from './render/output/output-writer';
import { Quality, qualitySettings } from './values/quality';
import type { PageTimeouts } from './values/page-timeouts';
import { parseWorkers } from './render/plan/workers';
import { EPOCH_FORMS, parseEpoch } from './runtime/boot';

export { ExitCode, VidkitError } from './errors';
export type { CaptureMode, OutputFormat, Overrides, PageTimeouts, Quality };

/**
 * Options of {@link render}: every option of `vidkit render` that has an API name in the render
 * option table (src/options/registry.ts, described in docs/reference/render-options.md), typed and
 * defaulted as the flag is, plus what only a caller in this process can pass.
 */
export interface RenderOptions extends ApiOptions<'render'> {
  /** The project directory, holding `index.html`. */
  projectDir: string;
  /** Page deadlines in milliseconds; default 60 s to load, 30 s a frame (the CLI's --load-timeout and --frame-timeout, in seconds). */
  timeouts?: Partial<PageTimeouts>;
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
  if (options.fps !== undefined && !isValidFps(options.fps)) throw badInput(`options.fps must be ${FPS_RULE}, got ${JSON.stringify(options.fps)}`);
  if (options.maxAssetBytes !== undefined && !isValidMaxAssetBytes(options.maxAssetBytes)) {
    throw badInput(`options.maxAssetBytes must be ${MAX_ASSET_BYTES_RULE}, got ${JSON.stringify(options.maxAssetBytes)}`);
  }
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
    inputLimits: inputLimits(
      { maxVariableBytes: options.maxVariableBytes, maxVariablesBytes: options.maxVariablesBytes },
      { maxVariableBytes: 'options.maxVariableBytes', maxVariablesBytes: 'options.maxVariablesBytes' },
    ),
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
