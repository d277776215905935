// --- glyph coverage ---------------------------------------------------------------------------------
// Finds text that no font can draw (docs/explanation/fonts.md). Injected by renders (not by the
// player) beside the page runtime; the renderer reads `window.__vidkitGlyphs.report()`.
//
// The method asks the browser itself, so it sees exactly the faces it draws with: the page's own
// web fonts (with their unicode-range and the characters their files really have), the bundled
// families and fallback faces, and the faces the browser's fontconfig lists (`systemFaces`, given
// by the renderer: what Chromium's system fallback reaches). A character is measured on a canvas in
// the element's own font-family list, followed by those system faces (by `local()`, which names a
// face whatever family a page or the bundled set gives that name) and then by one of two probe faces
// made here that have a glyph for every code point, of advance 1 em in one and 2 em in the other. When a
// face before the probe has the character, both measurements are that face's advance; when none
// has it (the page would draw `.notdef`, an empty box), the probe draws it and the two differ. The
// probe declares its one glyph a base glyph (GDEF), so a combining mark is not made zero-width.
// It starts once the page is ready (the renderer calls `start()`), when the page's styles and fonts
// are those it was loaded with. Cheap per frame: a mutation observer hands over only the text that
// changed (every text again only when a stylesheet arrives), each character is measured once per
// font (cached), and faces not loaded yet are loaded off the frame path; the report waits for them
// (bounded) before it answers.
import type { MissingGlyphs, VidkitGlyphs } from '../protocol';
import { probeFont } from './probe-font';

const PROBE_A = 'vidkit-glyph-probe-a';
const PROBE_B = 'vidkit-glyph-probe-b';
const PROBE_SIZE = 100;
const SYSTEM = 'vidkit-glyph-system';
// Whitespace, controls and default-ignorable characters (joiners, variation selectors, bidi
// marks) draw no glyph of their own.
const SKIPPED = /[\s\p{Cc}\p{Default_Ignorable_Code_Point}]/u;
const MAX_FINDINGS = 50;
const LOAD_DEADLINE_MS = 10000;

interface Finding extends MissingGlyphs {
  /** Handed to the renderer already, with the characters it has now. */
  reported: boolean;
}

export function installGlyphCheck(systemFaces: readonly string[]): void {
  if (window.__vidkitGlyphs || window !== window.top) return;

  // Taken before the page runtime makes timers follow the virtual clock: the deadline is real time.
  const realSetTimeout = window.setTimeout.bind(window);

  const probes = [probeFont(PROBE_A, 1000), probeFont(PROBE_B, 2000)];
  // A system face this machine lacks fails to load, and is left out.
  const systems = systemFaces.map(function (name) { return new FontFace(SYSTEM, 'local(' + JSON.stringify(name) + ')'); });
  const added = probes.concat(systems);
  const probesReady = Promise.all(added.map(function (face) { return face.load().catch(function () { return null; }); }));
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;

  // --- what to check ---------------------------------------------------------------------------
  const fontOf = new Map<string, { font: string; covered: Map<string, boolean> }>(); // font key -> { font, covered: Map(char -> bool) }
  const pendingLoads: Promise<unknown>[] = [];
  const findings = new Map<string, Finding>(); // element description + variable -> finding

  function fontKey(style: CSSStyleDeclaration): string {
    const italic = style.fontStyle === 'normal' ? 'normal' : 'italic';
    return italic + ' ' + style.fontWeight + ' ' + PROBE_SIZE + 'px ' + style.fontFamily;
  }

  function describe(el: Element): string {
    const parts: string[] = [];
    for (let node: Element | null = el; node && node.nodeType === 1 && parts.length < 3; node = node.parentElement) {
      let part = node.tagName.toLowerCase();
      if (node.id) {
        parts.unshift(part + '#' + node.id);
        break;
      }
      if (node.classList.length > 0) part += '.' + Array.prototype.slice.call(node.classList, 0, 2).join('.');
      parts.unshift(part);
      if (node === document.body) break;
    }
    return parts.join(' > ');
  }

  // The render's variables as the renderer hands them to start(): not read through the page's
  // getVariables(), whose reads count as the page's own (src/runtime/page/reach.ts).
  let vars: Record<string, unknown> = {};
  function variablesWith(text: string): string[] {
    return Object.keys(vars).filter(function (key) {
      const value = vars[key];
      return typeof value === 'string' && value.length > 0 && text.indexOf(value) >= 0;
    });
  }

  // Measured with the probes in the page's font set only while the canvas measures.
  function measure(font: string, chars: string[]): boolean[] {
    const usable = added.filter(function (face) { return face.status === 'loaded'; });
    usable.forEach(function (face) { document.fonts.add(face); });
    try {
      return chars.map(function (ch) {
        ctx.font = font + ', "' + SYSTEM + '", "' + PROBE_A + '"';
        const a = ctx.measureText(ch).width;
        ctx.font = font + ', "' + SYSTEM + '", "' + PROBE_B + '"';
        return Math.abs(ctx.measureText(ch).width - a) < 0.5;
      });
    } finally {
      usable.forEach(function (face) { document.fonts.delete(face); });
    }
  }

  function record(el: Element, text: string, missing: string[]): void {
    const element = describe(el);
    const variables = variablesWith(text);
    const key = element + '\n' + variables.join(',');
    let finding = findings.get(key);
    if (!finding) {
      if (findings.size >= MAX_FINDINGS) return;
      finding = { element: element, text: text.trim().slice(0, 80), characters: [], variables: variables, reported: false };
      findings.set(key, finding);
    }
    const found = finding;
    missing.forEach(function (ch) {
      if (found.characters.indexOf(ch) < 0) {
        found.characters.push(ch);
        found.reported = false;
      }
    });
  }

  // Characters of `text` under `el`'s font: those measured already decide at once; the others are
  // measured once the faces that may have them are loaded (document.fonts.load starts exactly the
  // faces whose unicode-range holds them).
  function checkText(el: Element, text: string, key: string): void {
    let known = fontOf.get(key);
    if (!known) {
      known = { font: key, covered: new Map() };
      fontOf.set(key, known);
    }
    const entry = known;
    const missing: string[] = [];
    const unknown: string[] = [];
    Array.from(new Set(Array.from(text))).forEach(function (ch) {
      if (SKIPPED.test(ch)) return;
      const covered = entry.covered.get(ch);
      if (covered === false) missing.push(ch);
      else if (covered === undefined) unknown.push(ch);
    });
    if (missing.length > 0) record(el, text, missing);
    if (unknown.length === 0) return;
    const chars = unknown.join('');
    const decide = function () {
      const still = unknown.filter(function (ch) { return !entry.covered.has(ch); });
      measure(entry.font, still).forEach(function (covered, i) { entry.covered.set(still[i], covered); });
      const now = unknown.filter(function (ch) { return entry.covered.get(ch) === false; });
      if (now.length > 0) record(el, text, now);
    };
    if (settled && fontsLoaded(entry.font, chars)) return decide();
    const load = Promise.all([probesReady, document.fonts.load(entry.font, chars).catch(function () { return null; })]).then(decide);
    pendingLoads.push(load);
  }

  let settled = false;
  probesReady.then(function () { settled = true; });

  function fontsLoaded(font: string, chars: string): boolean {
    try {
      return document.fonts.check(font, chars);
    } catch (err) {
      return false;
    }
  }

  function drawn(el: Element): boolean {
    return el.checkVisibility ? el.checkVisibility() : el.getClientRects().length > 0;
  }

  // What each text node was last checked as (its font and text): a frame that moves an element
  // (a timeline writes its style attribute) costs one computed style per text node under it.
  const checkedAs = new WeakMap<Text, string>();

  function checkNode(node: Text): void {
    const el = node.parentElement;
    if (!el || !node.data.trim() || el.closest('script, style, template, noscript, title') || !drawn(el)) return;
    const key = fontKey(getComputedStyle(el));
    const as = key + '\n' + node.data;
    if (checkedAs.get(node) === as) return;
    checkedAs.set(node, as);
    checkText(el, node.data, key);
  }

  function checkSubtree(root: Node | null): void {
    if (!root) return;
    if (root.nodeType === 3) return checkNode(root as Text);
    if (root.nodeType !== 1 && root.nodeType !== 9) return;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) checkNode(node as Text);
  }

  function onMutations(records: MutationRecord[]): void {
    const roots = new Set<Node>();
    let restyled = false;
    records.forEach(function (r) {
      if (r.type === 'characterData' || r.type === 'attributes') roots.add(r.target);
      else r.addedNodes.forEach(function (n) {
        if (n.nodeName === 'STYLE' || n.nodeName === 'LINK') restyled = true;
        roots.add(n);
      });
    });
    if (restyled) return checkSubtree(document.body);
    roots.forEach(function (root) {
      if (root.isConnected) checkSubtree(root);
    });
  }

  const observer = new MutationObserver(onMutations);
  let started = false;
  // From the moment the page is ready (its styles and fonts as at load), then whatever changes.
  function start(variables?: Record<string, unknown>): void {
    if (started) return;
    started = true;
    vars = variables || {};
    checkSubtree(document.body);
    observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    // A stylesheet that arrives later may give every text another font.
    document.addEventListener('load', function (event) {
      if (event.target && (event.target as Node).nodeName === 'LINK') checkSubtree(document.body);
    }, true);
  }

  Object.defineProperty(window, '__vidkitGlyphs', {
    value: Object.freeze({
      start: start,
      report: function () {
        const queued = observer.takeRecords();
        if (queued.length > 0) onMutations(queued);
        const loads = pendingLoads.splice(0);
        const deadline = new Promise(function (resolve) { realSetTimeout(resolve, LOAD_DEADLINE_MS); });
        return Promise.race([Promise.all(loads), deadline]).then(function () {
          const out: MissingGlyphs[] = [];
          findings.forEach(function (f) {
            if (f.reported) return;
            f.reported = true;
            out.push({ element: f.element, text: f.text, characters: f.characters.slice(), variables: f.variables });
          });
          return out;
        });
      },
    } satisfies VidkitGlyphs),
  });
}
