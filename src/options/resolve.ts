// The one way from the options a caller gives to the settings a render takes: every surface (the
// commands, render(), the cloud SDK's config, the templates' renderer, the studio) hands its raw
// options here, each is read and checked by its entry of the option table, and the settings several
// options make together (the encoder's, the page deadlines, the input limits) are made once.
import { badInput } from '../errors';
import type { CaptureMode } from '../values/capture-mode';
import type { OutputFormat } from '../values/formats';
import type { PageTimeouts } from '../values/page-timeouts';
import { QualitySettings, encodeSettings } from '../values/quality';
import { OptionCheck, TIMEOUT_RULE, isValidTimeoutSeconds, refuse } from './checks';
import { InputLimits, inputLimits } from './input-limits';
import { ApiValueTypes, RENDER_OPTIONS, RenderOptionName, flagOf, renderOptionEntries } from './registry';

/**
 * Who gives the options, which decides what a refusal calls one: the command line its flag
 * (`--fps`), render() the option (`options.fps`), the cloud SDK its config field
 * (`[validateConfig] config.fps:`), the studio page the field of its request (`"fps"`).
 */
export type SettingsSurface = 'cli' | 'api' | 'sdk' | 'studio';

const NAMING: Record<SettingsSurface, (name: string) => string> = {
  cli: (name) => (name in RENDER_OPTIONS ? flagOf(name as RenderOptionName) : name),
  api: (name) => `options.${name}`,
  sdk: (name) => `[validateConfig] config.${name}:`,
  studio: (name) => JSON.stringify(name),
};

type Registry = typeof RENDER_OPTIONS;

/** What an option holds once read: its check's result, else its API type, else the flag's. */
export type CheckedValue<K extends RenderOptionName> = Registry[K] extends { check: OptionCheck<infer T> }
  ? T
  : Registry[K] extends { api: infer A extends keyof ApiValueTypes }
    ? ApiValueTypes[A]
    : Registry[K] extends { kind: 'boolean' }
      ? boolean
      : string;

export type CheckedValues = { [K in RenderOptionName]?: CheckedValue<K> };

/** The options as a surface has them: a command itself, render()'s options, the SDK's config. */
export type RawOptions = { [K in RenderOptionName]?: unknown } & { timeouts?: unknown };

export interface RenderOptionSettings {
  /** Every option given, read and checked. */
  values: CheckedValues;
  format: OutputFormat;
  /** The encoder settings of `quality` (default standard), its CRF replaced by `crf`. */
  encode: QualitySettings;
  /** The page deadlines given (`--load-timeout`/`--frame-timeout` in seconds, or `timeouts` in milliseconds). */
  timeouts: Partial<PageTimeouts>;
  inputLimits: InputLimits;
  workers: number | 'auto';
  capture: CaptureMode | 'auto';
  allowGpu: boolean;
  /** Given with their format only. */
  gifLoop?: number;
  hlsSegmentSeconds?: number;
}

/** Reads and checks the options `raw` gives, as `surface` names them, into a render's settings. */
export function resolveRenderSettings(surface: SettingsSurface, raw: RawOptions): RenderOptionSettings {
  const name = NAMING[surface];
  const values: Record<string, unknown> = {};
  for (const [option, spec] of renderOptionEntries()) {
    const value = raw[option];
    if (value === undefined) continue;
    values[option] = spec.check ? spec.check(value, name(option)) : value;
  }
  const checked = values as CheckedValues;
  const format = checked.format ?? 'mp4';
  const forFormat = (option: 'gifLoop' | 'hlsSegmentSeconds', only: OutputFormat): number | undefined => {
    if (checked[option] !== undefined && format !== only) throw badInput(`${name(option)} applies to ${name('format')} ${only} only, not ${format}`);
    return checked[option];
  };
  return {
    values: checked,
    format,
    encode: encodeSettings(checked.quality, checked.crf),
    timeouts: { ...pageTimeouts(raw.timeouts, name), ...secondsTimeouts(checked) },
    inputLimits: inputLimits({ maxVariableBytes: checked.maxVariableBytes, maxVariablesBytes: checked.maxVariablesBytes }),
    workers: checked.workers ?? 'auto',
    capture: checked.capture ?? 'auto',
    allowGpu: checked.browserGpu ?? true,
    gifLoop: forFormat('gifLoop', 'gif'),
    hlsSegmentSeconds: forFormat('hlsSegmentSeconds', 'hls'),
  };
}

function secondsTimeouts(checked: CheckedValues): Partial<PageTimeouts> {
  return {
    ...(checked.loadTimeout === undefined ? {} : { loadMs: checked.loadTimeout }),
    ...(checked.frameTimeout === undefined ? {} : { frameMs: checked.frameTimeout }),
  };
}

/** render()'s and the SDK's `timeouts`: milliseconds of each page deadline, within the command line's range. */
function pageTimeouts(value: unknown, name: (option: string) => string): Partial<PageTimeouts> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) refuse(name('timeouts'), 'an object {loadMs?, frameMs?}', value);
  const timeouts: Partial<PageTimeouts> = {};
  for (const [key, ms] of Object.entries(value as object)) {
    if (key !== 'loadMs' && key !== 'frameMs') throw badInput(`${name('timeouts')} has unknown field ${JSON.stringify(key)}; it takes loadMs and frameMs`);
    if (typeof ms !== 'number' || !isValidTimeoutSeconds(ms / 1000)) refuse(name(`timeouts.${key}`), `milliseconds: ${TIMEOUT_RULE}, times 1000`, ms);
    timeouts[key] = ms;
  }
  return timeouts;
}
