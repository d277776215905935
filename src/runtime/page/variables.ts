// --- variables ------------------------------------------------------------------------------------
// `window.__vidkit.getVariables()` and HyperFrames' `window.__hyperframes.getVariables()` return
// the same values: the declared defaults (of <html> and every [data-composition-variables]
// element, later declarations winning) merged with the render's overrides, as the renderer or the
// player computed them before the page loaded. `window.__hfVariables` holds only the overrides the
// render or the player was given, as in HyperFrames.
import { recordingCopy, recordingGlobal } from './reach';
import { boot, variables } from './state';
import { preparePage } from './page-layout';
import { compositionRoot } from './timing';

// Each copy records which variables a page script reads (reach.ts).
export function currentVariables(): Record<string, unknown> { return recordingCopy(JSON.parse(JSON.stringify(variables))); }

// Bindings without a script, applied once the document is parsed (docs/guide/hyperframes.md):
//   - `--<id>` on the root and every [data-composition-id] element, for every variable whose
//     value is a string, number or boolean (or a font given as { name });
//   - `--<slug>` (the id lowercased, runs of other characters as '-') on each element declaring
//     the variable: a default only where the page's CSS does not define that property already,
//     an override always;
//   - data-var-text="id" replaces the element's own text, keeping its child elements;
//   - data-var-src="id" sets the src of an img, video, audio or source element to the value (a
//     URL, or { url }), when it is a relative, http(s), blob or data:image URL.
function cssValue(value: unknown): string | null {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  const named = value as { name?: unknown } | null;
  if (named && typeof named === 'object' && typeof named.name === 'string' && named.name !== '') return named.name;
  return null;
}
// A value may not close the declaration it is written into.
function safeCss(text: string): string { return text.replace(/[;{}<>\r\n]/g, ''); }
function cssSlug(id: string): string {
  const slug = id.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return '--' + (slug || 'node');
}
function declaredDefaults(el: Element): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  try {
    const list = JSON.parse(el.getAttribute('data-composition-variables') || '[]');
    if (Array.isArray(list)) list.forEach(function (d) { if (d && typeof d.id === 'string' && 'default' in d) defaults[d.id] = d.default; });
  } catch (err) {
    // The renderer refuses malformed declarations before the page loads; the player has no such step.
  }
  return defaults;
}
function bindDeclarations(): void {
  const declarers = Array.prototype.slice.call(document.querySelectorAll('[data-composition-variables]')) as HTMLElement[];
  declarers.forEach(function (el) {
    if (!el.style) return;
    const defaults = declaredDefaults(el);
    for (const id in defaults) {
      const value = id in variables ? variables[id] : defaults[id];
      const overridden = JSON.stringify(value) !== JSON.stringify(defaults[id]);
      const text = typeof value === 'number' || (typeof value === 'string' && value !== '') ? String(value) : null;
      if (text === null) continue;
      const name = cssSlug(id);
      if (!overridden && getComputedStyle(el).getPropertyValue(name).trim() !== '') continue;
      el.style.setProperty(name, safeCss(text));
    }
  });
}
function bindCustomProperties(): void {
  const root = compositionRoot();
  const targets = new Set<Element>(root ? [root] : []);
  document.querySelectorAll('[data-composition-id]').forEach(function (el) { targets.add(el); });
  targets.forEach(function (target) {
    const el = target as HTMLElement;
    if (!el.style) return;
    for (const id in variables) {
      const text = cssValue(variables[id]);
      if (text !== null) el.style.setProperty('--' + id, safeCss(text));
    }
  });
}
const SRC_TAGS: Record<string, number> = { IMG: 1, VIDEO: 1, AUDIO: 1, SOURCE: 1 };
function safeMediaUrl(url: string): boolean {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url.replace(/[\u0000-\u0020]/g, ''));
  if (!scheme) return true;
  const name = scheme[1].toLowerCase();
  return name === 'http' || name === 'https' || name === 'blob' || (name === 'data' && /^data:image\//i.test(url.trim()));
}
// Replaces the element's own text; element children (nested clips, animated spans) stay.
function setOwnText(el: Element, text: string): void {
  if (el.childElementCount === 0) {
    el.textContent = text;
    return;
  }
  let written = false;
  el.childNodes.forEach(function (node) {
    if (node.nodeType !== Node.TEXT_NODE) return;
    node.nodeValue = written ? '' : text;
    written = true;
  });
  if (!written) el.insertBefore(document.createTextNode(text), el.firstChild);
}
function bindElements(): void {
  document.querySelectorAll('[data-var-src]').forEach(function (el) {
    const value = variables[(el.getAttribute('data-var-src') as string).trim()];
    const url = typeof value === 'string' ? value : value && typeof value === 'object' ? (value as { url?: unknown }).url : null;
    if (!SRC_TAGS[el.tagName] || typeof url !== 'string' || url === '' || !safeMediaUrl(url)) return;
    if (el.getAttribute('src') !== url) el.setAttribute('src', url);
  });
  document.querySelectorAll('[data-var-text]').forEach(function (el) {
    const value = variables[(el.getAttribute('data-var-text') as string).trim()];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') setOwnText(el, String(value));
  });
}

/** Runs `fn` once the document is parsed: at once when it is already. */
export function onParsed(fn: () => void): void {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', fn, { once: true });
  else fn();
}

export function installVariables(): void {
  window.__hyperframes = { getVariables: currentVariables };
  window.__hfVariables = JSON.parse(JSON.stringify(boot.overrides || {}));
  // Which variables were overridden, and every value: a page script reading either is recorded.
  recordingGlobal('__hfVariables', '*overrides');
  recordingGlobal('__vidkitBoot', '*');
  onParsed(function () {
    preparePage();
    bindDeclarations();
    bindCustomProperties();
    bindElements();
  });
}
