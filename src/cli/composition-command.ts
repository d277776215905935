import { Option } from 'clipanion';
import { parseOverrides } from '../composition/variables';
import { badInput } from '../errors';
import type { CaptureMode } from '../values/capture-mode';
import { DEFAULT_TIMEOUTS } from '../values/constants';
import type { RenderSettings } from '../render/render-context';
import type { AssetPolicy } from '../render/serve/served-composition';
import { EPOCH_FORMS, parseEpoch } from '../runtime/boot';
import { FPS_RULE, MAX_ASSET_BYTES_RULE, TIMEOUT_RULE, isValidFps, isValidMaxAssetBytes, isValidTimeoutSeconds } from '../options/checks';
import { cliOption } from '../options/cli-options';
import { InputLimits, checkVariablesText, inputLimits, limitFlag, readVariablesFile } from '../options/input-limits';
import { OVERRIDE_FLAGS, flagOf } from '../options/registry';
import { VidkitCommand } from './base-command';

const CAPTURE_MODES = ['auto', 'beginframe', 'screenshot'];

/** What {@link CompositionCommand.pageSettings} parses: everything about drawing the page but the encoder. */
export type PageSettings = Omit<RenderSettings, 'crf' | 'preset' | 'x264Params' | 'x264ParamsWithVideo' | 'frameFormat'> & AssetPolicy;

/**
 * The options of every command that draws a composition on this machine (`render`, `still`):
 * the project, its variables, size, time and browser, taken from the render option table so both
 * read them alike.
 */
export abstract class CompositionCommand extends VidkitCommand {
  projectDir = Option.String({ required: true, name: 'projectDir' });
  composition = cliOption('composition');
  variables = cliOption('variables');
  variablesFile = cliOption('variablesFile');
  strictVariables = cliOption('strictVariables');
  browserGpu = cliOption('browserGpu');
  width = cliOption('width');
  height = cliOption('height');
  resolution = cliOption('resolution');
  fps = cliOption('fps');
  allowMissingMedia = cliOption('allowMissingMedia');
  allowPrivateNetwork = cliOption('allowPrivateNetwork');
  allowServiceWorkers = cliOption('allowServiceWorkers');
  maxAssetBytes = cliOption('maxAssetBytes');
  maxVariableBytes = cliOption('maxVariableBytes');
  maxVariablesBytes = cliOption('maxVariablesBytes');
  seed = cliOption('seed');
  epoch = cliOption('epoch');
  capture = cliOption('capture');
  loadTimeout = cliOption('loadTimeout');
  frameTimeout = cliOption('frameTimeout');
  json = Option.Boolean('--json', false, { description: 'Print the result as JSON on stdout' });

  /** The options above, checked: bad input fails here, before any browser starts. */
  protected pageSettings(): PageSettings {
    const fps = this.fps === undefined ? undefined : Number(this.fps);
    if (fps !== undefined && !isValidFps(fps)) throw badInput(`${flagOf('fps')} must be ${FPS_RULE}, got "${this.fps}"`);
    if (!CAPTURE_MODES.includes(this.capture)) throw badInput(`${flagOf('capture')} must be one of ${CAPTURE_MODES.join(', ')}, got "${this.capture}"`);
    const maxAssetBytes = this.maxAssetBytes === undefined ? undefined : Number(this.maxAssetBytes);
    if (maxAssetBytes !== undefined && !isValidMaxAssetBytes(maxAssetBytes)) {
      throw badInput(`${flagOf('maxAssetBytes')} must be ${MAX_ASSET_BYTES_RULE}, got "${this.maxAssetBytes}"`);
    }
    const epochMs = this.epoch === undefined ? undefined : parseEpoch(this.epoch);
    if (this.epoch !== undefined && epochMs === undefined) throw badInput(`${flagOf('epoch')} must be ${EPOCH_FORMS}, got "${this.epoch}"`);
    const limits = this.inputLimits();
    const overrides = parseOverrides(
      { json: this.variables, file: this.variablesFile },
      (p) => readVariablesFile(p, limits, flagOf('variablesFile')),
      OVERRIDE_FLAGS,
      (text, what) => checkVariablesText(text, what, limits),
    );
    return {
      projectDir: this.projectDir,
      composition: this.composition,
      overrides,
      strictVariables: this.strictVariables,
      inputLimits: limits,
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
        loadMs: seconds(flagOf('loadTimeout'), this.loadTimeout, DEFAULT_TIMEOUTS.loadMs),
        frameMs: seconds(flagOf('frameTimeout'), this.frameTimeout, DEFAULT_TIMEOUTS.frameMs),
      },
      seed: this.seed,
      epochMs,
      onWarning: (m) => this.warn(m),
    };
  }

  /** `--max-variable-bytes` and `--max-variables-bytes`, or their defaults. */
  protected inputLimits(): InputLimits {
    return inputLimits({
      maxVariableBytes: limitFlag(flagOf('maxVariableBytes'), this.maxVariableBytes),
      maxVariablesBytes: limitFlag(flagOf('maxVariablesBytes'), this.maxVariablesBytes),
    });
  }
}

/** A positive number of seconds as milliseconds, or `fallback` when the option is absent. */
export function seconds(option: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!isValidTimeoutSeconds(n)) throw badInput(`${option} must be ${TIMEOUT_RULE}, got "${value}"`);
  return n * 1000;
}
