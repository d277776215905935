// --- bundled fonts ------------------------------------------------------------------------------
// Text is drawn with the fonts vidkit bundles, not with whatever the machine has (README: A
// composition, Fonts). The project server serves them at /__vidkit-fonts/ (src/fonts/
// bundled-fonts.ts), and `boot.fontsUrl` names its fonts.css, which declares each bundled family under its own name and the system
// names mapped to it (Helvetica, Arial, Segoe UI, Times New Roman…). It is linked first in the
// document, before any page style or script runs, so the page's own @font-face rules still win.
// Frames of other origins link the same file, from the project server: they draw with the same fonts.
// Chromium resolves the generic families (serif, sans-serif, system-ui…) through the machine's
// font configuration, never through @font-face, so the page's styles get the bundled Inter put
// before the first generic family of each font-family list, as HyperFrames does for a list that
// starts with one (`serif` draws as `"Inter", serif`).
var GENERIC_FAMILIES = [
  'sans-serif', 'serif', 'monospace', 'cursive', 'fantasy', 'system-ui', 'ui-sans-serif', 'ui-serif', 'ui-monospace',
  'ui-rounded', 'emoji', 'math', 'fangsong', '-apple-system', 'blinkmacsystemfont',
];
var GENERIC_STAND_IN = 'Inter';

function linkBundledFonts(href) {
  var link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  link.setAttribute('data-vidkit-fonts', '');
  var place = function () {
    var root = document.documentElement;
    root.insertBefore(link, root.firstChild);
  };
  if (document.documentElement) return place();
  // Before the parser has made <html>: the observer's callback runs before the first page script.
  var waiting = new MutationObserver(function () {
    if (!document.documentElement) return;
    waiting.disconnect();
    place();
  });
  waiting.observe(document, { childList: true });
}

// The font-family list with the stand-in before its first generic family (an unquoted keyword);
// unchanged when it has none or already has the stand-in there.
function bundledFamilies(value) {
  var families = value.split(',');
  for (var i = 0; i < families.length; i++) {
    var item = families[i].trim();
    if (/["']/.test(item) || GENERIC_FAMILIES.indexOf(item.toLowerCase()) < 0) continue;
    // The browser may give the name back quoted or not.
    if (i > 0 && families[i - 1].trim().replace(/^["']|["']$/g, '') === GENERIC_STAND_IN) return value;
    families.splice(i, 0, ' "' + GENERIC_STAND_IN + '"');
    return families.join(',').replace(/^ /, '');
  }
  return value;
}

// A font-family of `var(--name, fallback)` gets the change in its fallback; a custom property whose
// value starts with a generic family (`--sans: system-ui, sans-serif`) gets it too, as HyperFrames does.
function fontFamilyValue(value) {
  var m = /^var\(\s*(--[\w-]+)\s*,([\s\S]*)\)$/.exec(value.trim());
  if (!m) return bundledFamilies(value);
  var fallback = fontFamilyValue(m[2]);
  return fallback === m[2] ? value : 'var(' + m[1] + ',' + fallback + ')';
}

function startsGeneric(value) {
  var first = value.split(',')[0].trim().toLowerCase();
  return GENERIC_FAMILIES.indexOf(first) >= 0;
}

function rewriteStyle(style) {
  if (!style) return;
  var value = style.getPropertyValue('font-family');
  if (value) {
    var next = fontFamilyValue(value);
    if (next !== value) style.setProperty('font-family', next, style.getPropertyPriority('font-family'));
  }
  for (var i = 0; i < style.length; i++) {
    var name = style[i];
    if (name.slice(0, 2) !== '--') continue;
    var custom = style.getPropertyValue(name);
    if (startsGeneric(custom)) style.setProperty(name, bundledFamilies(custom), style.getPropertyPriority(name));
  }
}

function rewriteRules(rules) {
  for (var i = 0; i < rules.length; i++) {
    var rule = rules[i];
    if (rule.style && !(rule instanceof CSSFontFaceRule)) rewriteStyle(rule.style);
    if (rule.cssRules) rewriteRules(rule.cssRules);
  }
}

function rewriteGenericFonts() {
  for (var i = 0; i < document.styleSheets.length; i++) {
    var rules;
    try {
      rules = document.styleSheets[i].cssRules;
    } catch (err) {
      // Another origin's stylesheet (a font service's): not readable, and it names no generic family to draw with.
      continue;
    }
    rewriteRules(rules);
  }
  document.querySelectorAll('[style]').forEach(function (el) {
    rewriteStyle(el.style);
  });
}

// A new <style> or stylesheet link calls for a pass over every sheet; a changed style attribute (a
// timeline writes them each frame) only for its own element.
function onMutations(records) {
  var full = false;
  records.forEach(function (record) {
    if (record.type === 'attributes') return rewriteStyle(record.target.style);
    record.addedNodes.forEach(function (node) {
      if (node.nodeType !== 1) return;
      if (node.tagName === 'STYLE' || node.tagName === 'LINK') full = true;
      if (node.style) rewriteStyle(node.style);
      if (node.querySelectorAll) node.querySelectorAll('[style], style, link').forEach(function (el) {
        if (el.tagName === 'STYLE' || el.tagName === 'LINK') full = true;
        else rewriteStyle(el.style);
      });
    });
  });
  if (full) rewriteGenericFonts();
}

if (boot.fontsUrl) linkBundledFonts(boot.fontsUrl);
var fontRewrites = new MutationObserver(onMutations);
fontRewrites.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['style'] });
// Applies the rewrites still waiting for the observer's callback: a frame lays the page out first.
function applyFontRewrites() { onMutations(fontRewrites.takeRecords()); }
// Installed into a page that has already loaded (the player's iframes): its styles are all there.
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', rewriteGenericFonts);
else rewriteGenericFonts();
window.addEventListener('load', rewriteGenericFonts);
document.addEventListener(
  'load',
  function (event) {
    if (event.target && event.target.tagName === 'LINK') rewriteGenericFonts();
  },
  true,
);
