// --- seeking --------------------------------------------------------------------------------------
// Moving forward steps through every frame in between (timers, then animation frames), so state a
// page builds up frame by frame, and the start of every animation a callback creates, are the
// same in every chunk. The renderer only ever moves forward. At the frame itself everything else
// follows: timelines, the adapters, clips, animations, media, iframes.
// Returns whether anything on the page may look different from the previous frame: a callback
// ran, an animation or timeline moved, or the DOM changed. When not, the renderer repeats the
// previous image without asking the browser to draw (a begin-frame screenshot always redraws).
// While videos seek or the page asked to wait (hf-seek's waitUntil), the answer comes as a promise
// that settles once all of that has.
function seekFrame(target) {
  if (target < frame) throw new Error('vidkit: cannot seek backwards from frame ' + frame + ' to ' + target);
  while (frame < target) {
    var t = ((frame + 1) * 1000) / fps;
    runTimers(t);
    nowMs = t;
    frame += 1;
    setAdapterTime(t / 1000);
    runAnimationFrame(t);
  }
  forgetTiming();
  registerMedia();
  var waits = [];
  syncTimelines();
  syncAdapters(waits);
  // Clips first: one that leaves display: none starts its CSS animations anew, to be driven now.
  showClips(frame);
  syncAnimations();
  syncVideos(waits);
  seekFrames(target, waits);
  compositeTransition(target, waits);
  if (mutations.takeRecords().length > 0 || hasUncontrolledMotion()) changed = true;
  var result = changed;
  changed = false;
  if (waits.length === 0) return result;
  // 'video': a video's new picture must also reach the compositor before the capture;
  // 'composite': a shader transition's scenes must be painted before it is drawn.
  return Promise.all(waits).then(function (values) {
    return values.indexOf('composite') >= 0 ? 'composite' : values.indexOf('video') >= 0 ? 'video' : true;
  });
}

// HyperFrames' shader transitions wrap the protocol's seek (window.__hf.seek) once they have set
// up their compositor. Each frame the renderer calls that wrapper with the frame's time (the
// protocol's own seek inside does nothing: the page is there already); during a transition it
// flags a composite, and its prepare step clones the two scenes into canvases for the browser to
// paint. The renderer then draws once and calls `__hf_page_composite_resolve`, which composites
// them with the transition's shader into a canvas over the page (capture-session.ts).
function compositeTransition(target, waits) {
  var hf = window.__hf;
  if (!hf || typeof hf.seek !== 'function' || hf.seek === protocolSeek) return;
  wrappedSeeking = true;
  try {
    hf.seek(target / fps);
  } finally {
    wrappedSeeking = false;
  }
  if (window.__hf_page_composite_pending !== true || typeof window.__hf_page_composite_prepare !== 'function') return;
  waits.push(Promise.resolve(window.__hf_page_composite_prepare()).then(function (ok) { return ok ? 'composite' : true; }));
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
// What failed to load is drawn as the browser draws it (a broken image shows nothing) and named in
// a warning (the renderer reads `__failedLoads`); only --strict fails the render for it.
var failedLoads = [];
function noteFailedLoad(what) {
  if (failedLoads.indexOf(what) < 0) failedLoads.push(what);
}
// A data: URL is named by its start: it may be kilobytes long.
function shortUrl(url) { return /^data:/i.test(url) && url.length > 80 ? url.slice(0, 77) + '...' : url; }
function imagesReady() {
  var imgs = Array.prototype.slice.call(document.images);
  return Promise.all(imgs.map(function (img) {
    if (!img.src) return null;
    return img.decode().catch(function () { noteFailedLoad('image ' + shortUrl(img.currentSrc || img.src)); });
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
    return img.decode().catch(function () { noteFailedLoad('image ' + shortUrl(url)); });
  }));
}
// Stylesheets that did not load tell it by an error event (a 404 still gets an empty sheet).
document.addEventListener('error', function (event) {
  var el = event.target;
  if (el && el.tagName === 'LINK' && /(^|\s)stylesheet(\s|$)/i.test(el.rel || '')) noteFailedLoad('stylesheet ' + el.href);
}, true);
// Web fonts that failed.
function noteFailedStyles() {
  if (document.fonts) document.fonts.forEach(function (face) {
    if (face.status === 'error') noteFailedLoad('font ' + face.family);
  });
}
// three.js models and textures loading through its default manager.
function threeLoaded() {
  var manager = window.THREE && window.THREE.DefaultLoadingManager;
  if (!manager || typeof manager.itemsTotal !== 'number' || manager.itemsTotal <= manager.itemsLoaded) return null;
  return new Promise(function (resolve) {
    var onLoad = manager.onLoad;
    manager.onLoad = function () {
      manager.onLoad = onLoad;
      if (typeof onLoad === 'function') onLoad.apply(this, arguments);
      resolve();
    };
  });
}
function ready() {
  return whenLoaded()
    .then(function () { return document.fonts ? document.fonts.ready : null; })
    .then(imagesReady)
    .then(cssImagesReady)
    .then(mediaReady)
    .then(function () { return Promise.all(pending); })
    .then(timelinesReady)
    .then(threeLoaded)
    .then(framesReady)
    .then(function () { return document.fonts ? document.fonts.ready : null; })
    .then(noteFailedStyles)
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
  getVariables: currentVariables,
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
  /** Images, stylesheets and fonts that failed to load before the first frame ("image <url>"…). */
  __failedLoads: function () { return failedLoads.slice(); },
  /** The composition's length in seconds (declared, or inferred as timing.js says); 0 when unknown. */
  __duration: function () { forgetTiming(); return compositionDuration(); },
  /** The clips and nested compositions with their windows (timing.js, clipList). */
  __clips: clipList,
});
