// The checks an option's value passes wherever it comes from (a flag, render(), the SDK's config),
// each with the rule a message states, so every path accepts and refuses the same values. Each
// entry of the option table names its check (registry.ts); resolve.ts runs them.
import { badInput } from '../errors';
import { MAX_TIMEOUT_SECONDS, OUTPUT_FORMATS, QUALITIES } from '../values/constants';
import { EPOCH_FORMS, parseEpoch } from '../values/epoch';
import { FPS_RULE, isValidFps } from '../values/fps';
import type { OutputFormat } from '../values/formats';
import { SIDE_RULE, isValidSide } from '../values/output-size';
import type { Quality } from '../values/quality';

export const MAX_ASSET_BYTES_RULE = 'a whole number of bytes above 0';
export const LIMIT_RULE = 'a whole number of bytes above 0';
export const TIMEOUT_RULE = `a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}`;

export function isValidMaxAssetBytes(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

export function isValidLimit(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

export function isValidTimeoutSeconds(value: unknown): value is number {
  return typeof value === 'number' && value > 0 && value <= MAX_TIMEOUT_SECONDS;
}

/**
 * Reads one option's value, a flag's text or what render() and the SDK pass, and returns it checked
 * as its API type; `name` is what a refusal calls the option (`--fps`, `options.fps`...).
 */
export type OptionCheck<T> = (value: unknown, name: string) => T;

/** A refusal naming the option, the rule and the value given. */
export function refuse(name: string, rule: string, value: unknown): never {
  throw badInput(`${name} must be ${rule}, got ${JSON.stringify(value)}`);
}

/** A flag's text as a number (NaN for text that is none); any other value as it is. */
function numeric(value: unknown): unknown {
  return typeof value === 'string' ? Number(value) : value;
}

/** A number that `valid` accepts. */
function numberCheck(rule: string, valid: (n: unknown) => boolean): OptionCheck<number> {
  return (value, name) => {
    const n = numeric(value);
    return valid(n) ? (n as number) : refuse(name, rule, value);
  };
}

/** A whole number from `min` to `max`. */
function wholeCheck(min: number, max: number, rule = `a whole number from ${min} to ${max}`): OptionCheck<number> {
  return numberCheck(rule, (n) => typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max);
}

/** One of `names`. */
function oneOf<T extends string>(names: readonly T[]): OptionCheck<T> {
  return (value, name) => ((names as readonly unknown[]).includes(value) ? (value as T) : refuse(name, `one of ${names.join(', ')}`, value));
}

/** "auto" or a whole number from 1 to 64: browsers at once. */
const workers: OptionCheck<number | 'auto'> = (value, name) =>
  value === 'auto' ? 'auto' : wholeCheck(1, 64, '"auto" or a whole number from 1 to 64')(value, name);

export const CHECKS = {
  fps: numberCheck(FPS_RULE, isValidFps),
  side: numberCheck(SIDE_RULE, isValidSide),
  format: oneOf<OutputFormat>(OUTPUT_FORMATS),
  quality: oneOf<Quality>(QUALITIES),
  crf: wholeCheck(0, 51),
  gifLoop: wholeCheck(0, 65535),
  hlsSegmentSeconds: wholeCheck(1, 60),
  workers,
  capture: oneOf(['auto', 'beginframe', 'screenshot'] as const),
  maxAssetBytes: numberCheck(MAX_ASSET_BYTES_RULE, isValidMaxAssetBytes),
  /** A flag's text must be digits only: `1e6` or `0x10` is no byte count a reader would expect. */
  limit: ((value, name) => {
    const n = typeof value === 'string' ? (/^[0-9]+$/.test(value) ? Number(value) : NaN) : value;
    return isValidLimit(n) ? n : refuse(name, LIMIT_RULE, value);
  }) as OptionCheck<number>,
  /** Seconds on the command line, milliseconds once read. */
  seconds: ((value, name) => numberCheck(TIMEOUT_RULE, isValidTimeoutSeconds)(value, name) * 1000) as OptionCheck<number>,
  epoch: ((value, name) => {
    const ms = typeof value === 'string' || typeof value === 'number' ? parseEpoch(value) : undefined;
    return ms ?? refuse(name, EPOCH_FORMS, value);
  }) as OptionCheck<number>,
  string: ((value, name) => (typeof value === 'string' ? value : refuse(name, 'a string', value))) as OptionCheck<string>,
  positive: wholeCheck(1, Number.MAX_SAFE_INTEGER, 'a whole number of at least 1'),
} satisfies Record<string, OptionCheck<unknown>>;
