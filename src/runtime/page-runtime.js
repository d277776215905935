// The vidkit page runtime. Injected before any page script (renderer and player alike), it gives
// classic scripts `window.__vidkit.getVariables()` and replaces every clock the page can read with
// one virtual clock, so frame i shows time i/fps exactly whatever the wall clock does, and
// replaces the page's sources of randomness with one seeded sequence.
// It reads its configuration from `window.__vidkitBoot` = { variables, fps, seed, epochMs }
// (src/runtime/boot.ts builds it).
(function installVidkitRuntime() {
  'use strict';
  if (window.__vidkit) return;
  var boot = window.__vidkitBoot || {};
  var fps = boot.fps || 30;
  // Every chunk of one render shares the same epoch, so Date agrees across chunk seams.
  var epochMs = typeof boot.epochMs === 'number' ? boot.epochMs : 0;
  var seed = String(boot.seed);
  var variables = boot.variables || {};

  var real = {
    setTimeout: window.setTimeout.bind(window),
    requestAnimationFrame: window.requestAnimationFrame.bind(window),
    Date: window.Date,
  };

  var nowMs = 0;
  var frame = -1;

  // --- Date and performance.now ---------------------------------------------------------------
  var RealDate = real.Date;
  function VirtualDate() {
    if (!new.target) return new RealDate(epochMs + nowMs).toString();
    var args = arguments.length ? Array.prototype.slice.call(arguments) : [epochMs + nowMs];
    return Reflect.construct(RealDate, args, new.target);
  }
  VirtualDate.prototype = RealDate.prototype;
  VirtualDate.now = function () { return epochMs + nowMs; };
  VirtualDate.parse = RealDate.parse;
  VirtualDate.UTC = RealDate.UTC;
  Object.defineProperty(VirtualDate, 'name', { value: 'Date' });
  window.Date = VirtualDate;
  Object.defineProperty(performance, 'now', { value: function () { return nowMs; }, configurable: true });
  // timeOrigin + now() is another way to read the wall clock; it reads the virtual one.
  Object.defineProperty(performance, 'timeOrigin', { value: epochMs, configurable: true });

  // --- Math.random, crypto.getRandomValues, crypto.randomUUID -------------------------------------
  // sfc32 generators seeded from a cyrb128 hash of the seed (both from bryc's PRNG notes): the
  // numbers depend only on the seed and the order of the page's calls, which every worker, chunk,
  // re-render and the player repeat (load runs the same scripts; seeking steps through every frame).
  // Math.random and crypto draw from separate streams, so crypto calls, e.g. a library's ids, do not
  // shift the numbers that place the page's shapes.
  function cyrb128(str) {
    var h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762;
    for (var i = 0, k; i < str.length; i++) {
      k = str.charCodeAt(i);
      h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
      h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
      h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
      h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
    }
    h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
    h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
    h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
    h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
    h1 ^= h2 ^ h3 ^ h4; h2 ^= h1; h3 ^= h1; h4 ^= h1;
    return [h1, h2, h3, h4];
  }
  // Returns a function giving the next unsigned 32-bit number.
  function sfc32(key) {
    var a = key[0] | 0, b = key[1] | 0, c = key[2] | 0, d = key[3] | 0;
    function next() {
      var t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (c << 21) | (c >>> 11);
      c = (c + t) | 0;
      return t >>> 0;
    }
    // The first outputs still resemble the hash.
    for (var i = 0; i < 15; i++) next();
    return next;
  }
  var nextMath = sfc32(cyrb128('Math.random:' + seed));
  var nextCrypto = sfc32(cyrb128('crypto:' + seed));
  // 53 random bits, the full precision of a double in [0, 1), as the browser's own gives.
  Math.random = function random() { return ((nextMath() >>> 5) * 67108864 + (nextMath() >>> 6)) / 9007199254740992; };
  function fillRandom(bytes) {
    for (var i = 0; i < bytes.length; i += 4) {
      var word = nextCrypto();
      for (var j = 0; j < 4 && i + j < bytes.length; j++) bytes[i + j] = (word >>> (8 * j)) & 255;
    }
  }
  var CryptoProto = window.Crypto.prototype;
  var realGetRandomValues = CryptoProto.getRandomValues;
  var realRandomUUID = CryptoProto.randomUUID;
  // Each replacement first makes the browser's own call, which checks the receiver and the argument
  // and throws exactly what the browser would: TypeMismatchError for a float array or a DataView,
  // QuotaExceededError over 65536 bytes.
  CryptoProto.getRandomValues = function getRandomValues(array) {
    realGetRandomValues.call(this, array);
    fillRandom(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    return array;
  };
  // randomUUID exists only in secure contexts (https, localhost, the player's srcdoc in either).
  if (typeof realRandomUUID === 'function') {
    CryptoProto.randomUUID = function randomUUID() {
      realRandomUUID.call(this);
      var b = new Uint8Array(16);
      fillRandom(b);
      b[6] = (b[6] & 0x0f) | 0x40; // version 4
      b[8] = (b[8] & 0x3f) | 0x80; // variant 10xx
      var hex = '';
      for (var i = 0; i < 16; i++) hex += (b[i] + 256).toString(16).slice(1);
      return hex.slice(0, 8) + '-' + hex.slice(8, 12) + '-' + hex.slice(12, 16) + '-' + hex.slice(16, 20) + '-' + hex.slice(20);
    };
  }

  // --- timers -------------------------------------------------------------------------------------
  var timers = new Map();
  var nextTimerId = 1;
  // Browsers clamp nested intervals to 4 ms; doing the same keeps a zero interval from looping forever.
  var MIN_INTERVAL_MS = 4;
  function addTimer(cb, delay, args, repeat) {
    var id = nextTimerId++;
    var ms = Math.max(0, Number(delay) || 0);
    var fn = typeof cb === 'function' ? cb : new Function(String(cb));
    timers.set(id, { due: nowMs + ms, fn: fn, args: args, interval: repeat ? Math.max(MIN_INTERVAL_MS, ms) : 0 });
    return id;
  }
  window.setTimeout = function (cb, delay) { return addTimer(cb, delay, Array.prototype.slice.call(arguments, 2), false); };
  window.setInterval = function (cb, delay) { return addTimer(cb, delay, Array.prototype.slice.call(arguments, 2), true); };
  window.clearTimeout = window.clearInterval = function (id) { timers.delete(id); };

  // Fires every timer due at or before `untilMs`, earliest first, each at its own due time.
  var MAX_TIMER_CALLS = 1000000;
  function runTimers(untilMs) {
    for (var calls = 0; ; calls++) {
      if (calls > MAX_TIMER_CALLS) throw new Error('vidkit: timers keep scheduling each other without time passing');
      var nextId = -1, next = null;
      timers.forEach(function (t, id) {
        if (t.due <= untilMs && (next === null || t.due < next.due || (t.due === next.due && id < nextId))) { next = t; nextId = id; }
      });
      if (next === null) return;
      nowMs = Math.max(nowMs, next.due);
      if (next.interval) next.due += next.interval; else timers.delete(nextId);
      next.fn.apply(window, next.args);
      changed = true;
      // A callback may start animations or add media: they began at this timer's time.
      registerAnimations();
      registerMedia();
    }
  }

  // --- requestAnimationFrame ------------------------------------------------------------------------
  var rafCallbacks = new Map();
  var nextRafId = 1;
  window.requestAnimationFrame = function (cb) { var id = nextRafId++; rafCallbacks.set(id, cb); return id; };
  window.cancelAnimationFrame = function (id) { rafCallbacks.delete(id); };
  function runAnimationFrame(timeMs) {
    var due = rafCallbacks;
    rafCallbacks = new Map();
    due.forEach(function (cb) { cb(timeMs); });
    if (due.size > 0) {
      changed = true;
      registerAnimations();
      registerMedia();
    }
  }

  // --- CSS animations, transitions and the Web Animations API ----------------------------------
  // Each animation is paused and driven from the virtual clock, relative to the virtual time at
  // which it first appeared. One the page itself paused before we saw it stays under its control.
  var animationStart = new WeakMap();
  var pageControlled = new WeakSet();
  // Records the virtual time at which each new animation appeared.
  function registerAnimations() {
    var all = document.getAnimations();
    for (var i = 0; i < all.length; i++) {
      var anim = all[i];
      if (animationStart.has(anim) || pageControlled.has(anim)) continue;
      if (anim.playState === 'paused') pageControlled.add(anim);
      else animationStart.set(anim, nowMs);
    }
    return all;
  }
  // An animation holding still before its delay or after its end shows the same thing on every
  // frame: writing its currentTime again would still mark the page damaged and cost a full capture.
  var heldPhase = new WeakMap();
  function phaseAt(anim, localMs) {
    var t = anim.effect ? anim.effect.getComputedTiming() : null;
    if (!t) return 'active';
    if (localMs < t.delay) return 'before';
    if (localMs >= t.delay + t.activeDuration) return 'after';
    return 'active';
  }
  function syncAnimations() {
    var all = registerAnimations();
    for (var i = 0; i < all.length; i++) {
      var anim = all[i];
      if (pageControlled.has(anim)) continue;
      var local = nowMs - animationStart.get(anim);
      var phase = phaseAt(anim, local);
      if (phase !== 'active' && heldPhase.get(anim) === phase) continue;
      heldPhase.set(anim, phase);
      anim.pause();
      anim.currentTime = local;
      changed = true;
    }
  }

  // --- GSAP timelines registered in window.__timelines ----------------------------------------------
  if (!window.__timelines) window.__timelines = {};
  // A finished timeline (time past its total duration, as at the previous frame) is left alone.
  var timelineTime = new WeakMap();
  function syncTimelines() {
    var tls = window.__timelines;
    for (var id in tls) {
      var tl = tls[id];
      if (!tl || typeof tl !== 'object') continue;
      var seconds = nowMs / 1000;
      var total = typeof tl.totalDuration === 'function' ? tl.totalDuration() : Infinity;
      var applied = Math.min(seconds, total >= 0 ? total : Infinity);
      if (timelineTime.get(tl) === applied) continue;
      timelineTime.set(tl, applied);
      if (typeof tl.totalTime === 'function') tl.totalTime(seconds, false);
      else if (typeof tl.seek === 'function') tl.seek(seconds, false);
      changed = true;
    }
  }

  // --- <video> and <audio> ---------------------------------------------------------------------------
  // Media elements play on the virtual timeline: from `data-start` seconds (default: the virtual
  // time at which they appear in the document), from the currentTime they have then, at their
  // playbackRate, looping with `loop`. The runtime keeps them paused and seeks every video to its
  // own time for each frame; the soundtrack is mixed natively from what `__mediaTimeline()` reports.
  var media = new Map();
  // Seek a hair past the exact time: containers round timestamps (WebM to 1 ms), and a frame whose
  // stored time is a fraction of a millisecond late must still count as showing.
  var SEEK_BIAS_S = 0.001;
  function registerMedia() {
    var els = document.querySelectorAll('video, audio');
    for (var i = 0; i < els.length; i++) {
      var el = els[i];
      if (media.has(el)) continue;
      var attr = el.getAttribute('data-start');
      var start = attr === null ? nowMs : Number(attr) * 1000;
      if (attr !== null && (attr.trim() === '' || !isFinite(start) || start < 0)) {
        throw new Error('vidkit: data-start="' + attr + '" of ' + mediaSource(el) + ' must be a number of seconds, 0 or more');
      }
      media.set(el, { start: start, offset: el.currentTime || 0, rate: el.playbackRate || 1, shown: null });
      el.autoplay = false;
      el.preload = 'auto';
      el.pause();
    }
  }
  function mediaSource(el) { return el.currentSrc || el.src || (el.querySelector('source') || {}).src || '<' + el.tagName.toLowerCase() + '>'; }
  // An element with nothing to play (no src, no <source>, no stream yet) shows no picture and makes
  // no sound: there is nothing to wait for, seek or mix until a script gives it a source.
  function hasSource(el) { return el.hasAttribute('src') || el.querySelector('source') !== null || el.srcObject != null; }
  // Resolves once `el` has reached `state` (1: metadata, 2: a picture), rejects if it cannot load.
  function loaded(el, state) {
    if (el.readyState >= state) return Promise.resolve();
    return new Promise(function (resolve, reject) {
      el.addEventListener(state >= 2 ? 'loadeddata' : 'loadedmetadata', function () { resolve(); }, { once: true });
      el.addEventListener('error', function () { reject(new Error('media failed to load: ' + mediaSource(el))); }, { once: true });
      // Elements the page set to preload nothing have not started loading.
      if (el.networkState === el.NETWORK_EMPTY || el.networkState === el.NETWORK_IDLE) el.load();
    });
  }
  function mediaTimeAt(el, m) {
    var t = m.offset + (Math.max(0, nowMs - m.start) / 1000) * m.rate;
    var d = el.duration;
    if (isFinite(d) && d > 0) t = el.loop ? t % d : Math.min(t, d);
    return t;
  }
  function seekMedia(el, t) {
    // Before its metadata a seek only records a start position and fires no 'seeked'.
    return loaded(el, 1).then(function () { return seekLoaded(el, t); });
  }
  function seekLoaded(el, t) {
    return new Promise(function (resolve, reject) {
      function settle(ok) {
        el.removeEventListener('seeked', onSeeked);
        el.removeEventListener('error', onError);
        if (ok) resolve(); else reject(new Error('media failed to load: ' + mediaSource(el)));
      }
      // A 'seeked' still queued from an earlier seek (the page's own currentTime, a load) arrives
      // while this one is under way; taking it would pair every later seek with the one before.
      function onSeeked() { if (!el.seeking) settle(true); }
      function onError() { settle(false); }
      el.addEventListener('seeked', onSeeked);
      el.addEventListener('error', onError);
      el.currentTime = t;
    });
  }
  // Videos whose new picture the compositor has not presented yet (requestVideoFrameCallback).
  var unpresented = new Set();
  // Seeks each video whose own time moved; null when none did, else a promise of all seeks.
  function syncVideos() {
    var seeks = [];
    media.forEach(function (m, el) {
      if (el.tagName !== 'VIDEO' || !el.isConnected || !hasSource(el)) return;
      var t = mediaTimeAt(el, m);
      if (m.shown === t) return;
      m.shown = t;
      changed = true;
      if (typeof el.requestVideoFrameCallback === 'function') {
        unpresented.add(el);
        el.requestVideoFrameCallback(function () { unpresented.delete(el); });
      }
      // The end itself shows no frame in every container: aim just inside it.
      var d = el.duration;
      var target = isFinite(d) && d > 0 ? Math.min(t + SEEK_BIAS_S, d - SEEK_BIAS_S) : t + SEEK_BIAS_S;
      seeks.push(seekMedia(el, target));
    });
    return seeks.length > 0 ? Promise.all(seeks) : null;
  }
  function mediaReady() {
    registerMedia();
    var waits = [];
    media.forEach(function (m, el) {
      // A video's first picture must be in before the first seek, or its late arrival can
      // replace the picture of that seek on screen.
      if (hasSource(el)) waits.push(loaded(el, el.tagName === 'VIDEO' ? 2 : 1));
    });
    // A script may set currentTime before the metadata arrives; it counts once it has.
    return Promise.all(waits).then(function () {
      media.forEach(function (m, el) { if (m.shown === null) m.offset = el.currentTime || 0; });
    });
  }
  // What the renderer mixes: every media element seen so far, in seconds.
  function mediaTimeline() {
    var list = [];
    media.forEach(function (m, el) {
      if (!hasSource(el)) return;
      list.push({
        kind: el.tagName.toLowerCase(), src: mediaSource(el), start: m.start / 1000, offset: m.offset,
        playbackRate: m.rate, loop: el.loop, volume: el.volume, muted: el.muted,
      });
    });
    return list;
  }

  // --- seeking --------------------------------------------------------------------------------------
  // Moving forward steps through every frame in between (timers, then animation frames), so state a
  // page builds up frame by frame, and the start of every animation a callback creates, are the
  // same in every chunk. The renderer only ever moves forward.
  // Returns whether anything on the page may look different from the previous frame: a callback
  // ran, an animation or timeline moved, or the DOM changed. When not, the renderer repeats the
  // previous image without asking the browser to draw (a begin-frame screenshot always redraws).
  // While videos seek, the answer comes as a promise that settles once each shows its frame.
  function seekFrame(target) {
    if (target < frame) throw new Error('vidkit: cannot seek backwards from frame ' + frame + ' to ' + target);
    while (frame < target) {
      var t = ((frame + 1) * 1000) / fps;
      runTimers(t);
      nowMs = t;
      frame += 1;
      runAnimationFrame(t);
    }
    syncAnimations();
    syncTimelines();
    registerMedia();
    var seeking = syncVideos();
    if (mutations.takeRecords().length > 0 || hasUncontrolledMotion()) changed = true;
    var result = changed;
    changed = false;
    // 'video': changed, and a video's new picture must reach the compositor before the capture.
    return seeking === null ? result : seeking.then(function () { return 'video'; });
  }

  var changed = true;
  var mutations = new MutationObserver(function () { changed = true; });
  mutations.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  // Motion the clock does not drive (SVG animation, animated images) may change any frame: such
  // pages never skip a draw.
  var UNCONTROLLED = 'animate, animateMotion, animateTransform, set, img[src*=".gif" i], img[src^="data:image/gif" i]';
  function hasUncontrolledMotion() { return document.querySelector(UNCONTROLLED) !== null; }

  // --- readiness --------------------------------------------------------------------------------------
  var pending = [];
  function whenLoaded() {
    if (document.readyState === 'complete') return Promise.resolve();
    return new Promise(function (resolve) { window.addEventListener('load', function () { resolve(); }, { once: true }); });
  }
  function imagesReady() {
    var imgs = Array.prototype.slice.call(document.images);
    return Promise.all(imgs.map(function (img) {
      if (!img.src) return null;
      return img.decode().catch(function () {
        throw new Error('image failed to load: ' + (img.currentSrc || img.src));
      });
    }));
  }
  // CSS background images: the load event does not wait for those of elements styled later.
  function cssImagesReady() {
    var urls = new Set();
    var all = document.querySelectorAll('*');
    for (var i = 0; i < all.length; i++) {
      var bg = getComputedStyle(all[i]).backgroundImage;
      if (!bg || bg === 'none') continue;
      bg.replace(/url\(\s*(['"]?)(.*?)\1\s*\)/g, function (_, q, url) { urls.add(url); return ''; });
    }
    return Promise.all(Array.from(urls).map(function (url) {
      var img = new Image();
      img.src = url;
      return img.decode().catch(function () { throw new Error('image failed to load: ' + url); });
    }));
  }
  function ready() {
    return whenLoaded()
      .then(function () { return document.fonts ? document.fonts.ready : null; })
      .then(imagesReady)
      .then(cssImagesReady)
      .then(mediaReady)
      .then(function () { return Promise.all(pending); })
      .then(function () { return document.fonts ? document.fonts.ready : null; })
      // Animations that exist once the page is ready started at virtual time 0.
      .then(function () { registerAnimations(); });
  }

  // What the screenshot path waits for before it captures: two real animation frames, and more
  // (a bounded number) while a seeked video's picture is not presented yet.
  var MAX_PRESENT_WAIT_FRAMES = 30;
  function afterPaint() {
    return new Promise(function (resolve) {
      var frames = 0;
      function tick() {
        frames += 1;
        if (frames >= 2 && (unpresented.size === 0 || frames >= MAX_PRESENT_WAIT_FRAMES)) resolve();
        else real.requestAnimationFrame(tick);
      }
      real.requestAnimationFrame(tick);
    });
  }
  function videosPresented() { return unpresented.size === 0; }

  window.__vidkit = Object.freeze({
    getVariables: function () { return JSON.parse(JSON.stringify(variables)); },
    /** Holds the first frame until `promise` settles, e.g. data a script fetches. */
    waitFor: function (promise) { pending.push(Promise.resolve(promise)); },
    get fps() { return fps; },
    get frame() { return frame; },
    get time() { return nowMs / 1000; },
    __seekFrame: seekFrame,
    __ready: ready,
    __afterPaint: afterPaint,
    __videosPresented: videosPresented,
    __mediaTimeline: mediaTimeline,
  });
})();
