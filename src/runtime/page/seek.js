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
  var stepped = frame < target;
  while (frame < target) {
    var t = ((frame + 1) * 1000) / fps;
    runTimers(t);
    nowMs = t;
    frame += 1;
    setAdapterTime(t / 1000);
    if (frame < target) runAnimationFrame(t);
  }
  // The frame's video pictures are in before its animation callbacks draw with them.
  var pictures = videoPictures();
  if (pictures) return pictures.then(function () { return seekDone(target, stepped); });
  return seekDone(target, stepped);
}
function seekDone(target, stepped) {
  if (stepped) runAnimationFrame(nowMs);
  forgetTiming();
  registerMedia();
  var waits = [];
  syncTimelines();
  syncAdapters(waits);
  // Clips first: one that leaves display: none starts its CSS animations anew, to be driven now.
  showClips(frame);
  syncAnimations();
  syncVideos(waits);
  syncVideoFrames();
  seekFrames(target, waits);
  if (mutations.takeRecords().length > 0 || hasUncontrolledMotion()) changed = true;
  var result = changed;
  changed = false;
  if (waits.length === 0) return result;
  // 'video': a video's new picture must also reach the compositor before the capture.
  return Promise.all(waits).then(function (values) { return values.indexOf('video') >= 0 ? 'video' : true; });
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
  __videoReply: videoReply,
  __videoInput: function (id) { var state = stateById(id); return state ? state.input : null; },
  __mediaTimeline: mediaTimeline,
  /** The composition's length in seconds (declared, or inferred as timing.js says); 0 when unknown. */
  __duration: function () { forgetTiming(); return compositionDuration(); },
});
