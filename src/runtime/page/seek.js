// --- seeking --------------------------------------------------------------------------------------
// Moving forward steps through every frame in between (timers, then animation frames), so state a
// page builds up frame by frame, and the start of every animation a callback creates, are the
// same in every chunk. The renderer only ever moves forward. At the frame itself everything else
// follows: timelines, the adapters, clips, animations, media, iframes, then the loads all that
// called for (loads.js).
// Returns whether anything on the page may look different from the previous frame: a callback
// ran, an animation or timeline moved, the DOM changed, something arrived or a canvas was painted
// (changes.js). When not, the renderer repeats the previous image. While fonts or images load,
// videos seek or the page asked to wait (hf-seek's waitUntil), the answer comes as a promise that
// settles once all of that has.
function seekFrame(target) {
  if (target < frame) throw new Error('vidkit: cannot seek backwards from frame ' + frame + ' to ' + target);
  return stepTo(target, frame < target, false);
}
// DOM changes of frames stepped through that waited for nothing: the frame drawn looks at their
// CSS images (an inline style may have set one).
var steppedRecords = [];
// The loads the DOM changes since the last call may have asked for (loads.js), or null: a frame
// waits for them before its animation callbacks (what its timers asked for) and after them.
function loadsAsked() {
  var records = mutations.takeRecords();
  if (records.length > 0) changed = true;
  if (!stepMayLoad(records)) {
    records.forEach(function (record) { steppedRecords.push(record); });
    return null;
  }
  records = steppedRecords.concat(records);
  steppedRecords = [];
  return pendingLoads(records);
}
// Each frame: its timers, the loads they asked for, then (once the frame's video pictures are in,
// when it is the one drawn) its animation callbacks and the loads those asked for. The same order
// whether a frame is drawn or stepped through, with nothing else between the timers and the
// callbacks, so an image a timer loads is complete in the same frame for every worker.
// `timersRun`: this frame's timers have run and their loads arrived.
function stepTo(target, stepped, timersRun) {
  while (frame < target || timersRun) {
    if (!timersRun) {
      var t = ((frame + 1) * 1000) / fps;
      runTimers(t);
      nowMs = t;
      frame += 1;
      setAdapterTime(t / 1000);
      var asked = loadsAsked();
      if (asked) return asked.then(function () { return stepTo(target, stepped, true); });
    }
    timersRun = false;
    // The target frame's callbacks run once its video pictures are in (showFrame).
    if (frame === target) break;
    runAnimationFrame(nowMs);
    var loading = loadsAsked();
    if (loading) return loading.then(function () { return stepTo(target, stepped, false); });
  }
  // The frame's video pictures are in before its animation callbacks draw with them.
  var pictures = videoPictures();
  if (pictures) return pictures.then(function () { return showFrame(target, stepped); });
  return showFrame(target, stepped);
}
function showFrame(target, stepped) {
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
  compositeTransition(target, waits);
  var records = steppedRecords.concat(mutations.takeRecords());
  steppedRecords = [];
  if (records.length > 0 || hasUncontrolledMotion() || arrivedSinceLastFrame()) changed = true;
  var loading = pendingLoads(records);
  if (loading) changed = true;
  var result = changed;
  changed = false;
  if (waits.length === 0 && !loading) return result;
  var others = Promise.all(waits);
  return Promise.all([others, loading])
    // What the page did while it waited (hf-seek's waitUntil) may call for loads of its own.
    .then(function () { return waits.length > 0 ? pendingLoads(mutations.takeRecords()) : null; })
    .then(function () { return others; })
    // 'video': a video's new picture must also reach the compositor before the capture;
    // 'composite': a shader transition's scenes must be painted before it is drawn.
    .then(function (values) {
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

// --- readiness --------------------------------------------------------------------------------------
var pending = [];
function whenLoaded() {
  if (document.readyState === 'complete') return Promise.resolve();
  return new Promise(function (resolve) { window.addEventListener('load', function () { resolve(); }, { once: true }); });
}
// Images already in the page; CSS background images, which the load event does not wait for when
// their elements are styled later.
function imagesReady() { return decodeImages(undecodedImages()); }
function cssImagesReady() { return decodeCssImages(cssImageUrls(document.querySelectorAll('*'), new Set())); }
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
    .then(function () { registerAnimations(); })
    // The document as loaded, whose images were all decoded above: the first frame is drawn anyway.
    .then(function () { mutations.takeRecords(); changed = true; });
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
  /** Images, stylesheets and fonts that failed to load before the first frame ("image <url>"…). */
  /** What failed to load since the last call (loads.js). */
  __failedLoads: takeFailedLoads,
  /** The composition's length in seconds (declared, or inferred as timing.js says); 0 when unknown. */
  __duration: function () { forgetTiming(); return compositionDuration(); },
  /** The clips and nested compositions with their windows (timing.js, clipList). */
  __clips: clipList,
});
