import * as fs from 'node:fs';
import * as path from 'node:path';
import { SYSTEM_FACE_NAMES } from '../fonts/fontconfig';

let cachedSource: string | undefined;

/**
 * The glyph check (glyph-check.page.js beside this file, in src/ and in dist/ alike): a classic script
 * the renderer evaluates on every new document before the page runtime, so it keeps the real timer
 * for its deadline. It installs `window.__vidkitGlyphs` in the top frame; the player never runs it.
 */
export function glyphCheckScript(): string {
  cachedSource ??= ['(function () {', fs.readFileSync(path.join(__dirname, 'glyph-check.page.js'), 'utf8'), `installGlyphCheck(${JSON.stringify(SYSTEM_FACE_NAMES)});`, '})();'].join('\n');
  return cachedSource;
}

/** Text no available face can draw, as the glyph check reports it. */
export interface MissingGlyphs {
  /** The element drawing it, as `tag#id` or up to three `tag.class` steps from the nearest id. */
  element: string;
  /** Its text (the first 80 characters). */
  text: string;
  /** The characters no face has, each once, in order of appearance. */
  characters: string[];
  /** The variables whose string value the text holds: where the text came from. */
  variables: string[];
}
