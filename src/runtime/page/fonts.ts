// --- bundled fonts ------------------------------------------------------------------------------
// Text is drawn with the fonts vidkit bundles, not with whatever the machine has (docs/explanation/fonts.md). The project server serves them at /__vidkit-fonts/ (src/fonts/
// bundled-fonts.ts), and `boot.fontsUrl` names its fonts.css, which declares each bundled family under its own name and the system
// names mapped to it (Helvetica, Arial, Segoe UI, Times New Roman…). It is linked first in the
// document, before any page style or script runs, so the page's own @font-face rules still win.
// Frames of other origins link the same file, from the project server: they draw with the same fonts.
// Generic families follow HyperFrames: a font-family list that starts with one gets the bundled
// Inter in front (`serif` draws as `"Inter", serif`); a generic later in a list is left to the
// browser there, which draws it with the machine's fonts (Liberation Serif, Sans and Mono on
// Debian). Chromium resolves generics through the machine's font configuration, never through
// @font-face, so each such generic gets the bundled face standing in for what that browser draws
// put before it (Tinos, Arimo, Cousine), and a list without a generic gets the default serif at
// its end, as the browser's default font would draw it. Every list also gets the bundled fallback
// faces (`Vidkit Fallback`: CJK, Indic, Thai, Hebrew, Arabic, emoji…) behind the page's own
// families and those, before the generic family: a character none of the families before has is
// drawn by them, never by whatever fonts the machine has.
import { boot } from './state';

const GENERIC_FAMILIES = [
  'sans-serif', 'serif', 'monospace', 'cursive', 'fantasy', 'system-ui', 'ui-sans-serif', 'ui-serif', 'ui-monospace',
  'ui-rounded', 'emoji', 'math', 'fangsong', '-apple-system', 'blinkmacsystemfont',
];
const GENERIC_STAND_IN = 'Inter';
// The generics Chromium draws on Linux, and the face standing in for the machine's font of each;
// it skips the other keywords (cursive, fantasy, ui-*, math…) as unknown families. system-ui is
// DejaVu Sans there as in vidkit's browser, whose fontconfig lists it (src/fonts/fontconfig.ts):
// it needs no stand-in, and the fallback family goes after it.
const GENERIC_FACES: Record<string, string | null> = { serif: 'Tinos', 'sans-serif': 'Arimo', monospace: 'Cousine', 'system-ui': null };
const DEFAULT_FACE = 'Tinos';
const FALLBACK_FAMILY = 'Vidkit Fallback';
// Values that are no list of families.
const CSS_WIDE = ['inherit', 'initial', 'unset', 'revert', 'revert-layer'];

function linkBundledFonts(href: string): void {
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  link.setAttribute('data-vidkit-fonts', '');
  const place = function () {
    const root = document.documentElement;
    root.insertBefore(link, root.firstChild);
  };
  if (document.documentElement) return place();
  // Before the parser has made <html>: the observer's callback runs before the first page script.
  const waiting = new MutationObserver(function () {
    if (!document.documentElement) return;
    waiting.disconnect();
    place();
  });
  waiting.observe(document, { childList: true });
}

function familyName(item: string): string {
  return item.trim().replace(/^["']|["']$/g, '');
}

function isKeyword(item: string, list: string[]): boolean {
  return !/["']/.test(item) && list.indexOf(item.trim().toLowerCase()) >= 0;
}

// The font-family list with Inter in front when it starts with a generic family (an unquoted
// keyword), and before the first generic the browser draws, the face standing in for it and the
// fallback family; a list without one gets the default face and the fallback family at its end.
// Unchanged when it has the fallback family already.
function bundledFamilies(value: string): string {
  const families = value.split(',');
  const names = families.map(familyName);
  if (names.indexOf(FALLBACK_FAMILY) >= 0 || CSS_WIDE.indexOf(value.trim().toLowerCase()) >= 0) return value;
  const drawn = Object.keys(GENERIC_FACES);
  const startsGenerically = isKeyword(families[0], GENERIC_FAMILIES);
  let at = -1;
  for (let i = 0; i < families.length && at < 0; i++) if (isKeyword(families[i], drawn)) at = i;
  if (at < 0) families.push(' "' + DEFAULT_FACE + '"', ' "' + FALLBACK_FAMILY + '"');
  else if (GENERIC_FACES[families[at].trim().toLowerCase()] === null) families.splice(at + 1, 0, ' "' + FALLBACK_FAMILY + '"');
  else families.splice(at, 0, ' "' + GENERIC_FACES[families[at].trim().toLowerCase()] + '"', ' "' + FALLBACK_FAMILY + '"');
  if (startsGenerically) families.unshift('"' + GENERIC_STAND_IN + '"');
  return families.join(',').replace(/^ /, '');
}

// A font-family of `var(--name, fallback)` gets the change in its fallback, and the fallback family
// after it for the custom property's own value; a custom property whose value starts with a generic
// family (`--sans: system-ui, sans-serif`) gets the change too, as HyperFrames does.
function fontFamilyValue(value: string): string {
  if (value.indexOf('var(') < 0) return bundledFamilies(value);
  const m = /^var\(\s*(--[\w-]+)\s*,([\s\S]*)\)$/.exec(value.trim());
  let next = value;
  if (m) {
    const fallback = fontFamilyValue(m[2]);
    if (fallback !== m[2]) next = 'var(' + m[1] + ',' + fallback + ')';
  }
  const last = familyName(next.split(',').pop() as string);
  return last === FALLBACK_FAMILY ? next : next + ', "' + FALLBACK_FAMILY + '"';
}

function startsGeneric(value: string): boolean {
  const first = value.split(',')[0].trim().toLowerCase();
  return GENERIC_FAMILIES.indexOf(first) >= 0;
}

function rewriteStyle(style: CSSStyleDeclaration | undefined): void {
  if (!style) return;
  const value = style.getPropertyValue('font-family');
  if (value) {
    const next = fontFamilyValue(value);
    if (next !== value) style.setProperty('font-family', next, style.getPropertyPriority('font-family'));
  }
  for (let i = 0; i < style.length; i++) {
    const name = style[i];
    if (name.slice(0, 2) !== '--') continue;
    const custom = style.getPropertyValue(name);
    if (startsGeneric(custom)) style.setProperty(name, bundledFamilies(custom), style.getPropertyPriority(name));
  }
}

function rewriteRules(rules: CSSRuleList): void {
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i] as CSSRule & { style?: CSSStyleDeclaration; cssRules?: CSSRuleList };
    if (rule.style && !(rules[i] instanceof CSSFontFaceRule)) rewriteStyle(rule.style);
    if (rule.cssRules) rewriteRules(rule.cssRules);
  }
}

function rewriteGenericFonts(): void {
  for (let i = 0; i < document.styleSheets.length; i++) {
    let rules;
    try {
      rules = document.styleSheets[i].cssRules;
    } catch (err) {
      // Another origin's stylesheet (a font service's): not readable, and it names no generic family to draw with.
      continue;
    }
    rewriteRules(rules);
  }
  document.querySelectorAll<HTMLElement>('[style]').forEach(function (el) {
    rewriteStyle(el.style);
  });
}

// Elements of the document, and whatever else a record may name (its style, if it has one).
type Styled = Node & { style?: CSSStyleDeclaration; tagName?: string; querySelectorAll?: Element['querySelectorAll'] };

// A new <style> or stylesheet link calls for a pass over every sheet; a changed style attribute (a
// timeline writes them each frame) only for its own element.
function onMutations(records: MutationRecord[]): void {
  let full = false;
  records.forEach(function (record) {
    if (record.type === 'attributes') return rewriteStyle((record.target as Styled).style);
    record.addedNodes.forEach(function (added) {
      const node = added as Styled;
      if (node.nodeType !== 1) return;
      if (node.tagName === 'STYLE' || node.tagName === 'LINK') full = true;
      if (node.style) rewriteStyle(node.style);
      if (node.querySelectorAll) node.querySelectorAll<HTMLElement>('[style], style, link').forEach(function (el) {
        if (el.tagName === 'STYLE' || el.tagName === 'LINK') full = true;
        else rewriteStyle(el.style);
      });
    });
  });
  if (full) rewriteGenericFonts();
}

const fontRewrites = new MutationObserver(onMutations);
// Applies the rewrites still waiting for the observer's callback: a frame lays the page out first.
export function applyFontRewrites(): void { onMutations(fontRewrites.takeRecords()); }

export function installFonts(): void {
  if (boot.fontsUrl) linkBundledFonts(boot.fontsUrl);
  fontRewrites.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['style'] });
  // Installed into a page that has already loaded (the player's iframes): its styles are all there.
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', rewriteGenericFonts);
  else rewriteGenericFonts();
  window.addEventListener('load', rewriteGenericFonts);
  document.addEventListener(
    'load',
    function (event) {
      const target = event.target as Styled | null;
      if (target && target.tagName === 'LINK') rewriteGenericFonts();
    },
    true,
  );
}
