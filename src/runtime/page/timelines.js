// --- timelines registered in window.__timelines -------------------------------------------------
// HyperFrames' rules (docs/guide/hyperframes.md): the root composition's timeline is the
// one under its data-composition-id, or the only one registered; a timeline under the id of a
// nested composition plays in that clip's own time (from its start, after data-playback-start, at
// data-playback-rate); an array counts as one timeline for the root, or several under tl-0,
// tl-1, ... Any other timeline follows the composition's time.
if (!window.__timelines) window.__timelines = {};

function isTimeline(tl) {
  return !!tl && typeof tl === 'object' && (typeof tl.totalTime === 'function' || typeof tl.seek === 'function');
}
// A timeline's own length in seconds (one pass, repeats aside), or null.
function timelineLength(tl) {
  try {
    var d = typeof tl.duration === 'function' ? Number(tl.duration()) : NaN;
    return isFinite(d) && d > 0 ? d : null;
  } catch (err) {
    return null;
  }
}
function timelineRegistry() {
  var raw = window.__timelines || {};
  var root = compositionRoot();
  var rootId = root ? root.getAttribute('data-composition-id') : 'root';
  var named = {};
  if (Array.isArray(raw)) {
    if (raw.length === 1 && isTimeline(raw[0])) named[rootId] = raw[0];
    else if (raw.length > 1) raw.forEach(function (tl, i) { if (isTimeline(tl)) named['tl-' + i] = tl; });
  } else {
    for (var key in raw) if (isTimeline(raw[key])) named[key] = raw[key];
  }
  var hosts = {};
  var compositions = document.querySelectorAll('[data-composition-id]');
  for (var i = 0; i < compositions.length; i++) {
    if (compositions[i] !== root) hosts[compositions[i].getAttribute('data-composition-id')] = compositions[i];
  }
  var keys = Object.keys(named);
  // The only timeline registered, under a key that names no nested composition, is the root's.
  var sole = keys.length === 1 && !hosts[keys[0]] ? named[keys[0]] : null;
  var rootTimeline = named[rootId] || sole;
  var children = [];
  var others = [];
  keys.forEach(function (key) {
    var tl = named[key];
    if (tl === rootTimeline) return;
    if (hosts[key]) children.push({ tl: tl, host: hosts[key] });
    else others.push(tl);
  });
  // Seconds into a nested composition's timeline at composition time `seconds`.
  function childTime(child, t, seconds) {
    var local = playbackStartOf(child.host) + Math.max(0, seconds - t.startOf(child.host)) * playbackRateOf(child.host);
    var length = t.durationOf(child.host);
    return length === null ? local : Math.min(local, playbackStartOf(child.host) + length * playbackRateOf(child.host));
  }
  // Where the last timeline ends on the composition's timeline, 0 when there is none. A nested
  // timeline counts whole, however short its clip (HyperFrames places it in the root timeline).
  function end(t) {
    var latest = rootTimeline ? timelineLength(rootTimeline) || 0 : 0;
    children.forEach(function (child) {
      var length = timelineLength(child.tl);
      if (length === null) return;
      var played = Math.max(0, length - playbackStartOf(child.host)) / playbackRateOf(child.host);
      latest = Math.max(latest, t.startOf(child.host) + played);
    });
    others.forEach(function (tl) { latest = Math.max(latest, timelineLength(tl) || 0); });
    return latest;
  }
  return { named: named, root: rootTimeline, children: children, others: others, childTime: childTime, end: end };
}

// A finished timeline (time past its total duration, as at the previous frame) is left alone.
var timelineTime = new WeakMap();
function seekTimeline(tl, seconds) {
  var total = typeof tl.totalDuration === 'function' ? tl.totalDuration() : Infinity;
  var applied = Math.min(seconds, total >= 0 ? total : Infinity);
  if (timelineTime.get(tl) === applied) return;
  var first = !timelineTime.has(tl);
  timelineTime.set(tl, applied);
  // GSAP renders nothing when the playhead does not move, so a timeline first shown at the time it
  // already reads (0, at frame 0) would skip what it sets there (a set() at 0 hiding a scene): as
  // HyperFrames does, it is moved a millisecond away first, without events.
  if (first && typeof tl.totalTime === 'function' && Number(tl.totalTime()) === seconds) tl.totalTime(seconds >= 0.001 ? seconds - 0.001 : seconds + 0.001, true);
  if (typeof tl.totalTime === 'function') tl.totalTime(seconds, false);
  else tl.seek(seconds, false);
  changed = true;
}
function syncTimelines() {
  var seconds = nowMs / 1000;
  var t = timing();
  var registry = t.timelines;
  if (registry.root) seekTimeline(registry.root, seconds);
  registry.children.forEach(function (child) { seekTimeline(child.tl, registry.childTime(child, t, seconds)); });
  registry.others.forEach(function (tl) { seekTimeline(tl, seconds); });
}

// Until its timeline is registered, a composition may still be setting up (a script that fetches
// data first): readiness waits, at most this long, for the timeline of each composition, unless
// it is marked data-no-timeline or the page loads no GSAP.
var TIMELINE_WAIT_MS = 3000;
function missingTimelines() {
  if (!window.gsap) return [];
  var registry = timelineRegistry();
  var root = compositionRoot();
  var missing = [];
  var all = document.querySelectorAll('[data-composition-id]');
  for (var i = 0; i < all.length; i++) {
    var el = all[i];
    if (el.hasAttribute('data-no-timeline')) continue;
    var id = el.getAttribute('data-composition-id');
    if (el === root ? !registry.root : !registry.named[id]) missing.push(id);
  }
  return missing;
}
function timelinesReady() {
  var deadline = real.Date.now() + TIMELINE_WAIT_MS;
  return new Promise(function (resolve) {
    (function poll() {
      if (missingTimelines().length === 0 || real.Date.now() >= deadline) resolve();
      else real.setTimeout(poll, 50);
    })();
  });
}

// --- HyperFrames' engine protocol, `window.__hf = { duration, seek }` ------------------------------
// As in HyperFrames, every page has a `window.__hf` before its scripts run, and once the document
// is parsed the renderer's protocol takes over whichever object `window.__hf` then is: `duration`
// reads the composition's length and `seek(seconds)` moves the clock to that frame (forward only,
// as the renderer does), replacing a `duration` or `seek` the page set itself; its other
// properties stay.
window.__hf = {};
// HyperFrames' renderer tells its own libraries, before their scripts run, that the page runs on
// virtual time and composites shader transitions itself: @hyperframes/shader-transitions then
// schedules its scenes on the timeline and draws each transition frame from the renderer's seek
// (seek.js) instead of capturing scenes ahead of playback behind a loading overlay.
window.__HF_VIRTUAL_TIME__ = { originalSetTimeout: real.setTimeout };
window.__HF_PAGE_SIDE_COMPOSITING__ = true;
var protocolSeek;
// Set while the renderer calls a seek a library wrapped around the protocol's own (seek.js).
var wrappedSeeking = false;
function bindProtocol() {
  var hf = window.__hf && typeof window.__hf === 'object' ? window.__hf : {};
  Object.defineProperty(hf, 'duration', {
    configurable: true,
    enumerable: true,
    get: function () { forgetTiming(); return compositionDuration(); },
  });
  protocolSeek = function (seconds) {
    if (wrappedSeeking) return undefined;
    return seekFrame(Math.round((Number(seconds) || 0) * fps));
  };
  hf.seek = protocolSeek;
  window.__hf = hf;
}
onParsed(bindProtocol);
