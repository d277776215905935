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
function installGlyphCheck(systemFaces) {
  'use strict';
  if (window.__vidkitGlyphs || window !== window.top) return;

  var PROBE_A = 'vidkit-glyph-probe-a';
  var PROBE_B = 'vidkit-glyph-probe-b';
  var PROBE_SIZE = 100;
  var SYSTEM = 'vidkit-glyph-system';
  // Whitespace, controls and default-ignorable characters (joiners, variation selectors, bidi
  // marks) draw no glyph of their own.
  var SKIPPED = /[\s\p{Cc}\p{Default_Ignorable_Code_Point}]/u;
  var MAX_FINDINGS = 50;
  var LOAD_DEADLINE_MS = 10000;
  // Taken before the page runtime makes timers follow the virtual clock: the deadline is real time.
  var realSetTimeout = window.setTimeout.bind(window);

  // --- the probe faces: a TrueType font whose cmap (format 13) maps every code point to glyph 1 ---
  function probeFont(familyName, advance) {
    var tables = {};
    var be = function (size) { return new DataView(new ArrayBuffer(size)); };
    var head = be(54);
    head.setUint32(0, 0x00010000); head.setUint32(4, 0x00010000); head.setUint32(12, 0x5f0f3cf5);
    head.setUint16(16, 0x000b); head.setUint16(18, 1000);
    head.setInt16(36, 0); head.setInt16(38, -200); head.setInt16(40, advance); head.setInt16(42, 800);
    head.setUint16(46, 8); head.setInt16(48, 2); head.setInt16(50, 0); head.setInt16(52, 0);
    tables.head = head;
    var hhea = be(36);
    hhea.setUint32(0, 0x00010000); hhea.setInt16(4, 800); hhea.setInt16(6, -200); hhea.setUint16(10, advance);
    hhea.setInt16(16, advance); hhea.setInt16(18, 1); hhea.setUint16(34, 2);
    tables.hhea = hhea;
    var maxp = be(32);
    maxp.setUint32(0, 0x00010000); maxp.setUint16(4, 2); maxp.setUint16(6, 4); maxp.setUint16(8, 1); maxp.setUint16(14, 2);
    tables.maxp = maxp;
    var hmtx = be(8);
    hmtx.setUint16(0, advance); hmtx.setUint16(4, advance);
    tables.hmtx = hmtx;
    // Glyph 0 (.notdef) empty, glyph 1 a box: one contour of four on-curve points.
    var glyph = be(34);
    glyph.setInt16(0, 1); glyph.setInt16(2, 0); glyph.setInt16(4, -200); glyph.setInt16(6, advance); glyph.setInt16(8, 800);
    glyph.setUint16(10, 3); glyph.setUint16(12, 0);
    for (var f = 0; f < 4; f++) glyph.setUint8(14 + f, 0x01);
    [0, advance, 0, -advance].forEach(function (dx, i) { glyph.setInt16(18 + i * 2, dx); });
    [-200, 0, 1000, 0].forEach(function (dy, i) { glyph.setInt16(26 + i * 2, dy); });
    tables.glyf = glyph;
    var loca = be(6);
    loca.setUint16(0, 0); loca.setUint16(2, 0); loca.setUint16(4, 17);
    tables.loca = loca;
    var cmap = be(12 + 28);
    cmap.setUint16(0, 0); cmap.setUint16(2, 1); cmap.setUint16(4, 3); cmap.setUint16(6, 10); cmap.setUint32(8, 12);
    cmap.setUint16(12, 13); cmap.setUint32(16, 28); cmap.setUint32(24, 1);
    cmap.setUint32(28, 0); cmap.setUint32(32, 0x10ffff); cmap.setUint32(36, 1);
    tables.cmap = cmap;
    // GDEF: glyph 1 is a base glyph (a glyph class definition, format 1), so shaping keeps its
    // advance on combining marks too.
    var gdef = be(20);
    gdef.setUint32(0, 0x00010000); gdef.setUint16(4, 12);
    gdef.setUint16(12, 1); gdef.setUint16(14, 1); gdef.setUint16(16, 1); gdef.setUint16(18, 1);
    tables.GDEF = gdef;
    var names = [1, 2, 4, 6];
    var strings = [familyName, 'Regular', familyName, familyName];
    var stringBytes = strings.reduce(function (n, s) { return n + s.length * 2; }, 0);
    var name = be(6 + names.length * 12 + stringBytes);
    name.setUint16(2, names.length); name.setUint16(4, 6 + names.length * 12);
    var at = 0;
    names.forEach(function (id, i) {
      var rec = 6 + i * 12;
      name.setUint16(rec, 3); name.setUint16(rec + 2, 1); name.setUint16(rec + 4, 0x409); name.setUint16(rec + 6, id);
      name.setUint16(rec + 8, strings[i].length * 2); name.setUint16(rec + 10, at);
      for (var c = 0; c < strings[i].length; c++) name.setUint16(6 + names.length * 12 + at + c * 2, strings[i].charCodeAt(c));
      at += strings[i].length * 2;
    });
    tables.name = name;
    var os2 = be(96);
    os2.setUint16(0, 4); os2.setInt16(2, advance); os2.setUint16(4, 400); os2.setUint16(6, 5);
    os2.setUint16(62, 0x40); os2.setUint16(64, 0); os2.setUint16(66, 0xffff);
    os2.setInt16(68, 800); os2.setInt16(70, -200); os2.setUint16(74, 800); os2.setUint16(76, 200);
    os2.setUint16(94, 0);
    tables['OS/2'] = os2;
    var post = be(32);
    post.setUint32(0, 0x00030000);
    tables.post = post;

    var tags = Object.keys(tables).sort();
    var offset = 12 + tags.length * 16;
    var size = offset;
    tags.forEach(function (tag) { size += (tables[tag].byteLength + 3) & ~3; });
    var out = be(size);
    var log2 = Math.floor(Math.log2(tags.length));
    out.setUint32(0, 0x00010000); out.setUint16(4, tags.length);
    out.setUint16(6, 16 << log2); out.setUint16(8, log2); out.setUint16(10, tags.length * 16 - (16 << log2));
    tags.forEach(function (tag, i) {
      var table = tables[tag];
      var sum = 0;
      for (var b = 0; b < table.byteLength; b++) {
        out.setUint8(offset + b, table.getUint8(b));
        sum = (sum + (table.getUint8(b) << (24 - 8 * (b % 4)))) >>> 0;
      }
      var rec = 12 + i * 16;
      for (var t = 0; t < 4; t++) out.setUint8(rec + t, tag.charCodeAt(t) || 32);
      out.setUint32(rec + 4, sum); out.setUint32(rec + 8, offset); out.setUint32(rec + 12, table.byteLength);
      offset += (table.byteLength + 3) & ~3;
    });
    return new FontFace(familyName, out.buffer);
  }

  var probes = [probeFont(PROBE_A, 1000), probeFont(PROBE_B, 2000)];
  // A system face this machine lacks fails to load, and is left out.
  var systems = systemFaces.map(function (name) { return new FontFace(SYSTEM, 'local(' + JSON.stringify(name) + ')'); });
  var added = probes.concat(systems);
  var probesReady = Promise.all(added.map(function (face) { return face.load().catch(function () { return null; }); }));
  var canvas = document.createElement('canvas');
  var ctx = canvas.getContext('2d');

  // --- what to check ---------------------------------------------------------------------------
  var fontOf = new Map(); // font key -> { font, covered: Map(char -> bool) }
  var pendingLoads = [];
  var findings = new Map(); // element description + variable -> finding

  function fontKey(style) {
    var italic = style.fontStyle === 'normal' ? 'normal' : 'italic';
    return italic + ' ' + style.fontWeight + ' ' + PROBE_SIZE + 'px ' + style.fontFamily;
  }

  function describe(el) {
    var parts = [];
    for (var node = el; node && node.nodeType === 1 && parts.length < 3; node = node.parentElement) {
      var part = node.tagName.toLowerCase();
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

  function variablesWith(text) {
    var vars;
    try {
      vars = window.__vidkit ? window.__vidkit.getVariables() : {};
    } catch (err) {
      return [];
    }
    return Object.keys(vars).filter(function (key) {
      var value = vars[key];
      return typeof value === 'string' && value.length > 0 && text.indexOf(value) >= 0;
    });
  }

  // Measured with the probes in the page's font set only while the canvas measures.
  function measure(font, chars) {
    var usable = added.filter(function (face) { return face.status === 'loaded'; });
    usable.forEach(function (face) { document.fonts.add(face); });
    try {
      return chars.map(function (ch) {
        ctx.font = font + ', "' + SYSTEM + '", "' + PROBE_A + '"';
        var a = ctx.measureText(ch).width;
        ctx.font = font + ', "' + SYSTEM + '", "' + PROBE_B + '"';
        return Math.abs(ctx.measureText(ch).width - a) < 0.5;
      });
    } finally {
      usable.forEach(function (face) { document.fonts.delete(face); });
    }
  }

  function record(el, text, missing) {
    var element = describe(el);
    var variables = variablesWith(text);
    var key = element + '\n' + variables.join(',');
    var finding = findings.get(key);
    if (!finding) {
      if (findings.size >= MAX_FINDINGS) return;
      finding = { element: element, text: text.trim().slice(0, 80), characters: [], variables: variables, reported: false };
      findings.set(key, finding);
    }
    missing.forEach(function (ch) {
      if (finding.characters.indexOf(ch) < 0) {
        finding.characters.push(ch);
        finding.reported = false;
      }
    });
  }

  // Characters of `text` under `el`'s font: those measured already decide at once; the others are
  // measured once the faces that may have them are loaded (document.fonts.load starts exactly the
  // faces whose unicode-range holds them).
  function checkText(el, text, key) {
    var entry = fontOf.get(key);
    if (!entry) {
      entry = { font: key, covered: new Map() };
      fontOf.set(key, entry);
    }
    var missing = [];
    var unknown = [];
    Array.from(new Set(Array.from(text))).forEach(function (ch) {
      if (SKIPPED.test(ch)) return;
      var covered = entry.covered.get(ch);
      if (covered === false) missing.push(ch);
      else if (covered === undefined) unknown.push(ch);
    });
    if (missing.length > 0) record(el, text, missing);
    if (unknown.length === 0) return;
    var chars = unknown.join('');
    var decide = function () {
      var still = unknown.filter(function (ch) { return !entry.covered.has(ch); });
      measure(entry.font, still).forEach(function (covered, i) { entry.covered.set(still[i], covered); });
      var now = unknown.filter(function (ch) { return entry.covered.get(ch) === false; });
      if (now.length > 0) record(el, text, now);
    };
    if (settled && fontsLoaded(entry.font, chars)) return decide();
    var load = Promise.all([probesReady, document.fonts.load(entry.font, chars).catch(function () { return null; })]).then(decide);
    pendingLoads.push(load);
  }

  var settled = false;
  probesReady.then(function () { settled = true; });

  function fontsLoaded(font, chars) {
    try {
      return document.fonts.check(font, chars);
    } catch (err) {
      return false;
    }
  }

  function drawn(el) {
    return el.checkVisibility ? el.checkVisibility() : el.getClientRects().length > 0;
  }

  // What each text node was last checked as (its font and text): a frame that moves an element
  // (a timeline writes its style attribute) costs one computed style per text node under it.
  var checkedAs = new WeakMap();

  function checkNode(node) {
    var el = node.parentElement;
    if (!el || !node.data.trim() || el.closest('script, style, template, noscript, title') || !drawn(el)) return;
    var key = fontKey(getComputedStyle(el));
    var as = key + '\n' + node.data;
    if (checkedAs.get(node) === as) return;
    checkedAs.set(node, as);
    checkText(el, node.data, key);
  }

  function checkSubtree(root) {
    if (!root) return;
    if (root.nodeType === 3) return checkNode(root);
    if (root.nodeType !== 1 && root.nodeType !== 9) return;
    var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (var node = walker.nextNode(); node; node = walker.nextNode()) checkNode(node);
  }

  function onMutations(records) {
    var roots = new Set();
    var restyled = false;
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

  var observer = new MutationObserver(onMutations);
  var started = false;
  // From the moment the page is ready (its styles and fonts as at load), then whatever changes.
  function start() {
    if (started) return;
    started = true;
    checkSubtree(document.body);
    observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    // A stylesheet that arrives later may give every text another font.
    document.addEventListener('load', function (event) {
      if (event.target && event.target.nodeName === 'LINK') checkSubtree(document.body);
    }, true);
  }

  Object.defineProperty(window, '__vidkitGlyphs', {
    value: Object.freeze({
      /** Checks the page as it is once ready, and from then on the text that changes. */
      start: start,
      /**
       * Findings not reported before: `{element, text, characters, variables}` each, once the
       * faces the checked text needs have loaded (at most LOAD_DEADLINE_MS).
       */
      report: function () {
        var queued = observer.takeRecords();
        if (queued.length > 0) onMutations(queued);
        var loads = pendingLoads.splice(0);
        var deadline = new Promise(function (resolve) { realSetTimeout(resolve, LOAD_DEADLINE_MS); });
        return Promise.race([Promise.all(loads), deadline]).then(function () {
          var out = [];
          findings.forEach(function (f) {
            if (f.reported) return;
            f.reported = true;
            out.push({ element: f.element, text: f.text, characters: f.characters.slice(), variables: f.variables });
          });
          return out;
        });
      },
    }),
  });
}
