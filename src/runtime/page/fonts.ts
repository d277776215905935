// --- bundled fonts ------------------------------------------------------------------------------
// Text is drawn with the fonts vidkit bundles, not with whatever the machine has (docs/explanation/fonts.md). The project server serves them at /__vidkit-fonts/ (src/fonts/
// bundled-fonts.ts), and `boot.fontsUrl` names its fonts.css, which declares each bundled family under its own name and the system
// names mapped to it (Helvetica, Arial, Segoe UI, Times New Roman…). It is linked first in the
// document, before any page style or script runs, so the page's own @font-face rules still win.
// Frames of other origins link the same file, from the project server: they draw with the same fonts.
// Generic families follow HyperFrames: a font-family declaration whose list starts with one gets
// the bundled Inter in front (`serif` draws as `"Inter", serif`), a `font` shorthand does not (its
// compiler rewrites font-family declarations only); a generic later in a list is left to the
// browser there, which draws it with the machine's fonts (Liberation Serif, Sans and Mono on
// Debian). Chromium resolves generics through the machine's font configuration, never through
// @font-face, so each such generic gets the bundled face standing in for what that browser draws
// put before it (Tinos, Arimo, Cousine), and a list without a generic gets the default serif at
// its end, as the browser's default font would draw it. Every list also gets the bundled fallback
// faces (`Vidkit Fallback`: CJK, Indic, Thai, Hebrew, Arabic, emoji…) behind the page's own
// families and those, before the generic family: a character none of the families before has is
// drawn by them, never by whatever fonts the machine has.
import { PEER_FAMILIES } from '../../fonts/peer-families';
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
// HyperFrames' compiler gives a family its faces (its own, or another's for a system name such as
// Arial) only when a font-family declaration, a custom property or data-font-family names it. A
// family named in `font` shorthands alone has none there, and draws as the machine has it: Chromium
// takes Liberation Sans, Serif and Mono on Debian for Arial and Helvetica, Times New Roman and
// Courier New (drawn here by their twins), and skips the others.
const PEER_FACE_NAMES = new Set<string>();
PEER_FAMILIES.forEach(function (f) {
  PEER_FACE_NAMES.add(f.family.toLowerCase());
  f.aliases.forEach(function (alias) { PEER_FACE_NAMES.add(alias); });
});
const MACHINE_FACES: Record<string, string> = { arial: 'Arimo', helvetica: 'Arimo', 'times new roman': 'Tinos', 'courier new': 'Cousine' };
// The families (lower case) the page's font-family declarations, custom properties and
// data-font-family attributes name: rewriteGenericFonts gathers them before it rewrites anything.
const declaredFamilies = new Set<string>();
// A document the composition embeds (an iframe's) is not the composition: HyperFrames compiles
// fonts into the composition's page alone, and an iframe's families draw as its machine has them,
// whatever declares them. The render runs the runtime in every frame, the player in the
// composition's own frame only (its parent, the player's page, runs none); another origin's
// parent cannot be read, and is the composition's.
function isEmbeddedDocument(): boolean {
  if (window.top === window) return false;
  try {
    return (window.parent as Window & { __vidkitBoot?: unknown }).__vidkitBoot !== undefined;
  } catch (err) {
    return true;
  }
}
const embedded = isEmbeddedDocument();
function noteFamilies(value: string): void {
  value.split(',').forEach(function (item) {
    const name = familyName(item).toLowerCase();
    if (name) declaredFamilies.add(name);
  });
}
// A shorthand's family list as HyperFrames' machine draws it: each of vidkit's faces that no
// declaration names becomes the machine's twin, or leaves the list.
function machineFamilies(value: string): string {
  const kept: string[] = [];
  value.split(',').forEach(function (item) {
    const name = familyName(item).toLowerCase();
    if (!PEER_FACE_NAMES.has(name) || declaredFamilies.has(name)) kept.push(item);
    else if (MACHINE_FACES[name]) kept.push(' "' + MACHINE_FACES[name] + '"');
  });
  return kept.length > 0 ? kept.join(',').replace(/^ /, '') : '"' + DEFAULT_FACE + '"';
}

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
// keyword) and `promote` (it was declared as font-family; a shorthand's list is first taken as the
// machine draws it: machineFamilies), and before the first generic the browser
// draws, the face standing in for it and the fallback family; a list without one gets the default
// face and the fallback family at its end. Unchanged when it has the fallback family already.
function bundledFamilies(value: string, promote: boolean): string {
  if (!promote && value.indexOf(FALLBACK_FAMILY) < 0) value = machineFamilies(value);
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
  if (startsGenerically && promote) families.unshift('"' + GENERIC_STAND_IN + '"');
  return families.join(',').replace(/^ /, '');
}

// A font-family of `var(--name, fallback)` gets the change in its fallback, and the fallback family
// after it for the custom property's own value; a custom property whose value starts with a generic
// family (`--sans: system-ui, sans-serif`) gets the change too, as HyperFrames does.
function fontFamilyValue(value: string, promote: boolean): string {
  if (value.indexOf('var(') < 0) return bundledFamilies(value, promote);
  const m = /^var\(\s*(--[\w-]+)\s*,([\s\S]*)\)$/.exec(value.trim());
  let next = value;
  if (m) {
    const fallback = fontFamilyValue(m[2], promote);
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
    // The block serialises as a `font` shorthand when one set the family (a later font-family
    // longhand beside it is not told apart: rare, and drawn as the shorthand then). A shorthand
    // waits for the whole document: a declaration further down may name its families. An embedded
    // document's lists are all drawn as the machine has them.
    const asMachine = embedded || style.getPropertyValue('font') !== '';
    const next = asMachine && document.readyState === 'loading' ? value : fontFamilyValue(value, !asMachine);
    if (next !== value) style.setProperty('font-family', next, style.getPropertyPriority('font-family'));
  }
  for (let i = 0; i < style.length; i++) {
    const name = style[i];
    if (name.slice(0, 2) !== '--') continue;
    const custom = style.getPropertyValue(name);
    if (startsGeneric(custom)) style.setProperty(name, bundledFamilies(custom, !embedded), style.getPropertyPriority(name));
  }
}

function rewriteRules(rules: CSSRuleList): void {
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i] as CSSRule & { style?: CSSStyleDeclaration; cssRules?: CSSRuleList };
    if (rule.style && !(rules[i] instanceof CSSFontFaceRule)) rewriteStyle(rule.style);
    if (rule.cssRules) rewriteRules(rule.cssRules);
  }
}

// The font-family declarations and custom properties of a style, into declaredFamilies.
function noteStyle(style: CSSStyleDeclaration | undefined): void {
  if (!style || embedded) return;
  const value = style.getPropertyValue('font-family');
  if (value && style.getPropertyValue('font') === '') noteFamilies(value);
  for (let i = 0; i < style.length; i++) if (style[i].slice(0, 2) === '--') noteFamilies(style.getPropertyValue(style[i]));
}
// The families (lower case) the page's own @font-face rules give faces.
const pageFaceFamilies = new Set<string>();
// The page's own @font-face families are drawn by both tools whatever names them; vidkit's
// fonts.css (`bundled`) gives faces HyperFrames gives only when asked.
function noteRules(rules: CSSRuleList, bundled: boolean): void {
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i] as CSSRule & { style?: CSSStyleDeclaration; cssRules?: CSSRuleList };
    if (rules[i] instanceof CSSFontFaceRule) {
      if (!bundled && rule.style) {
        const family = rule.style.getPropertyValue('font-family');
        noteFamilies(family);
        pageFaceFamilies.add(familyName(family).toLowerCase());
      }
    } else if (rule.style) noteStyle(rule.style);
    if (rule.cssRules) noteRules(rule.cssRules, bundled);
  }
}
// Each readable stylesheet's rules; another origin's (a font service's) cannot be read, and names
// no generic family to draw with.
function eachSheet(visit: (rules: CSSRuleList, bundled: boolean) => void): void {
  for (let i = 0; i < document.styleSheets.length; i++) {
    const sheet = document.styleSheets[i];
    let rules;
    try {
      rules = sheet.cssRules;
    } catch (err) {
      continue;
    }
    const owner = sheet.ownerNode as Element | null;
    visit(rules, !!owner && owner.nodeType === 1 && owner.hasAttribute('data-vidkit-fonts'));
  }
}
// A family the page gives faces of its own has those alone, as in HyperFrames, which adds its
// faces only to families the page has none for: the bundled faces of that family leave fonts.css
// (a page asking for a weight or style its faces lack draws the nearest of them, not the bundle's).
function dropShadowedFaces(rules: CSSRuleList, bundled: boolean): void {
  if (!bundled || pageFaceFamilies.size === 0) return;
  const sheet = (rules[0] && rules[0].parentStyleSheet) as CSSStyleSheet | null;
  for (let i = rules.length - 1; i >= 0 && sheet; i--) {
    const rule = rules[i];
    if (rule instanceof CSSFontFaceRule && pageFaceFamilies.has(familyName(rule.style.getPropertyValue('font-family')).toLowerCase())) sheet.deleteRule(i);
  }
}
function rewriteGenericFonts(): void {
  eachSheet(noteRules);
  eachSheet(dropShadowedFaces);
  document.querySelectorAll<HTMLElement>('[style]').forEach(function (el) { noteStyle(el.style); });
  if (!embedded) document.querySelectorAll('[data-font-family]').forEach(function (el) { noteFamilies(el.getAttribute('data-font-family') as string); });
  // A font service's stylesheet gives its families faces in both tools, but another origin's
  // rules cannot be read: its URL names them (`family=Open+Sans:wght@400`).
  document.querySelectorAll<HTMLLinkElement>('link[href*="fonts.googleapis.com"]').forEach(function (link) {
    try {
      new URL(link.href).searchParams.getAll('family').forEach(function (family) { noteFamilies(family.split(':')[0]); });
    } catch (err) {
      // Not a URL: it loads nothing either.
    }
  });
  eachSheet(rewriteRules);
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
    if (record.type === 'attributes') {
      noteStyle((record.target as Styled).style);
      return rewriteStyle((record.target as Styled).style);
    }
    record.addedNodes.forEach(function (added) {
      const node = added as Styled;
      if (node.nodeType !== 1) return;
      if (node.tagName === 'STYLE' || node.tagName === 'LINK') full = true;
      noteStyle(node.style);
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
