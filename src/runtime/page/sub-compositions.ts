// --- sub-compositions ---------------------------------------------------------------------------
// The project server mounts each instance of a sub-composition into its host (docs/guide/hyperframes.md,
// src/composition/sub-compositions.ts) and wraps each of its scripts in
// `window.__vidkitSubComposition(id, compositionId, variables, run)`. `run` gets the instance's
// own `window`, `document`, `gsap`, `__timelines` and `__hyperframes`: selectors resolve inside the
// host, and the instance's timeline is registered under the host's data-composition-id, where the
// runtime plays it in the host's local time.
import type { PageLibrary } from './globals';

function mountSubComposition(id: string, compositionId: string | null, instanceVariables: unknown, run: Function): void {
  let found: Element | null = null;
  document.querySelectorAll('[data-composition-id]').forEach(function (el) {
    if (!found && el.getAttribute('data-composition-id') === id) found = el;
  });
  if (!found) throw new Error('sub-composition ' + id + ': its host is missing from the page');
  const host: Element = found;
  const rootSelector = '[data-vidkit-root="' + CSS.escape(id) + '"]';
  const authored = compositionId ? new RegExp('\\[\\s*data-composition-id\\s*=\\s*(["\']?)' + compositionId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '\\1\\s*\\]', 'g') : null;
  function scoped(selector: unknown): string { return authored ? String(selector).replace(authored, rootSelector) : (selector as string); }
  function selectAll(selector: unknown): Element[] { return Array.prototype.slice.call(host.querySelectorAll(scoped(selector))); }
  function resolve(targets: unknown): unknown { return typeof targets === 'string' ? selectAll(targets) : targets; }

  const scopedDocument = new Proxy(document, {
    get: function (target, key) {
      if (key === 'querySelector') return function (s: string) { return host.querySelector(scoped(s)); };
      if (key === 'querySelectorAll') return function (s: string) { return host.querySelectorAll(scoped(s)); };
      if (key === 'getElementById') return function (i: string) { return host.querySelector('#' + CSS.escape(i)) || document.getElementById(i); };
      if (key === 'getElementsByClassName') return function (c: string) { return host.getElementsByClassName(c); };
      if (key === 'getElementsByTagName') return function (t: string) { return host.getElementsByTagName(t); };
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });

  function scopedGsap(gsap: PageLibrary): PageLibrary {
    if (!gsap) return gsap;
    function targetsFirst(fn: Function, self: unknown) {
      return function (targets: unknown) {
        const args = Array.prototype.slice.call(arguments);
        args[0] = resolve(targets);
        return fn.apply(self, args);
      };
    }
    function scopeTimeline(tl: PageLibrary): PageLibrary {
      ['to', 'from', 'fromTo', 'set'].forEach(function (method) { tl[method] = targetsFirst(tl[method], tl); });
      return tl;
    }
    const g = Object.create(gsap);
    ['to', 'from', 'fromTo', 'set', 'killTweensOf', 'getTweensOf'].forEach(function (method) {
      if (typeof gsap[method] === 'function') g[method] = targetsFirst(gsap[method], gsap);
    });
    g.timeline = function (vars: unknown) { return scopeTimeline(gsap.timeline(vars)); };
    if (gsap.utils) {
      g.utils = Object.create(gsap.utils);
      g.utils.toArray = function (targets: unknown, scope: unknown) { return gsap.utils.toArray(resolve(targets), scope); };
    }
    return g;
  }

  let timelines: Record<string, PageLibrary> = {};
  const hyperframes = Object.create(window.__hyperframes || null);
  hyperframes.getVariables = function () { return JSON.parse(JSON.stringify(instanceVariables)); };
  const gsapForInstance = scopedGsap(window.gsap);
  // Native methods of the window (setTimeout, addEventListener, …) refuse another `this`.
  function nativeMethod(value: unknown): value is Function {
    return typeof value === 'function' && /^[a-z]/.test(value.name) && /\{\s*\[native code\]\s*\}$/.test(Function.prototype.toString.call(value));
  }
  const scopedWindow: Window = new Proxy(window, {
    get: function (target, key) {
      if (key === '__timelines') return timelines;
      if (key === '__hyperframes') return hyperframes;
      if (key === '__hfVariables') return hyperframes.getVariables();
      if (key === 'document') return scopedDocument;
      if (key === 'gsap') return gsapForInstance;
      if (key === 'window' || key === 'self' || key === 'globalThis') return scopedWindow;
      const value = Reflect.get(target, key, target);
      return nativeMethod(value) ? value.bind(target) : value;
    },
    set: function (target, key, value) {
      if (key === '__timelines') timelines = value || {};
      else (target as unknown as Record<string | symbol, unknown>)[key] = value;
      return true;
    },
  });
  try {
    run.call(scopedWindow, scopedWindow, scopedDocument, gsapForInstance, timelines, hyperframes, hyperframes.getVariables());
  } finally {
    // The instance's own timeline (under its composition's id, or the only one it registered)
    // plays under the host's id; others keep their keys.
    const keys = Object.keys(timelines);
    if (keys.length > 0 && !window.__timelines) window.__timelines = {};
    const registered = window.__timelines as Record<string, PageLibrary>;
    keys.forEach(function (key) {
      const own = key === compositionId || key === id || keys.length === 1;
      registered[own ? id : key] = timelines[key];
    });
  }
}

export function installSubCompositions(): void {
  window.__vidkitSubComposition = mountSubComposition;
}
