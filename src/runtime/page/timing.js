// --- HyperFrames timing: the root, clips and their windows on the timeline ---------------------
// A `[data-start]` element is a clip, shown only from its start to its end (docs/guide/hyperframes.md). A start is seconds into its composition, or `id`, `id + s`, `id - s`: the end
// of another clip, plus or minus seconds. The length is `data-duration`, else `data-end` minus
// the start, else what the element itself lasts (a medium's playable length, 3 s for an image, a
// nested composition's timeline, though a host that named no composition stays shown to the end
// of the composition around it). Times here are seconds on the root composition's timeline.

// The root: the composition marked data-root="true", else the first (topmost) one.
function compositionRoot() {
  return document.querySelector('[data-composition-id][data-root="true"]') || document.querySelector('[data-composition-id]');
}

var REFERENCE_ID = /^[A-Za-z0-9_.:-]+$/;
// `data-start` as { ref, offset }: ref null for seconds; null when absent or unreadable.
function parseStart(raw) {
  var text = (raw || '').trim();
  if (text === '') return null;
  var n = Number(text);
  if (isFinite(n)) return { ref: null, offset: n };
  if (REFERENCE_ID.test(text)) return { ref: text, offset: 0 };
  var m = /^(.*?)\s*([+-])\s*(\d*\.?\d+)$/.exec(text);
  if (!m || !REFERENCE_ID.test(m[1])) return null;
  return { ref: m[1], offset: (m[2] === '-' ? -1 : 1) * Number(m[3]) };
}
function positiveNumber(raw) {
  if (raw === null || raw === undefined || String(raw).trim() === '') return null;
  var n = Number(raw);
  return isFinite(n) && n > 0 ? n : null;
}
function finiteNumber(raw) {
  if (raw === null || raw === undefined || String(raw).trim() === '') return null;
  var n = Number(raw);
  return isFinite(n) ? n : null;
}
function isMediaElement(el) { return el.tagName === 'VIDEO' || el.tagName === 'AUDIO'; }
// Seconds into the source where a medium (or a nested composition's timeline) begins playing.
function playbackStartOf(el) {
  var own = finiteNumber(el.getAttribute('data-playback-start'));
  if (own !== null && own >= 0) return own;
  var media = finiteNumber(el.getAttribute('data-media-start'));
  return media !== null && media >= 0 ? media : 0;
}
// data-playback-rate, within HyperFrames' 0.1 to 10; else a medium's own playbackRate.
function playbackRateOf(el) {
  var rate = positiveNumber(el.getAttribute('data-playback-rate'));
  if (rate === null) rate = isMediaElement(el) ? el.playbackRate || 1 : 1;
  return Math.min(10, Math.max(0.1, rate));
}
// The default length of an image clip without one, as in HyperFrames.
var IMAGE_SECONDS = 3;

// One consistent reading of the timeline, remade for each frame (media durations arrive, scripts
// add clips and timelines).
var timingCache = null;
function timing() {
  if (timingCache === null) timingCache = readTiming();
  return timingCache;
}
function forgetTiming() { timingCache = null; }

function readTiming() {
  var root = compositionRoot();
  var starts = new Map();
  var durations = new Map();
  var resolving = new Set();
  var timelines = timelineRegistry();

  function compositionNamed(id) {
    var all = document.querySelectorAll('[data-composition-id]');
    for (var i = 0; i < all.length; i++) if (all[i].getAttribute('data-composition-id') === id) return all[i];
    return null;
  }
  function referenced(id) { return document.getElementById(id) || compositionNamed(id); }
  // The composition an element's own start is counted in.
  function enclosingComposition(el) {
    var from = el.hasAttribute('data-composition-id') ? el.parentElement : el;
    return from ? from.closest('[data-composition-id]') : null;
  }
  // Where time 0 of `el`'s composition falls on the root timeline: its start, less the part of
  // it trimmed away by data-playback-start.
  function compositionOffset(el) {
    var comp = enclosingComposition(el);
    return comp ? startOf(comp) - playbackStartOf(comp) : 0;
  }
  function startOf(el) {
    if (starts.has(el)) return starts.get(el);
    // A reference cycle resolves to the composition's start instead of looping.
    if (resolving.has(el)) return 0;
    resolving.add(el);
    var value = computeStart(el);
    resolving.delete(el);
    starts.set(el, value);
    return value;
  }
  function computeStart(el) {
    var start = parseStart(el.getAttribute('data-start'));
    if (start === null) {
      // A composition without a start of its own begins with the composition around it.
      var parent = el.hasAttribute('data-composition-id') && el.parentElement;
      return parent && parent.hasAttribute('data-composition-id') ? startOf(parent) : 0;
    }
    if (start.ref === null) return compositionOffset(el) + Math.max(0, start.offset);
    var ref = referenced(start.ref);
    if (!ref) return compositionOffset(el);
    return Math.max(0, startOf(ref) + (durationOf(ref) || 0) + start.offset);
  }
  function durationOf(el) {
    if (durations.has(el)) return durations.get(el);
    var value = computeDuration(el);
    durations.set(el, value);
    return value;
  }
  function computeDuration(el) {
    var own = positiveNumber(el.getAttribute('data-duration'));
    if (own !== null) return own;
    var end = finiteNumber(el.getAttribute('data-end'));
    if (end !== null && end > startOf(el)) return end - startOf(el);
    if (isMediaElement(el)) {
      var d = el.duration;
      return isFinite(d) && d > 0 ? Math.max(0, d - playbackStartOf(el)) / playbackRateOf(el) : null;
    }
    if (el.tagName === 'IMG') return IMAGE_SECONDS;
    var id = el.getAttribute('data-composition-id');
    if (id !== null && el !== root) {
      var tl = timelines.named[id];
      var length = tl ? timelineLength(tl) : null;
      return length ? length / playbackRateOf(el) : null;
    }
    return null;
  }
  // A host that named no composition (data-vidkit-unnamed-host, set by the sub-composition
  // transform) and has no length of its own stays until the composition around it ends, its
  // timeline holding its last state, as HyperFrames renders it; a named host lasts its timeline.
  function endOf(el) {
    if (el.hasAttribute('data-vidkit-unnamed-host') && !el.hasAttribute('data-duration') && !el.hasAttribute('data-end')) return Infinity;
    var d = durationOf(el);
    return d === null ? Infinity : startOf(el) + d;
  }
  // Whole frames, so that a clip's first and last frames do not depend on float rounding.
  function frameAt(seconds) {
    var f = seconds * fps;
    var whole = Math.round(f);
    return Math.abs(f - whole) <= 1e-3 ? whole : f;
  }
  function inWindow(el, frameIndex) {
    return frameIndex >= frameAt(startOf(el)) && frameIndex < frameAt(endOf(el));
  }
  // In its window, and so is every clip around it up to the root.
  function shownAt(el, frameIndex) {
    if (!inWindow(el, frameIndex)) return false;
    for (var up = el.parentElement; up && up !== root; up = up.parentElement) {
      if (up.hasAttribute('data-start') && !inWindow(up, frameIndex)) return false;
    }
    return true;
  }
  return { startOf: startOf, durationOf: durationOf, endOf: endOf, shownAt: shownAt, timelines: timelines };
}

// --- clip visibility ------------------------------------------------------------------------------
// A clip outside its window is hidden (visibility), as HyperFrames does; one that sits in the
// page's flow and holds no clips of its own also leaves the layout (display: none), so the clips
// after it move up. Audio has no picture; video is a clip like any other. Everything inside a
// hidden clip is hidden too, even an element that sets `visibility: visible` itself (a button a
// GSAP tween or the page's CSS made visible), which CSS alone would still draw: HyperFrames marks a
// hidden clip and hides all its descendants with an !important rule.
var NOT_SHOWN = { SCRIPT: 1, STYLE: 1, LINK: 1, META: 1, AUDIO: 1, TEMPLATE: 1 };
var CLIP_HIDDEN = 'data-vidkit-clip-hidden';
var clipHidingStyle = null;
function ensureClipHidingStyle() {
  if (clipHidingStyle && clipHidingStyle.isConnected) return;
  clipHidingStyle = document.createElement('style');
  clipHidingStyle.textContent = '[' + CLIP_HIDDEN + '] * { visibility: hidden !important; }';
  (document.head || document.documentElement).appendChild(clipHidingStyle);
}
var inFlow = new WeakMap();
var hiddenDisplay = new WeakMap();
function flowsInPage(el) {
  if (!inFlow.has(el)) {
    var position = getComputedStyle(el).position;
    inFlow.set(el, (position === 'static' || position === 'relative' || position === 'sticky') && el.querySelector('[data-start]') === null);
  }
  return inFlow.get(el);
}
function showClips(frameIndex) {
  var t = timing();
  var clips = document.querySelectorAll('[data-start]');
  for (var i = 0; i < clips.length; i++) {
    var el = clips[i];
    if (NOT_SHOWN[el.tagName] || !el.style) continue;
    var shown = t.shownAt(el, frameIndex);
    var visibility = shown ? 'visible' : 'hidden';
    if (el.style.visibility !== visibility) el.style.visibility = visibility;
    if (shown === el.hasAttribute(CLIP_HIDDEN)) {
      if (!shown) ensureClipHidingStyle();
      el.toggleAttribute(CLIP_HIDDEN, !shown);
    }
    if (!shown && !hiddenDisplay.has(el) && flowsInPage(el)) {
      hiddenDisplay.set(el, { value: el.style.getPropertyValue('display'), priority: el.style.getPropertyPriority('display') });
      el.style.setProperty('display', 'none', 'important');
    } else if (shown && hiddenDisplay.has(el)) {
      var before = hiddenDisplay.get(el);
      hiddenDisplay.delete(el);
      if (before.value) el.style.setProperty('display', before.value, before.priority);
      else el.style.removeProperty('display');
    }
  }
}

// --- the composition's length ----------------------------------------------------------------------
// The root's data-duration; without it, what HyperFrames infers: the timelines' end (the root
// timeline, nested ones at their clips' starts), and no earlier than the last medium or nested
// composition ends; with no timeline, the media and nested compositions alone; with none of those,
// the last clip's end. 0 when nothing tells.
// Timelines this long are endless loops, not lengths (HyperFrames ignores them the same way).
var ENDLESS_TIMELINE_SECONDS = 7200;
function compositionDuration() {
  var root = compositionRoot();
  var declared = root ? positiveNumber(root.getAttribute('data-duration')) : null;
  if (declared !== null) return declared;
  var t = timing();
  var timelineEnd = t.timelines.end(t);
  var floor = 0;
  var clipEnd = 0;
  var clips = document.querySelectorAll('[data-start]');
  for (var i = 0; i < clips.length; i++) {
    var el = clips[i];
    if (el === root) continue;
    // A nested composition counts for what its timeline lasts, not for staying shown to the end.
    var length = el.hasAttribute('data-composition-id') ? t.durationOf(el) : null;
    var end = length !== null ? t.startOf(el) + length : t.endOf(el);
    if (!isFinite(end)) continue;
    clipEnd = Math.max(clipEnd, end);
    if (isMediaElement(el) || el.hasAttribute('data-composition-id')) floor = Math.max(floor, end);
  }
  if (timelineEnd > 0 && timelineEnd < ENDLESS_TIMELINE_SECONDS) return Math.max(timelineEnd, floor);
  if (floor > 0) return floor;
  return clipEnd;
}

// --- the clips as a timeline shows them ------------------------------------------------------------
// Every clip and nested composition of the page with its window on the root timeline, read with
// the same timing as the frames (media lengths and timelines included), for the preview's timeline
// (docs/guide/authoring.md). `composition` is the index in the list of the nested composition the
// element plays in (null: the root); `source` is the composition file it was mounted from
// (data-vidkit-source of the host around it, set by the sub-composition transform; null: the page).
// A clip that lasts to the end of the composition around it has end null.
var NOT_A_CLIP = { SCRIPT: 1, STYLE: 1, LINK: 1, META: 1, TEMPLATE: 1 };
function clipList() {
  forgetTiming();
  var t = timing();
  var root = compositionRoot();
  var els = Array.prototype.filter.call(document.querySelectorAll('[data-start], [data-composition-id]'), function (el) {
    return el !== root && !NOT_A_CLIP[el.tagName];
  });
  var index = new Map();
  els.forEach(function (el, i) { index.set(el, i); });
  return els.map(function (el) {
    var around = el.parentElement ? el.parentElement.closest('[data-composition-id]') : null;
    var from = el.parentElement ? el.parentElement.closest('[data-vidkit-source]') : null;
    var end = t.endOf(el);
    var media = isMediaElement(el);
    return {
      tag: el.tagName.toLowerCase(),
      id: el.id || null,
      composition: around && around !== root && index.has(around) ? index.get(around) : null,
      compositionId: el.getAttribute('data-composition-id'),
      source: from ? from.getAttribute('data-vidkit-source') : null,
      start: t.startOf(el),
      end: isFinite(end) ? end : null,
      track: finiteNumber(el.getAttribute('data-track-index')),
      src: media || el.tagName === 'IMG' ? mediaSource(el) : null,
      playbackStart: media || el.hasAttribute('data-composition-id') ? playbackStartOf(el) : 0,
      playbackRate: media || el.hasAttribute('data-composition-id') ? playbackRateOf(el) : 1,
      sourceDuration: media && isFinite(el.duration) ? el.duration : null,
    };
  });
}
