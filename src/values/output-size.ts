import { badInput } from '../errors';

export interface OutputSize {
  width: number;
  height: number;
  /** Device pixels per CSS pixel of the composition. */
  scale: number;
}

/**
 * The output size for `--width`/`--height`: the composition is drawn at a device scale factor,
 * never stretched, so the two must keep its aspect ratio. Either alone implies the other.
 * Sizes are even, as H.264 yuv420p needs. `names` are what messages call the two: flags or properties.
 */
export function resolveOutputSize(
  comp: { width: number; height: number },
  width: number | undefined,
  height: number | undefined,
  names: { width: string; height: string },
): OutputSize {
  for (const [name, v] of [[names.width, width], [names.height, height]] as const) {
    if (v !== undefined && !(Number.isInteger(v) && v >= 2 && v <= 16384 && v % 2 === 0)) {
      throw badInput(`${name} must be an even whole number of pixels from 2 to 16384, got ${v}`);
    }
  }
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
