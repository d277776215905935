import { badInput } from '../errors';
import type { FrameFormat } from './capture-session';

export const QUALITIES = ['draft', 'standard', 'high'] as const;
export type Quality = (typeof QUALITIES)[number];

export interface QualitySettings {
  crf: number;
  preset: string;
  frameFormat: FrameFormat;
}

/** What `--quality` means; `--crf` overrides the CRF of any of them. */
export const QUALITY_SETTINGS: Record<Quality, QualitySettings> = {
  draft: { crf: 28, preset: 'ultrafast', frameFormat: { type: 'jpeg', quality: 75 } },
  standard: { crf: 18, preset: 'veryfast', frameFormat: { type: 'jpeg', quality: 90 } },
  high: { crf: 12, preset: 'medium', frameFormat: { type: 'png' } },
};

export function qualitySettings(quality: string | undefined, crf: string | undefined): QualitySettings {
  const name = quality ?? 'standard';
  if (!(QUALITIES as readonly string[]).includes(name)) {
    throw badInput(`--quality must be one of ${QUALITIES.join(', ')}, got "${name}"`);
  }
  const base = QUALITY_SETTINGS[name as Quality];
  if (crf === undefined) return base;
  const n = Number(crf);
  if (!Number.isInteger(n) || n < 0 || n > 51) throw badInput(`--crf must be a whole number from 0 to 51, got "${crf}"`);
  return { ...base, crf: n };
}
