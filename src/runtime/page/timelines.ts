// --- the registered timelines, driven ----------------------------------------------------------
// Each frame every timeline registered in window.__timelines is moved to its time: which timeline
// is whose, and where it sits on the composition's timeline, is read with the clips' windows
// (timing.ts). Readiness waits for the timelines a page is still setting up, and the page gets
// the globals HyperFrames' libraries look for.
import { fireEarliestTimerEarly, real } from './clock';
import { state } from './state';
import { hasInstantCallback, settleTimeline } from './timeline-settle';
import { Timeline, compositionRoot, timelineRegistry, timing } from './timing';

// A finished timeline (time past its total duration, as at the previous frame) is left alone.
export const timelineTime = new WeakMap<Timeline, number>();
// Returns the time the timeline now stands at (bounded by its end), or null when it did not move.
function seekTimeline(tl: Timeline, seconds: number): number | null {
  const total = typeof tl.totalDuration === 'function' ? tl.totalDuration() : Infinity;
  const applied = Math.min(seconds, total >= 0 ? total : Infinity);
  if (timelineTime.get(tl) === applied) return null;
  const first = !timelineTime.has(tl);
  timelineTime.set(tl, applied);
  // GSAP renders nothing when the playhead does not move, so a timeline first shown at the time it
  // already reads (0, at frame 0) would skip what it sets there (a set() at 0 hiding a scene): as
  // HyperFrames does, it is moved a millisecond away first, without events.
  if (first && typeof tl.totalTime === 'function' && Number(tl.totalTime()) === seconds) tl.totalTime(seconds >= 0.001 ? seconds - 0.001 : seconds + 0.001, true);
  if (typeof tl.totalTime === 'function') tl.totalTime(seconds, false);
  else tl.seek(seconds, false);
  state.changed = true;
  return applied;
}
export function syncTimelines(): void {
  const seconds = state.nowMs / 1000;
  const t = timing();
  const registry = t.timelines;
  // HyperFrames nests the compositions' timelines in the root's and re-renders that each frame
  // (timeline-settle.ts): a timeline is settled where it moved, a composition's once its clip began.
  // Whether any holds a zero-length callback (no settling then) is read only when one moved.
  let settles: boolean | null = null;
  function settle(tl: Timeline, at: number): void {
    if (settles === null) settles = !(registry.root && hasInstantCallback(registry.root)) && !registry.children.some(function (child) { return hasInstantCallback(child.tl); });
    if (settles) settleTimeline(tl, at);
  }
  if (registry.root) {
    const at = seekTimeline(registry.root, seconds);
    if (at !== null) settle(registry.root, at);
  }
  registry.children.forEach(function (child) {
    const at = seekTimeline(child.tl, registry.childTime(child, t, seconds));
    if (at !== null && seconds >= t.startOf(child.host)) settle(child.tl, at);
  });
  registry.others.forEach(function (tl) { seekTimeline(tl, seconds); });
}

// Until its timeline is registered, a composition may still be setting up (a script that fetches
// data first, or registers it from a timer): readiness waits, at most this long, for the timeline
// of each composition, unless it is marked data-no-timeline or the page loads no GSAP.
// HyperFrames waits so on the wall clock, and the page's timers run meanwhile: a timeline a
// `setTimeout(…, 400)` registers is there on its first frame. The virtual clock stays at 0 until
// the first frame, so while a timeline is missing the page's timers due within the wait fire
// early, earliest first, each once the page has settled from the one before.
const TIMELINE_WAIT_MS = 3000;
function missingTimelines(): string[] {
  if (!window.gsap) return [];
  const registry = timelineRegistry();
  const root = compositionRoot();
  const missing: string[] = [];
  const all = document.querySelectorAll('[data-composition-id]');
  for (let i = 0; i < all.length; i++) {
    const el = all[i];
    if (el.hasAttribute('data-no-timeline')) continue;
    const id = el.getAttribute('data-composition-id') as string;
    if (el === root ? !registry.root : !registry.named[id]) missing.push(id);
  }
  return missing;
}
export function timelinesReady(): Promise<void> {
  const deadline = real.Date.now() + TIMELINE_WAIT_MS;
  return new Promise(function (resolve) {
    (function poll() {
      if (missingTimelines().length === 0 || real.Date.now() >= deadline) resolve();
      else real.setTimeout(poll, fireEarliestTimerEarly(TIMELINE_WAIT_MS) ? 0 : 50);
    })();
  });
}

export function installTimelines(): void {
  if (!window.__timelines) window.__timelines = {};
  window.__hf = {};
  // HyperFrames' renderer tells its own libraries, before their scripts run, that the page runs on
  // virtual time and composites shader transitions itself: @hyperframes/shader-transitions then
  // schedules its scenes on the timeline and draws each transition frame from the renderer's seek
  // (seek.ts) instead of capturing scenes ahead of playback behind a loading overlay.
  window.__HF_VIRTUAL_TIME__ = { originalSetTimeout: real.setTimeout };
  window.__HF_PAGE_SIDE_COMPOSITING__ = true;
}
