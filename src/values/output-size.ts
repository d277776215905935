import { badInput } from '../errors';

export interface OutputSize {
  width: number;
  height: number;
  /** Device pixels per CSS pixel of the composition. */
  scale: number;
}

/** What an output width or height may be: even, as H.264 yuv420p needs, and within every encoder's level. */
export const SIDE_RULE = 'an even whole number of pixels from 2 to 16384';

export function isValidSide(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 2 && value <= 16384 && value % 2 === 0;
}

/**
 * The output size for `--width`/`--height` (each checked by {@link isValidSide} where the options
 * are read): the composition is drawn at a device scale factor, never stretched, so the two must
 * keep its aspect ratio. Either alone implies the other.
 */
export function resolveOutputSize(comp: { width: number; height: number }, width?: number, height?: number): OutputSize {
  if (width === undefined && height === undefined) return { width: comp.width, height: comp.height, scale: 1 };
  const scale = width !== undefined ? width / comp.width : height! / comp.height;
  const w = width ?? even(comp.width * scale);
  const h = height ?? even(comp.height * scale);
  if (Math.abs(w / h - comp.width / comp.height) > 2 / Math.min(w, h)) {
    throw badInput(`--width ${w} --height ${h} does not keep the composition's ${comp.width}x${comp.height} aspect ratio; give one of them`);
  }
  return { width: w, height: h, scale };
}

function even(n: number): number {
  return Math.max(2, 2 * Math.round(n / 2));
}
