import * as fs from 'node:fs';
import { Option } from 'clipanion';
import { parseOverrides } from '../composition/variables';
import { badInput } from '../errors';
import type { CaptureMode } from '../render/browser';
import { DEFAULT_MAX_ASSET_BYTES } from '../render/remote-assets';
import { DEFAULT_TIMEOUTS, RenderSettings } from '../render/render-context';
import type { AssetPolicy } from '../render/served-composition';
import { DEFAULT_SEED, EPOCH_FORMS, parseEpoch } from '../runtime/boot';
import { VidkitCommand } from './base-command';

const CAPTURE_MODES = ['auto', 'beginframe', 'screenshot'];

/** What {@link CompositionCommand.pageSettings} parses: everything about drawing the page but the encoder. */
export type PageSettings = Omit<RenderSettings, 'crf' | 'preset' | 'x264Params' | 'frameFormat'> & AssetPolicy;

/**
 * The options of every command that draws a composition on this machine (`render`, `still`):
 * the project, its variables, size, time and browser, declared once so both read them alike.
 */
export abstract class CompositionCommand extends VidkitCommand {
  projectDir = Option.String({ required: true, name: 'projectDir' });
  composition = Option.String('--composition', {
    description: 'The page to render, a path in the project: a host page or a sub-composition file rendered on its own (default index.html; `vidkit compositions` lists them)',
  });
  variables = Option.String('--variables', { description: 'JSON object of variable overrides' });
  variablesFile = Option.String('--variables-file', { description: 'File holding a JSON object of variable overrides' });
  strictVariables = Option.Boolean('--strict-variables', false, { description: 'Fail on undeclared or mistyped variables' });
  browserGpu = Option.Boolean('--browser-gpu', true, { description: 'Use the GPU when the probe finds one; --no-browser-gpu forces software GL' });
  width = Option.String('--width', { description: 'Output width in pixels (keeps the aspect ratio; default data-width)' });
  height = Option.String('--height', { description: 'Output height in pixels (keeps the aspect ratio; default data-height)' });
  resolution = Option.String('--resolution', {
    description: 'Output size preset instead of --width/--height: 1080p, 720p, 480p, 4k (following the composition\'s orientation), or landscape, portrait, square with -4k, -720p, -480p',
  });
  fps = Option.String('--fps', { description: "Frames per second; default the composition's data-fps, else 30" });
  allowMissingMedia = Option.Boolean('--allow-missing-media', false, {
    description: 'A remote image or media file that cannot be fetched is a warning and a transparent placeholder instead of an error',
  });
  allowPrivateNetwork = Option.Boolean('--allow-private-network', false, {
    description: 'The page and its remote assets may reach loopback, link-local and private addresses (refused by default)',
  });
  allowServiceWorkers = Option.Boolean('--allow-service-workers', false, {
    description: 'The page may register service workers (refused by default: the render fails naming the worker)',
  });
  maxAssetBytes = Option.String('--max-asset-bytes', { description: `Bytes one remote asset may have (default ${DEFAULT_MAX_ASSET_BYTES}, 512 MiB)` });
  seed = Option.String('--seed', { description: `Seeds Math.random, crypto.getRandomValues and crypto.randomUUID in the page (default "${DEFAULT_SEED}")` });
  epoch = Option.String('--epoch', { description: 'What Date reads at time 0: an ISO date (2024-01-01, 2024-01-01T12:00:00Z) or ms since 1970 (default 2024-01-01T00:00:00Z)' });
  capture = Option.String('--capture', 'auto', { description: 'auto (a probe; screenshot for a page with <video>), beginframe (headless shell) or screenshot' });
  loadTimeout = Option.String('--load-timeout', {
    description: `Seconds the page may take to load and become ready (default ${DEFAULT_TIMEOUTS.loadMs / 1000})`,
  });
  frameTimeout = Option.String('--frame-timeout', {
    description: `Seconds one frame may take to seek and draw before the render fails (default ${DEFAULT_TIMEOUTS.frameMs / 1000})`,
  });
  json = Option.Boolean('--json', false, { description: 'Print the result as JSON on stdout' });

  /** The options above, checked: bad input fails here, before any browser starts. */
  protected pageSettings(): PageSettings {
    const fps = this.fps === undefined ? undefined : Number(this.fps);
    if (fps !== undefined && !(fps > 0 && fps <= 240)) throw badInput(`--fps must be a number above 0 and at most 240, got "${this.fps}"`);
    if (!CAPTURE_MODES.includes(this.capture)) throw badInput(`--capture must be one of ${CAPTURE_MODES.join(', ')}, got "${this.capture}"`);
    const maxAssetBytes = this.maxAssetBytes === undefined ? undefined : Number(this.maxAssetBytes);
    if (maxAssetBytes !== undefined && !(Number.isSafeInteger(maxAssetBytes) && maxAssetBytes > 0)) {
      throw badInput(`--max-asset-bytes must be a whole number of bytes above 0, got "${this.maxAssetBytes}"`);
    }
    const epochMs = this.epoch === undefined ? undefined : parseEpoch(this.epoch);
    if (this.epoch !== undefined && epochMs === undefined) throw badInput(`--epoch must be ${EPOCH_FORMS}, got "${this.epoch}"`);
    const overrides = parseOverrides({ json: this.variables, file: this.variablesFile }, (p) => fs.readFileSync(p, 'utf8'));
    return {
      projectDir: this.projectDir,
      composition: this.composition,
      overrides,
      strictVariables: this.strictVariables,
      fps,
      width: this.width === undefined ? undefined : Number(this.width),
      height: this.height === undefined ? undefined : Number(this.height),
      resolution: this.resolution,
      allowGpu: this.browserGpu,
      capture: this.capture as CaptureMode | 'auto',
      allowMissingMedia: this.allowMissingMedia,
      allowPrivateNetwork: this.allowPrivateNetwork,
      allowServiceWorkers: this.allowServiceWorkers,
      maxAssetBytes,
      timeouts: {
        loadMs: seconds('--load-timeout', this.loadTimeout, DEFAULT_TIMEOUTS.loadMs),
        frameMs: seconds('--frame-timeout', this.frameTimeout, DEFAULT_TIMEOUTS.frameMs),
      },
      seed: this.seed,
      epochMs,
      onWarning: (m) => this.warn(m),
    };
  }
}

/** A positive number of seconds as milliseconds, or `fallback` when the option is absent. */
function seconds(option: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!(n > 0 && n <= 3600)) throw badInput(`${option} must be a number of seconds above 0 and at most 3600, got "${value}"`);
  return n * 1000;
}
