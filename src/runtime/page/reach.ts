// --- what the variables reach (docs/explanation/batch-reuse.md) ----------------------------------
// A batch renders a frame once for every row when no row's variables can change it. The runtime
// tells which frames a variable can change: the reads page scripts make of the variables
// (recorded as they happen, every frame of the render), the elements the bindings write a variable
// into and the clip windows outside which those elements are hidden, and the style sheets that use
// a variable's custom property. Anything it cannot bound is reported, and the batch renders those
// rows whole. Recording only observes: a page behaves the same whether or not anyone asks.
import type { PageReach, ReachBinding } from '../protocol';
import { variables } from './state';
import { compositionRoot, forgetTiming, timing } from './timing';

const reads = new Set<string>();

/** A read of `id` by a page script; `*` is every variable, `*overrides` which ones were overridden. */
export function recordRead(id: string): void { reads.add(id); }

/** A copy of `values` whose properties record their reads: what `getVariables()` hands a page script. */
export function recordingCopy(values: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  Object.keys(values).forEach(function (id) {
    let value = values[id];
    Object.defineProperty(copy, id, {
      enumerable: true,
      configurable: true,
      get: function () { reads.add(id); return value; },
      set: function (v: unknown) { value = v; },
    });
  });
  return copy;
}

/** `window[name]` as an accessor that records a read of `id` whenever a page script reads it. */
export function recordingGlobal(name: '__hfVariables' | '__vidkitBoot', id: string): void {
  let value = (window as unknown as Record<string, unknown>)[name];
  Object.defineProperty(window, name, {
    configurable: true,
    enumerable: true,
    get: function () { reads.add(id); return value; },
    set: function (v: unknown) { value = v; },
  });
}

function describe(el: Element): string {
  const id = el.id ? '#' + el.id : '';
  const cls = typeof el.className === 'string' && el.className.trim() !== '' ? '.' + el.className.trim().split(/\s+/).join('.') : '';
  return '<' + el.tagName.toLowerCase() + id + cls + '>';
}

// Audio has no picture, the rest are never drawn: none of them bounds what is inside.
const NOT_A_WINDOW: Record<string, number> = { SCRIPT: 1, STYLE: 1, LINK: 1, META: 1, AUDIO: 1, TEMPLATE: 1 };

// The clip whose hiding removes everything `el` draws from the frame: a clip out of the page's
// flow (hidden, it moves nothing), or one in it that holds no clips (hidden, it leaves the
// layout); everything inside a hidden clip is hidden too (timing.ts, showClips). Null: none.
function boundingClip(el: Element, root: Element | null): Element | null {
  for (let up: Element | null = el; up && up !== root; up = up.parentElement) {
    if (!up.hasAttribute('data-start') || NOT_A_WINDOW[up.tagName]) continue;
    const position = getComputedStyle(up).position;
    if (position === 'absolute' || position === 'fixed') return up;
    if (up.querySelector('[data-start]') === null) return up;
  }
  return null;
}

// The frames of [0, totalFrames) at which `clip` is shown, as [start, end) runs.
function shownRuns(clip: Element, totalFrames: number): Array<[number, number]> {
  const t = timing();
  const runs: Array<[number, number]> = [];
  for (let f = 0; f < totalFrames; f++) {
    if (!t.shownAt(clip, f)) continue;
    const last = runs[runs.length - 1];
    if (last && last[1] === f) last[1] = f + 1;
    else runs.push([f, f + 1]);
  }
  return runs;
}

// Every rule's text, each readable sheet in full; null when a sheet cannot be read (cross-origin).
function styleText(): string | null {
  let text = '';
  for (let i = 0; i < document.styleSheets.length; i++) {
    try {
      const rules = document.styleSheets[i].cssRules;
      for (let j = 0; j < rules.length; j++) text += rules[j].cssText + '\n';
    } catch (err) {
      return null;
    }
  }
  return text;
}

function customPropertyNames(id: string): string[] {
  const slug = id.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'node';
  return ['--' + id, '--' + slug];
}

// What no binding bound can hide from: a selector or reference that lets other elements see a
// bound element's content, or a page script.
function unboundedReason(bound: Element[], css: string): string | null {
  const scripted = document.querySelector('script');
  if (scripted) return 'the page runs scripts, which could read what a binding wrote (vidkit does not follow reads of the page)';
  const all = document.querySelectorAll('*');
  for (let i = 0; i < all.length; i++) {
    const attrs = all[i].attributes;
    for (let j = 0; j < attrs.length; j++) {
      if (/^on/i.test(attrs[j].name) || /^\s*javascript:/i.test(attrs[j].value)) return 'the page runs scripts from ' + describe(all[i]) + ' ' + attrs[j].name;
    }
  }
  const selector = /:empty|:has\(|:blank|\[\s*src/i.exec(css);
  if (selector) return 'a style sheet uses ' + selector[0] + ', which can let other elements see a bound element';
  for (let b = 0; b < bound.length; b++) {
    const inside = [bound[b]].concat(Array.prototype.slice.call(bound[b].querySelectorAll('*')) as Element[]);
    for (let i = 0; i < inside.length; i++) {
      // An anchor other elements may be positioned against; the runtime's own video anchors move nothing of the page.
      const anchor = getComputedStyle(inside[i]).getPropertyValue('anchor-name').trim();
      if (anchor !== '' && anchor !== 'none' && anchor.indexOf('--vidkit-video-') !== 0) return describe(inside[i]) + ', inside a bound element, is an anchor other elements may be placed against';
    }
  }
  // An id inside a bound element referred to (url(#id), href="#id") may be drawn elsewhere.
  for (let b = 0; b < bound.length; b++) {
    const named = [bound[b]].concat(Array.prototype.slice.call(bound[b].querySelectorAll('[id]')) as Element[]).filter(function (el) { return el.id !== ''; });
    for (let n = 0; n < named.length; n++) {
      const ref = '#' + named[n].id;
      if (new RegExp('url\\(\\s*["\']?' + ref.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '\\b').test(css)) return 'a style sheet draws ' + describe(named[n]) + ', inside a bound element, elsewhere';
      for (let i = 0; i < all.length; i++) {
        const attrs = all[i].attributes;
        for (let j = 0; j < attrs.length; j++) if (attrs[j].value.indexOf(ref) >= 0) return describe(all[i]) + ' names ' + describe(named[n]) + ', inside a bound element';
      }
    }
  }
  return null;
}

/** What the variables reach, for a render of `totalFrames` frames (PageReach in ../protocol.ts). */
export function pageReach(totalFrames: number): PageReach {
  forgetTiming();
  const root = compositionRoot();
  const css = styleText();
  let inlineStyles = '';
  document.querySelectorAll('[style]').forEach(function (el) { inlineStyles += (el.getAttribute('style') || '') + '\n'; });
  const bindings: ReachBinding[] = [];
  const boxes: Element[] = [];
  const bind = function (el: Element, kind: 'text' | 'src') {
    const id = (el.getAttribute('data-var-' + kind) as string).trim();
    const element = describe(el);
    if (kind === 'src' && (el.tagName === 'VIDEO' || el.tagName === 'AUDIO' || el.tagName === 'SOURCE')) {
      bindings.push({ id: id, element: element, frames: null, why: element + ' plays a variable source: its sound and length may change' });
      return;
    }
    const clip = boundingClip(el, root);
    if (clip === null) {
      bindings.push({ id: id, element: element, frames: null, why: element + ' is in no clip that hides it outside its window' });
      return;
    }
    boxes.push(clip);
    bindings.push({ id: id, element: element, frames: shownRuns(clip, totalFrames) });
  };
  document.querySelectorAll('[data-var-text]').forEach(function (el) { bind(el, 'text'); });
  document.querySelectorAll('[data-var-src]').forEach(function (el) { bind(el, 'src'); });
  const ids = Object.keys(variables);
  const cssUses = css === null ? ['*'] : ids.filter(function (id) {
    return customPropertyNames(id).some(function (name) { return (css + inlineStyles).indexOf('var(' + name) >= 0; });
  });
  return {
    reads: Array.from(reads),
    bindings: bindings,
    css: cssUses,
    unbounded: bindings.length === 0 ? null : unboundedReason(boxes, css === null ? '' : css + inlineStyles),
    // An iframe runs a runtime of its own (frames.ts), whose reads this one does not see.
    whole: document.querySelector('iframe') ? 'the page has an iframe, whose reads of the variables vidkit does not follow' : null,
  };
}
