import { VidkitError } from '../errors';
import { surveyGlyphs } from './glyph-survey';
import { describeMissingGlyphs } from './capture/missing-glyphs';
import { ENTRY_FILE } from '../composition/composition';
import type { LintFinding } from '../composition/lint-finding';

/**
 * `glyph-missing`: text the composition draws with its default variables, at any frame, that no
 * font has (it would show as empty boxes), found by the render's own glyph check in a browser. A
 * page that cannot be opened (no browser, a script that throws) is a warning saying the rule did
 * not run; the other rules have said what is wrong with it.
 */
export async function lintGlyphs(projectDir: string): Promise<LintFinding[]> {
  try {
    const found = await surveyGlyphs(projectDir);
    return found.map((m) => ({
      severity: 'error',
      rule: 'glyph-missing',
      message: `with the default variables, ${describeMissingGlyphs(m)}`,
      file: ENTRY_FILE,
    }));
  } catch (err) {
    if (!(err instanceof VidkitError)) throw err;
    return [{ severity: 'warning', rule: 'glyph-missing', message: `the glyphs were not checked: ${err.message}`, file: ENTRY_FILE }];
  }
}
