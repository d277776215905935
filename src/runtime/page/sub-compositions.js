// --- sub-compositions ---------------------------------------------------------------------------
// The project server mounts each instance of a sub-composition into its host (docs/guide/hyperframes.md,
// src/composition/sub-compositions.ts) and wraps each of its scripts in
// `window.__vidkitSubComposition(id, compositionId, variables, run)`. `run` gets the instance's
// own `window`, `document`, `gsap`, `__timelines` and `__hyperframes`: selectors resolve inside the
// host, and the instance's timeline is registered under the host's data-composition-id, where the
// runtime plays it in the host's local time.
window.__vidkitSubComposition = function (id, compositionId, instanceVariables, run) {
  var host = null;
  document.querySelectorAll('[data-composition-id]').forEach(function (el) {
    if (!host && el.getAttribute('data-composition-id') === id) host = el;
  });
  if (!host) throw new Error('sub-composition ' + id + ': its host is missing from the page');
  var rootSelector = '[data-vidkit-root="' + CSS.escape(id) + '"]';
  var authored = compositionId ? new RegExp('\\[\\s*data-composition-id\\s*=\\s*(["\']?)' + compositionId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '\\1\\s*\\]', 'g') : null;
  function scoped(selector) { return authored ? String(selector).replace(authored, rootSelector) : selector; }
  function selectAll(selector) { return Array.prototype.slice.call(host.querySelectorAll(scoped(selector))); }
  function resolve(targets) { return typeof targets === 'string' ? selectAll(targets) : targets; }

  var scopedDocument = new Proxy(document, {
    get: function (target, key) {
      if (key === 'querySelector') return function (s) { return host.querySelector(scoped(s)); };
      if (key === 'querySelectorAll') return function (s) { return host.querySelectorAll(scoped(s)); };
      if (key === 'getElementById') return function (i) { return host.querySelector('#' + CSS.escape(i)) || document.getElementById(i); };
      if (key === 'getElementsByClassName') return function (c) { return host.getElementsByClassName(c); };
      if (key === 'getElementsByTagName') return function (t) { return host.getElementsByTagName(t); };
      var value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });

  function scopedGsap(gsap) {
    if (!gsap) return gsap;
    function targetsFirst(fn, self) {
      return function (targets) {
        var args = Array.prototype.slice.call(arguments);
        args[0] = resolve(targets);
        return fn.apply(self, args);
      };
    }
    function scopeTimeline(tl) {
      ['to', 'from', 'fromTo', 'set'].forEach(function (method) { tl[method] = targetsFirst(tl[method], tl); });
      return tl;
    }
    var g = Object.create(gsap);
    ['to', 'from', 'fromTo', 'set', 'killTweensOf', 'getTweensOf'].forEach(function (method) {
      if (typeof gsap[method] === 'function') g[method] = targetsFirst(gsap[method], gsap);
    });
    g.timeline = function (vars) { return scopeTimeline(gsap.timeline(vars)); };
    if (gsap.utils) {
      g.utils = Object.create(gsap.utils);
      g.utils.toArray = function (targets, scope) { return gsap.utils.toArray(resolve(targets), scope); };
    }
    return g;
  }

  var timelines = {};
  var hyperframes = Object.create(window.__hyperframes || null);
  hyperframes.getVariables = function () { return JSON.parse(JSON.stringify(instanceVariables)); };
  var gsapForInstance = scopedGsap(window.gsap);
  // Native methods of the window (setTimeout, addEventListener, …) refuse another `this`.
  function nativeMethod(value) {
    return typeof value === 'function' && /^[a-z]/.test(value.name) && /\{\s*\[native code\]\s*\}$/.test(Function.prototype.toString.call(value));
  }
  var scopedWindow = new Proxy(window, {
    get: function (target, key) {
      if (key === '__timelines') return timelines;
      if (key === '__hyperframes') return hyperframes;
      if (key === '__hfVariables') return hyperframes.getVariables();
      if (key === 'document') return scopedDocument;
      if (key === 'gsap') return gsapForInstance;
      if (key === 'window' || key === 'self' || key === 'globalThis') return scopedWindow;
      var value = Reflect.get(target, key, target);
      return nativeMethod(value) ? value.bind(target) : value;
    },
    set: function (target, key, value) {
      if (key === '__timelines') timelines = value || {};
      else target[key] = value;
      return true;
    },
  });
  try {
    run.call(scopedWindow, scopedWindow, scopedDocument, gsapForInstance, timelines, hyperframes, hyperframes.getVariables());
  } finally {
    // The instance's own timeline (under its composition's id, or the only one it registered)
    // plays under the host's id; others keep their keys.
    var keys = Object.keys(timelines);
    if (keys.length > 0 && !window.__timelines) window.__timelines = {};
    keys.forEach(function (key) {
      var own = key === compositionId || key === id || keys.length === 1;
      window.__timelines[own ? id : key] = timelines[key];
    });
  }
};
