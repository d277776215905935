import { badInput } from '../errors';
import { FPS_CEILING } from './constants';

/** What a frame rate may be, locally or in the cloud, whoever gives it (an option or a composition's data-fps). */
export const FPS_RULE = `a number above 0 and at most ${FPS_CEILING}`;

export function isValidFps(value: unknown): value is number {
  return typeof value === 'number' && value > 0 && value <= FPS_CEILING;
}

export interface Rational {
  num: number;
  den: number;
}

/**
 * Frame rate as the exact fraction encoders need: whole rates as n/1, NTSC rates (29.97, 59.94,
 * 23.976) as n*1000/1001, anything else to the nearest 1/1000.
 */
export function fpsToRational(fps: number): Rational {
  if (!isValidFps(fps)) throw badInput(`fps must be ${FPS_RULE}, got ${fps}`);
  if (Number.isInteger(fps)) return { num: fps, den: 1 };
  const ntsc = Math.round(fps * 1.001);
  if (Math.abs((ntsc * 1000) / 1001 - fps) < 0.005) return { num: ntsc * 1000, den: 1001 };
  const num = Math.round(fps * 1000);
  const g = gcd(num, 1000);
  return { num: num / g, den: 1000 / g };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
