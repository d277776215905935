// The programmatic render API (package entry `vidkit`): `vidkit render` as a function, with the
// CLI's defaults. The cloud SDK is `vidkit/cloud-sdk`, the player `vidkit/player`.
import type { Overrides } from './composition/variables';
import type { ApiOptions } from './options/registry';
import { resolveRenderSettings } from './options/resolve';
import type { CaptureMode } from './values/capture-mode';
import type { OutputFormat } from './values/formats';
import { LocalRenderResult, renderLocal } from './render/local-render';
import type { Quality } from './values/quality';
import type { PageTimeouts } from './values/page-timeouts';

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
  /** `workers`: those planned. Under `auto` the first may draw alone; the result's `workers` counts those that ran. */
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
  const settings = resolveRenderSettings('api', options);
  const { values } = settings;
  return renderLocal({
    projectDir: options.projectDir,
    composition: options.composition,
    output: options.output,
    format: settings.format,
    gifLoop: settings.gifLoop,
    hlsSegmentSeconds: settings.hlsSegmentSeconds,
    overrides: options.variables ?? {},
    strictVariables: options.strictVariables ?? false,
    inputLimits: settings.inputLimits,
    workers: settings.workers,
    fps: values.fps,
    width: values.width,
    height: values.height,
    resolution: options.resolution,
    ...settings.encode,
    allowGpu: settings.allowGpu,
    capture: settings.capture,
    allowMissingMedia: options.allowMissingMedia,
    allowPrivateNetwork: options.allowPrivateNetwork,
    allowServiceWorkers: options.allowServiceWorkers,
    maxAssetBytes: values.maxAssetBytes,
    timeouts: settings.timeouts,
    seed: values.seed,
    epochMs: values.epoch,
    signal: options.signal,
    onWarning: options.onWarning,
    onInfo: options.onInfo,
    onStart: options.onStart,
    onFrame: options.onFrame,
  });
}
