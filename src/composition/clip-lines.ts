import { HTMLElement, parse } from 'node-html-parser';
import { lineAt } from './lint-finding';
import { ProjectReader, compositionSrcFile } from './sub-compositions';

/** Where a clip is written: its line in the file, and its tag to check the match by. */
export interface ClipLine {
  line: number;
  tag: string;
}

/**
 * The clips of a page and of every composition it mounts, each part's in document order, keyed
 * as the sub-composition transform marks the hosts it fills (`data-vidkit-source`): the page
 * itself under its own path, a composition file under its path, an inline template under
 * `<page>#<id>`. The page runtime lists the clips of each part in the same order (timing.ts,
 * clipList), so the n-th clip of a part is written on the n-th line here. A clip is what the
 * runtime lists: an element with `data-start`, and every nested composition.
 */
export function clipLinesOfPage(page: string, read: ProjectReader): Record<string, ClipLine[]> {
  const parts: Record<string, ClipLine[]> = {};
  const lines = (html: string, elements: HTMLElement[]) => elements.map((el) => ({ line: lineAt(html, el.range[0]), tag: el.tagName.toLowerCase() }));
  const visit = (file: string, html: string, asPage: boolean) => {
    const doc = parse(html, { comment: true });
    parts[file] = lines(html, clipElementsOf(doc, asPage ? 'page' : 'file'));
    // Inline templates are the page's own: the transform looks them up in the page.
    for (const template of asPage ? doc.querySelectorAll('template') : []) {
      const id = template.getAttribute('id');
      if (id?.endsWith('-template')) parts[`${file}#${id}`] = lines(html, clipElementsOf(doc, id));
    }
    for (const host of doc.querySelectorAll('[data-composition-src]')) {
      const sub = compositionSrcFile(host.getAttribute('data-composition-src')!);
      if (sub in parts) continue;
      const text = read(sub);
      if (text !== undefined) visit(sub, text, false);
    }
  };
  const html = read(page);
  if (html !== undefined) visit(page, html, true);
  return parts;
}

/**
 * The clips of one part of a parsed file, in the order the runtime lists them: `page` for the
 * file opened as the page, `file` for a composition file mounted (or opened standalone), or the
 * id of an inline template of the page.
 */
export function clipElementsOf(doc: HTMLElement, part: string): HTMLElement[] {
  if (part === 'page') {
    const outside = doc.querySelectorAll('[data-composition-id]').filter((el) => !inTemplateBelow(el, doc));
    if (outside.length > 0) return clipsIn(doc, outside.find((el) => el.getAttribute('data-root') === 'true') ?? outside[0]);
  }
  if (part === 'page' || part === 'file') {
    // Mounted (or opened standalone), a composition file is its first template's content.
    const content = doc.querySelector('template') ?? doc.querySelector('body') ?? doc;
    return clipsIn(content, content.querySelectorAll('[data-composition-id]').find((el) => !inTemplateBelow(el, content)) ?? null);
  }
  const template = doc.querySelectorAll('template').find((t) => t.getAttribute('id') === part);
  if (!template) return [];
  return clipsIn(template, template.querySelectorAll('[data-composition-id]').find((el) => !inTemplateBelow(el, template)) ?? null);
}

const CLIPS = '[data-start], [data-composition-id], [data-composition-src]';
const NOT_CLIPS = new Set(['SCRIPT', 'STYLE', 'LINK', 'META', 'TEMPLATE']);

function clipsIn(scope: HTMLElement, root: HTMLElement | null): HTMLElement[] {
  return scope.querySelectorAll(CLIPS).filter((el) => el !== root && !NOT_CLIPS.has(el.tagName) && !inTemplateBelow(el, scope));
}

/** Whether `el` sits in a `<template>` inside `scope` (markup that is not part of it until mounted). */
function inTemplateBelow(el: HTMLElement, scope: HTMLElement): boolean {
  for (let p = el.parentNode; p && p !== scope; p = p.parentNode) if (p.rawTagName?.toLowerCase() === 'template') return true;
  return false;
}
