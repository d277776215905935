// The checks an option's value passes wherever it comes from (a flag, render(), the SDK's config),
// each with the rule a message states, so every path accepts and refuses the same values.
import { FPS_CEILING, MAX_TIMEOUT_SECONDS } from '../values/constants';

export const FPS_RULE = `a number above 0 and at most ${FPS_CEILING}`;
export const MAX_ASSET_BYTES_RULE = 'a whole number of bytes above 0';
export const TIMEOUT_RULE = `a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}`;

export function isValidFps(value: unknown): value is number {
  return typeof value === 'number' && value > 0 && value <= FPS_CEILING;
}

export function isValidMaxAssetBytes(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

export function isValidTimeoutSeconds(value: unknown): value is number {
  return typeof value === 'number' && value > 0 && value <= MAX_TIMEOUT_SECONDS;
}
