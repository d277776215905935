// --- a GSAP timeline settled where HyperFrames settles it --------------------------------------
// HyperFrames re-renders its timeline on every frame it captures: once the timeline is at time t,
// it is moved 1 ms back and forward to t again, without events, while everything that starts after
// t is held still. Where timelines share targets this is visible. The backward pass renders the
// members of a running stagger that have not started yet, so they show their from-state, where a
// plain seek leaves them as another timeline set them. Doing the same keeps such pages as the
// peer draws them. The state GSAP keeps for zero-length tweens and nested timelines is put back
// afterwards, so that the next frame's seek crosses them as it would have.
import { Timeline } from './timing';

const NUDGE_SECONDS = 0.001;
const START_EPSILON = 1e-6;
const TINY = 2e-8;
const CALLBACKS = ['onStart', 'onUpdate', 'onComplete', 'onReverseComplete', 'onRepeat'];

type Gsap = Timeline;

function isGsapTimeline(tl: Gsap): boolean {
  return !!tl && typeof tl.totalTime === 'function' && typeof tl.getChildren === 'function';
}

// Tweens and timelines, at any depth under the timelines open at `time`, that start after it.
function startingLater(children: Gsap[], time: number, out: Gsap[]): Gsap[] {
  children.forEach(function (child) {
    if (child.startTime() > time + START_EPSILON) out.push(child);
    else if (typeof child.getChildren === 'function' && child.endTime() >= time) startingLater(child.getChildren(false, true, true), child.time(), out);
  });
  return out;
}

// A tween that started less than `window` seconds before `time` (its parent's time) shows its
// start values again before the forward pass: what a from-tween begins with is not lost to the
// nudge.
function reapplyStarts(children: Gsap[], time: number, window: number): void {
  children.forEach(function (child) {
    if (typeof child.render !== 'function' || typeof child.timeScale !== 'function' || child.timeScale() <= 0 || child.paused()) return;
    const local = (time - child.startTime()) * child.timeScale();
    if (Math.abs(local) < 1e-9 && reapplyAtStart(child)) return;
    if (local <= 0) return;
    if (local < window * child.timeScale() && child._startAt) child._startAt.render(TINY, true, true);
    const inner = typeof child.getChildren === 'function' ? child : child.timeline;
    if (inner && typeof inner.getChildren === 'function' && local <= child.totalDuration()) reapplyStarts(inner.getChildren(false, true, true), local, window * child.timeScale());
  });
}
function reapplyAtStart(tween: Gsap): boolean {
  const keyframes = !!(tween.vars && tween.vars.keyframes);
  if (keyframes) {
    tween.render(TINY, true);
    tween.render(-TINY, true);
  }
  if (tween._startAt) tween._startAt.render(TINY, true, true);
  return keyframes || !!tween._startAt;
}

// A zero-length tween with a callback makes HyperFrames skip the re-render (its callbacks would
// otherwise see the timeline cross it again).
export function hasInstantCallback(tl: Gsap): boolean {
  if (!isGsapTimeline(tl)) return false;
  return tl.getChildren(true, true, true).some(function (child: Gsap) {
    const vars = child && child.vars;
    if (!vars || !CALLBACKS.some(function (name) { return typeof vars[name] === 'function'; })) return false;
    const length = typeof child.totalDuration === 'function' ? Number(child.totalDuration()) : Number(child.duration());
    return isFinite(length) && length <= START_EPSILON;
  });
}

/** Re-renders `tl`, just seeked to `seconds` (within its length), as HyperFrames does each frame. */
export function settleTimeline(tl: Gsap, seconds: number): void {
  if (!isGsapTimeline(tl) || !(seconds >= NUDGE_SECONDS)) return;
  // Brings GSAP's cached lengths up to date before they are saved and put back below.
  tl.totalDuration();
  const children: Gsap[] = tl.getChildren(false, true, true);
  const kept = tl.getChildren(true, true, true)
    .filter(function (child: Gsap) { return typeof child.getChildren === 'function' || Number(child.totalDuration()) === 0; })
    .map(function (child: Gsap) { return [child, child.ratio, child._zTime, child._act]; });
  const held = startingLater(children, seconds, []).map(function (child) { return [child, child._ts]; });
  const ancestors: Gsap[] = [];
  held.forEach(function (entry) {
    for (let parent = entry[0].parent; parent && ancestors.indexOf(parent) < 0; parent = parent.parent) ancestors.push(parent);
  });
  const lengths = ancestors.map(function (a) { return [a, a._dur, a._tDur, a._end, a._dirty]; });
  held.forEach(function (entry) { entry[0]._ts = 0; });
  try {
    tl.totalTime(seconds - NUDGE_SECONDS, true);
    reapplyStarts(children, seconds, NUDGE_SECONDS);
    tl.totalTime(seconds, true);
  } finally {
    held.forEach(function (entry) { entry[0]._ts = entry[1]; });
    lengths.forEach(function (entry) { entry[0]._dur = entry[1]; entry[0]._tDur = entry[2]; entry[0]._end = entry[3]; entry[0]._dirty = entry[4]; });
  }
  kept.forEach(function (entry: Gsap[]) { entry[0].ratio = entry[1]; entry[0]._zTime = entry[2]; entry[0]._act = entry[3]; });
}
