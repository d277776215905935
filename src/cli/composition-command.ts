import { Option } from 'clipanion';
import { parseOverrides } from '../composition/variables';
import type { RenderSettings } from '../render/render-context';
import type { AssetPolicy } from '../render/serve/served-composition';
import type { SharedCliValues } from '../options/cli-options';
import { checkVariablesText, readVariablesFile } from '../options/input-limits';
import { OVERRIDE_FLAGS, flagOf } from '../options/registry';
import { RawOptions, RenderOptionSettings, resolveRenderSettings } from '../options/resolve';
import { VidkitCommand } from './base-command';

/** What {@link CompositionCommand.pageSettings} parses: everything about drawing the page but the encoder. */
export type PageSettings = Omit<RenderSettings, 'crf' | 'preset' | 'x264Params' | 'x264ParamsWithVideo' | 'frameFormat'> & AssetPolicy;

/**
 * A command that draws a composition on this machine (`render`, `still`): the project, its
 * variables, size, time and browser read alike from the render option table.
 */
export abstract class CompositionCommand extends VidkitCommand {
  projectDir = Option.String({ required: true, name: 'projectDir' });

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

/**
 * The options it reads: those the table applies to `render` and to `still` alike, which each
 * command defines with the rest of its surface's (`withSurfaceOptions`).
 */
export interface CompositionCommand extends SharedCliValues<'render' | 'still'> {}
