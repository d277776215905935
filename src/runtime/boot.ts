/**
 * The page runtime's configuration and its documented defaults, built here for `vidkit render`,
 * the render function and `<vidkit-player>` alike, so all three show the same random numbers and
 * dates. No Node imports: the player bundles this module.
 */
import { FONTS_PREFIX } from '../fonts/fonts-prefix';
import { DEFAULT_SEED } from '../values/constants';
import type { RuntimeBoot } from './protocol';

export type { RuntimeBoot } from './protocol';

/** The bundled fonts' stylesheet for a page the project server at `pageUrl`'s origin serves. */
export function fontsStylesheetUrl(pageUrl: string): string {
  return new URL(`${FONTS_PREFIX}fonts.css`, pageUrl).href;
}

/** The seed and epoch a render or a player asks for; unset, the defaults below. */
export interface Determinism {
  seed?: string;
  epochMs?: number;
}

/** 2024-01-01T00:00:00Z. */
export const DEFAULT_EPOCH_MS = Date.UTC(2024, 0, 1);

export function runtimeBoot(
  variables: Record<string, unknown>,
  overrides: Record<string, unknown>,
  fps: number,
  determinism: Determinism,
): RuntimeBoot {
  return { variables, overrides, fps, seed: determinism.seed ?? DEFAULT_SEED, epochMs: determinism.epochMs ?? DEFAULT_EPOCH_MS };
}
