import { VidkitError, badInput } from '../../errors';
import type { MissingGlyphs } from '../../runtime/glyph-check';

export type { MissingGlyphs } from '../../runtime/glyph-check';

/** `"王" U+738B`: a character as a user finds it in their data. */
function character(ch: string): string {
  return `${JSON.stringify(ch)} U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** One finding as a warning line: the element, the variable its text came from, the characters. */
export function describeMissingGlyphs(m: MissingGlyphs): string {
  const from = m.variables.length === 0 ? '' : ` (variable${m.variables.length === 1 ? '' : 's'} ${m.variables.map((v) => JSON.stringify(v)).join(', ')})`;
  return `<${m.element}>${from} draws ${m.characters.map(character).join(', ')} as empty boxes: no font has ${m.characters.length === 1 ? 'it' : 'them'} (text ${JSON.stringify(m.text)})`;
}

/** Findings of several pages or ranges as one list: one entry per element and variables, each character once. */
export function mergeMissingGlyphs(lists: Iterable<readonly MissingGlyphs[]>): MissingGlyphs[] {
  const merged = new Map<string, MissingGlyphs>();
  for (const list of lists) {
    for (const m of list) {
      const key = `${m.element}\n${m.variables.join(',')}`;
      const known = merged.get(key);
      if (!known) merged.set(key, { ...m, characters: [...m.characters], variables: [...m.variables] });
      else for (const ch of m.characters) if (!known.characters.includes(ch)) known.characters.push(ch);
    }
  }
  return [...merged.values()];
}

/** `--strict`: text no font can draw fails the render (bad input: the text was given), every finding named. */
export function missingGlyphsError(found: readonly MissingGlyphs[]): VidkitError {
  return badInput(`--strict: text no font can draw: ${found.map(describeMissingGlyphs).join('; ')}`);
}
