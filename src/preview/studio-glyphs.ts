import type { Overrides } from '../composition/variables';
import { badInput } from '../errors';
import { surveyGlyphs } from '../render/glyph-survey';
import { describeMissingGlyphs } from '../render/capture/missing-glyphs';

/** What the variables panel shows under its fields: each text no font can draw, as a render warns it. */
export interface GlyphWarnings {
  warnings: string[];
}

/**
 * The variables panel's glyph check: the page opened with the panel's values in the render's own
 * browser and glyph check (glyph-survey.ts), so a value the bundled and system fonts cannot draw
 * warns in the panel with the words a render warns it with, whatever fonts the person's own
 * browser has. One check runs at a time, each in a browser of its own.
 */
export function glyphChecker(projectDir: string): (body: unknown) => Promise<GlyphWarnings> {
  let running: Promise<unknown> = Promise.resolve();
  return async (body) => {
    const { composition, variables } = (body ?? {}) as Record<string, unknown>;
    if (typeof composition !== 'string' || composition === '') throw badInput('"composition" must name the page to check, e.g. index.html');
    if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) throw badInput('"variables" must be a JSON object');
    const check = running.then(() => surveyGlyphs(projectDir, {}, { composition, overrides: variables as Overrides }));
    running = check.catch(() => undefined);
    return { warnings: (await check).map(describeMissingGlyphs) };
  };
}
