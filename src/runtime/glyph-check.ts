import * as fs from 'node:fs';
import { builtFile } from '../package-info';
import { SYSTEM_FACE_NAMES } from '../fonts/fontconfig';

export type { MissingGlyphs } from './protocol';

/** Where the build writes the bundled glyph check (scripts/build-browser.mjs): beside glyph-check.js in dist/runtime/. */
export const GLYPH_CHECK_FILE = 'glyph-check-page.js';

let cachedSource: string | undefined;

/**
 * The glyph check (src/runtime/glyph-page/): a classic script the renderer evaluates on every new
 * document before the page runtime, so it keeps the real timer for its deadline. It installs
 * `window.__vidkitGlyphs` in the top frame; the player never runs it. In dist/ the build has
 * bundled it already; run from src/ (tests under tsx) it is bundled here, once per process.
 */
export function glyphCheckScript(): string {
  if (cachedSource === undefined) {
    const built = builtFile('runtime', GLYPH_CHECK_FILE);
    cachedSource = built !== undefined && fs.existsSync(built) ? fs.readFileSync(built, 'utf8') : bundleGlyphCheckScript();
  }
  return cachedSource;
}

/** The glyph check bundled for the faces vidkit's browser lists. esbuild, a build tool, loads only here. */
export function bundleGlyphCheckScript(): string {
  return (require('./page-bundle') as typeof import('./page-bundle')).bundleGlyphCheck(SYSTEM_FACE_NAMES);
}
