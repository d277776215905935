import { badInput } from '../errors';

/** A flag that takes a whole number of at least 1, or is absent. */
export function wholeNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw badInput(`${flag} must be a whole number of at least 1, got "${value}"`);
  return n;
}

export const BUCKET_DESCRIPTION = 'Render bucket (default: VIDKIT_BUCKET)';
export const STATE_MACHINE_DESCRIPTION = 'Render state machine ARN (default: VIDKIT_SFN_ARN)';
export const FORMAT_DESCRIPTION =
  'Output format: mp4 (default), webm (VP9 with alpha) or mov (ProRes 4444 with alpha); HDR (hdr-pq, hdr-hlg), gif, png-sequence and hls are rendered on this machine only (`vidkit render`)';
