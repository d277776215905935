// A served page's scripts wait for its fonts (src/runtime/after-fonts-scripts.ts): each classic or
// module script outside <head> gets a type the parser does not run, and the page the fallback that
// runs them at DOMContentLoaded where no vidkit runtime does (the page opened in a plain browser).
// Only the opening tags change; the rest of the page is sent as written.
import { HTMLElement, parse } from 'node-html-parser';
import { AFTER_FONTS_CLAIM, AFTER_FONTS_MODULE_TYPE, AFTER_FONTS_TYPE, runMarkedScripts } from '../../runtime/after-fonts-scripts';

const FALLBACK =
  `<script>document.addEventListener('DOMContentLoaded', function () {` +
  ` if (!window.${AFTER_FONTS_CLAIM}) (${runMarkedScripts.toString()})(document); });</script>`;

// The types a browser runs as a classic script.
function isClassic(type: string): boolean {
  return type === '' || /^(text|application)\/(x-)?(java|ecma)script$/.test(type) || type === 'text/jscript' || type === 'text/livescript';
}

function runsLater(el: HTMLElement): boolean {
  for (let p = el.parentNode; p; p = p.parentNode) {
    const tag = p.rawTagName?.toLowerCase();
    if (tag === 'head' || tag === 'svg' || tag === 'template' || tag === 'noscript') return false;
  }
  return true;
}

/** `page` with its scripts outside <head> marked to run once its fonts are in, and the fallback added. */
export function deferScriptsUntilFonts(page: string): string {
  const doc = parse(page, { comment: true });
  const edits: { start: number; end: number; text: string }[] = [];
  for (const el of doc.querySelectorAll('script')) {
    if (!runsLater(el) || el.hasAttribute('nomodule')) continue;
    const type = (el.getAttribute('type') ?? '').trim().toLowerCase();
    const marker = type === 'module' ? AFTER_FONTS_MODULE_TYPE : isClassic(type) ? AFTER_FONTS_TYPE : undefined;
    if (marker === undefined) continue;
    const start = el.range[0];
    // The attributes may hold a '>': the tag ends after them.
    const attrsEnd = el.rawAttrs ? page.indexOf(el.rawAttrs, start) + el.rawAttrs.length : start;
    const end = page.indexOf('>', attrsEnd) + 1;
    const attrs = el.rawAttrs.replace(/(^|\s)type\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/i, '').trim();
    edits.push({ start, end, text: `<script type="${marker}"${attrs ? ` ${attrs}` : ''}>` });
  }
  if (edits.length === 0) return page;
  let out = page;
  for (const edit of edits.reverse()) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  // First in the head; never before a doctype, which would put the page in quirks mode.
  const opening = /<head\b[^>]*>/i.exec(out) ?? /<html\b[^>]*>/i.exec(out) ?? /<!doctype[^>]*>/i.exec(out);
  const at = opening ? opening.index + opening[0].length : 0;
  return out.slice(0, at) + FALLBACK + out.slice(at);
}
