import { Option } from 'clipanion';
import { parseOverrides } from '../composition/variables';
import type { RenderSettings } from '../render/render-context';
import type { AssetPolicy } from '../render/serve/served-composition';
import { cliOption } from '../options/cli-options';
import { checkVariablesText, readVariablesFile } from '../options/input-limits';
import { OVERRIDE_FLAGS, flagOf } from '../options/registry';
import { RawOptions, RenderOptionSettings, resolveRenderSettings } from '../options/resolve';
import { VidkitCommand } from './base-command';

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

  /**
   * The options of this command, read and checked by the option table: bad input fails here,
   * before any browser starts.
   */
  protected settings(): RenderOptionSettings {
    return resolveRenderSettings('cli', this as RawOptions);
  }

  /** What the page needs of the options, the variables read from their flag or file. */
  protected pageSettings(settings = this.settings()): PageSettings {
    const { values, inputLimits: limits } = settings;
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
      fps: values.fps,
      width: values.width,
      height: values.height,
      resolution: this.resolution,
      allowGpu: settings.allowGpu,
      capture: settings.capture,
      allowMissingMedia: this.allowMissingMedia,
      allowPrivateNetwork: this.allowPrivateNetwork,
      allowServiceWorkers: this.allowServiceWorkers,
      maxAssetBytes: values.maxAssetBytes,
      timeouts: settings.timeouts,
      seed: this.seed,
      epochMs: values.epoch,
      onWarning: (m) => this.warn(m),
    };
  }
}
