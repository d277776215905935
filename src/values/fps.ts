import { badInput } from '../errors';
import { FPS_CEILING } from './constants';

export interface Rational {
  num: number;
  den: number;
}

/**
 * Frame rate as the exact fraction encoders need: whole rates as n/1, NTSC rates (29.97, 59.94,
 * 23.976) as n*1000/1001, anything else to the nearest 1/1000.
 */
export function fpsToRational(fps: number): Rational {
  if (!Number.isFinite(fps) || fps <= 0 || fps > FPS_CEILING) throw badInput(`fps must be between 0 and ${FPS_CEILING}, got ${fps}`);
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
