// --- seeking --------------------------------------------------------------------------------------
// Moving forward steps through every frame in between (timers, animation frames, timelines, clips
// and animations: stepThrough), so state a page builds up frame by frame, and the start of every
// animation or tween a callback creates, are the same in every chunk. The renderer only ever moves
// forward. At the frame itself everything else follows: the adapters, media, iframes, then the
// loads all that called for (loads.ts).
// Returns whether anything on the page may look different from the previous frame: a callback
// ran, an animation or timeline moved, the DOM changed, something arrived or a canvas was painted
// (changes.ts). When not, the renderer repeats the previous image. While fonts or images load,
// videos seek or the page asked to wait (hf-seek's waitUntil), the answer comes as a promise that
// settles once all of that has.
import type { SeekOutcome, VidkitRuntime } from '../protocol';
import { syncAdapters, setAdapterTime } from './adapters';
import { syncAnimatedImages } from './animated-images';
import { registerAnimations, syncAnimations } from './animations';
import { installAfterFonts, pageScriptsRan } from './after-fonts';
import { arrivedSinceLastFrame, hasUncontrolledMotion, mutations } from './changes';
import { real, runAnimationFrame, runTimers } from './clock';
import { framesReady, seekFrames } from './frames';
import { mountLateHosts } from './late-hosts';
import { cssImageUrls, decodeCssImages, decodeImages, pendingLoads, stepMayLoad, takeFailedLoads, undecodedImages } from './loads';
import { mediaReady, mediaTimeline, registerMedia, syncVideos, unpresented } from './media';
import { layoutRootClips } from './page-layout';
import { pageReach } from './reach';
import { fps, state } from './state';
import { timelinesReady, syncTimelines } from './timelines';
import { clipList, compositionDuration, forgetTiming, showClips } from './timing';
import { currentVariables } from './variables';
import { stateById, videoReply } from './video-frames';
import { pictureSceneClones, syncVideoFrames } from './video-overlay';
import { videoPictures } from './video-pictures';

type Seeked = SeekOutcome | Promise<SeekOutcome>;

export function seekFrame(target: number): Seeked {
  if (target < state.frame) throw new Error('vidkit: cannot seek backwards from frame ' + state.frame + ' to ' + target);
  return stepTo(target, state.frame < target, false);
}
// What a callback of the clock started (animations, media) began at the virtual time it ran at.
function noteStarted(): void {
  registerAnimations();
  registerMedia();
}
// DOM changes of frames stepped through that waited for nothing: the frame drawn looks at their
// CSS images (an inline style may have set one).
let steppedRecords: MutationRecord[] = [];
// The loads the DOM changes since the last call may have asked for (loads.ts), or null: a frame
// waits for them before its animation callbacks (what its timers asked for) and after them.
function loadsAsked(): Promise<unknown> | null {
  let records = mutations.takeRecords();
  if (records.length > 0) state.changed = true;
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
function stepTo(target: number, stepped: boolean, timersRun: boolean): Seeked {
  while (state.frame < target || timersRun) {
    if (!timersRun) {
      const t = ((state.frame + 1) * 1000) / fps;
      runTimers(t, noteStarted);
      state.nowMs = t;
      state.frame += 1;
      setAdapterTime(t / 1000);
      const asked = loadsAsked();
      if (asked) return asked.then(function () { return stepTo(target, stepped, true); });
    }
    timersRun = false;
    // The target frame's callbacks run once its video pictures are in (showFrame).
    if (state.frame === target) break;
    stepThrough();
    const loading = loadsAsked();
    if (loading) return loading.then(function () { return stepTo(target, stepped, false); });
  }
  // The frame's video pictures are in before its animation callbacks draw with them.
  const pictures = videoPictures();
  if (pictures) return pictures.then(function () { return showFrame(target, stepped); });
  return showFrame(target, stepped);
}
// A frame stepped through moves what a drawn frame moves that can start something of its own:
// animations, callbacks, timelines (whose callbacks may start tweens on GSAP's own clock or mount
// a scene), clips (one shown starts its CSS animations) and the transitions all those set off. So
// a range that starts by stepping reaches its first frame in the state a range that drew every
// frame before it is in. Media, adapters and frames are only placed at a drawn frame: what they
// show depends on its time alone.
function stepThrough(): void {
  syncAnimations();
  forgetTiming();
  syncTimelines();
  runAnimationFrame(state.nowMs, noteStarted);
  forgetTiming();
  showClips(state.frame);
  syncAnimations();
}
function showFrame(target: number, stepped: boolean): Seeked {
  // As a browser's frame does, the animations advance to the frame's time before its callbacks and
  // timelines change styles: a transition they retarget then starts from where the running one is
  // now, not from where it was a frame ago (a timeline moving an element with `transition` set).
  syncAnimations();
  // The timelines move to the frame's time before its animation callbacks run, as a frame is drawn
  // after a seek: a callback reading a timeline's state draws this frame's, and a tween a
  // timeline's callback starts on GSAP's own clock has moved one frame when first drawn.
  forgetTiming();
  syncTimelines();
  if (stepped) runAnimationFrame(state.nowMs, noteStarted);
  forgetTiming();
  registerMedia();
  const waits: Promise<unknown>[] = [];
  syncAdapters(waits);
  // Clips first: one that leaves display: none starts its CSS animations anew, to be driven now.
  showClips(state.frame);
  syncAnimations();
  syncVideos(waits);
  syncAnimatedImages(waits);
  syncVideoFrames();
  seekFrames(target, waits);
  compositeTransition(target, waits);
  const records = steppedRecords.concat(mutations.takeRecords());
  steppedRecords = [];
  if (records.length > 0 || hasUncontrolledMotion() || arrivedSinceLastFrame()) state.changed = true;
  const loading = pendingLoads(records);
  if (loading) state.changed = true;
  const result = state.changed;
  state.changed = false;
  if (waits.length === 0 && !loading) return result;
  const others = Promise.all(waits);
  return Promise.all([others, loading])
    // What the page did while it waited (hf-seek's waitUntil) may call for loads of its own.
    .then(function () { return waits.length > 0 ? pendingLoads(mutations.takeRecords()) : null; })
    .then(function () { return others; })
    // 'video': a video's new picture must also reach the compositor before the capture;
    // 'composite': a shader transition's scenes must be painted before it is drawn, its clones of
    // them showing this frame's video pictures, which are all painted by now.
    .then(function (values): SeekOutcome | Promise<SeekOutcome> {
      // An animation the page started while it waited holds still until the next frame drives it.
      registerAnimations();
      if (values.indexOf('composite') >= 0) return pictureSceneClones().then(function (): SeekOutcome { return 'composite'; });
      return values.indexOf('video') >= 0 ? 'video' : true;
    });
}

// HyperFrames' shader transitions wrap the protocol's seek (window.__hf.seek) once they have set
// up their compositor. Each frame the renderer calls that wrapper with the frame's time (the
// protocol's own seek inside does nothing: the page is there already); during a transition it
// flags a composite, and its prepare step clones the two scenes into canvases for the browser to
// paint. The renderer then draws once and calls `__hf_page_composite_resolve`, which composites
// them with the transition's shader into a canvas over the page (capture-session.ts).
function compositeTransition(target: number, waits: Promise<unknown>[]): void {
  const hf = window.__hf;
  if (!hf || typeof hf.seek !== 'function' || hf.seek === state.protocolSeek) return;
  state.wrappedSeeking = true;
  try {
    hf.seek(target / fps);
  } finally {
    state.wrappedSeeking = false;
  }
  if (window.__hf_page_composite_pending !== true || typeof window.__hf_page_composite_prepare !== 'function') return;
  waits.push(Promise.resolve(window.__hf_page_composite_prepare()).then(function (ok) { return ok ? 'composite' : true; }));
}

// --- readiness --------------------------------------------------------------------------------------
const pending: Promise<unknown>[] = [];
function whenLoaded(): Promise<void> {
  if (document.readyState === 'complete') return Promise.resolve();
  return new Promise(function (resolve) { window.addEventListener('load', function () { resolve(); }, { once: true }); });
}
// Images already in the page; CSS background images, which the load event does not wait for when
// their elements are styled later.
function imagesReady(): Promise<unknown> { return decodeImages(undecodedImages()); }
function cssImagesReady(): Promise<unknown> { return decodeCssImages(cssImageUrls(document.querySelectorAll('*'), new Set())); }
// three.js models and textures loading through its default manager.
function threeLoaded(): Promise<void> | null {
  const manager = window.THREE && window.THREE.DefaultLoadingManager;
  if (!manager || typeof manager.itemsTotal !== 'number' || manager.itemsTotal <= manager.itemsLoaded) return null;
  return new Promise(function (resolve) {
    const onLoad = manager.onLoad;
    manager.onLoad = function (this: unknown) {
      manager.onLoad = onLoad;
      if (typeof onLoad === 'function') onLoad.apply(this, arguments);
      resolve();
    };
  });
}
function ready(): Promise<void> {
  return whenLoaded()
    .then(pageScriptsRan)
    .then(function () { return mountLateHosts(); })
    .then(layoutRootClips)
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
    .then(function () { mutations.takeRecords(); state.changed = true; });
}

// What the screenshot path waits for before it captures: two real animation frames, and more
// (a bounded number) while a seeked video's picture is not presented yet.
const MAX_PRESENT_WAIT_FRAMES = 30;
function afterPaint(): Promise<void> {
  return new Promise(function (resolve) {
    let frames = 0;
    function tick(): void {
      frames += 1;
      if (frames >= 2 && (unpresented.size === 0 || frames >= MAX_PRESENT_WAIT_FRAMES)) resolve();
      else real.requestAnimationFrame(tick);
    }
    real.requestAnimationFrame(tick);
  });
}
function videosPresented(): boolean { return unpresented.size === 0; }

// --- HyperFrames' engine protocol, `window.__hf = { duration, seek }` ------------------------------
// As in HyperFrames, every page has a `window.__hf` before its scripts run, and once the document
// is parsed the renderer's protocol takes over whichever object `window.__hf` then is: `duration`
// reads the composition's length and `seek(seconds)` moves the clock to that frame (forward only,
// as the renderer does), replacing a `duration` or `seek` the page set itself; its other
// properties stay.
function bindProtocol(): void {
  const hf = window.__hf && typeof window.__hf === 'object' ? window.__hf : {};
  Object.defineProperty(hf, 'duration', {
    configurable: true,
    enumerable: true,
    get: function () { forgetTiming(); return compositionDuration(); },
  });
  state.protocolSeek = function (seconds) {
    if (state.wrappedSeeking) return undefined;
    return seekFrame(Math.round((Number(seconds) || 0) * fps));
  };
  hf.seek = state.protocolSeek;
  window.__hf = hf;
}

/**
 * Runs the page's scripts once it is parsed and its fonts are in (after-fonts.ts), then binds
 * `window.__hf`'s `duration` and `seek` (installTimelines gives every page one first).
 */
export function installHfSeek(): void {
  installAfterFonts(bindProtocol);
}

/** Installs `window.__vidkit`, the protocol (../protocol.ts) the renderer and the player drive. */
export function installSeek(): void {
  const runtime: VidkitRuntime = {
    getVariables: currentVariables,
    waitFor: function (promise) { pending.push(Promise.resolve(promise)); },
    get fps() { return fps; },
    get frame() { return state.frame; },
    get time() { return state.nowMs / 1000; },
    __seekFrame: seekFrame,
    __ready: ready,
    __afterPaint: afterPaint,
    __videosPresented: videosPresented,
    __videoReply: videoReply,
    __videoInput: function (id) { const s = stateById(id); return s ? s.input : null; },
    __mediaTimeline: mediaTimeline,
    __failedLoads: takeFailedLoads,
    __duration: function () { forgetTiming(); return compositionDuration(); },
    __clips: clipList,
    __reach: pageReach,
  };
  window.__vidkit = Object.freeze(runtime);
}
