import type { HTMLElement } from 'node-html-parser';
import { clipElementsOf } from '../composition/clip-lines';
import { badInput } from '../errors';

/**
 * An element the studio edits, named as the studio sees it in the player: the n-th clip of a
 * part (as the timeline lists clips, clip-lines.ts), or a path from the composition root of the
 * page, one `[tag, n]` a level (the n-th child element of that tag, from 0).
 */
export type EditTarget = { part: string; clip: number } | { path: Array<[string, number]> };

/**
 * The element of the file `file` that `target` names, or bad input saying why there is none
 * (most often: made by a script, so not in the file).
 */
export function findTarget(doc: HTMLElement, file: string, target: EditTarget): HTMLElement {
  if ('clip' in target) {
    const hash = target.part.indexOf('#');
    const part = hash < 0 ? (target.part === file ? 'page' : 'file') : target.part.slice(hash + 1);
    const clip = clipElementsOf(doc, part)[target.clip];
    if (!clip) throw badInput(`${file} has no clip ${target.clip + 1} in ${target.part}: reload the studio`);
    return clip;
  }
  const root = compositionRootOf(doc);
  if (!root) throw badInput(`${file} has no composition root (an element with data-composition-id)`);
  let at = root;
  for (const [tag, n] of target.path) {
    const next = at.childNodes.filter((c): c is HTMLElement => c.nodeType === 1 && (c as HTMLElement).rawTagName.toLowerCase() === tag)[n];
    if (!next) throw badInput(`that <${tag}> is not written in ${file}: a script of the page made it, so edit the script`);
    at = next;
  }
  return at;
}

/** The composition root as the runtime picks it: the one marked data-root, else the first, outside templates. */
export function compositionRootOf(doc: HTMLElement): HTMLElement | undefined {
  const roots = doc.querySelectorAll('[data-composition-id]').filter((el) => !inTemplate(el));
  return roots.find((el) => el.getAttribute('data-root') === 'true') ?? roots[0];
}

function inTemplate(el: HTMLElement): boolean {
  for (let p = el.parentNode; p; p = p.parentNode) if (p.rawTagName?.toLowerCase() === 'template') return true;
  return false;
}

/** Parses a target from a request body. */
export function parseTarget(value: unknown): EditTarget {
  const t = (value ?? {}) as Record<string, unknown>;
  if (typeof t.part === 'string' && Number.isInteger(t.clip) && (t.clip as number) >= 0) return { part: t.part, clip: t.clip as number };
  if (Array.isArray(t.path) && t.path.every((s) => Array.isArray(s) && typeof s[0] === 'string' && /^[a-z][a-z0-9-]*$/.test(s[0]) && Number.isInteger(s[1]) && s[1] >= 0)) {
    return { path: t.path as Array<[string, number]> };
  }
  throw badInput('"target" must be {part, clip} (a clip of the timeline) or {path: [[tag, n], …]} (an element of the page)');
}
