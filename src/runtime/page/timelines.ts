// --- timelines registered in window.__timelines -------------------------------------------------
// HyperFrames' rules (docs/guide/hyperframes.md): the root composition's timeline is the
// one under its data-composition-id, or the only one registered; a timeline under the id of a
// nested composition plays in that clip's own time (from its start, after data-playback-start, at
// data-playback-rate); an array counts as one timeline for the root, or several under tl-0,
// tl-1, ... Any other timeline follows the composition's time.
import { real } from './clock';
import type { PageLibrary } from './globals';
import { state } from './state';
import { Timing, compositionRoot, playbackRateOf, playbackStartOf, timing } from './timing';

/** A GSAP timeline, or anything with `totalTime(seconds, suppressEvents)` or `seek(seconds, suppressEvents)`. */
export type Timeline = PageLibrary;
/** A timeline registered under a nested composition's id, with that composition's host. */
export interface ChildTimeline {
  tl: Timeline;
  host: Element;
}
export interface TimelineRegistry {
  named: Record<string, Timeline>;
  root: Timeline | null;
  children: ChildTimeline[];
  others: Timeline[];
  childTime(child: ChildTimeline, t: Timing, seconds: number): number;
  end(t: Timing): number;
}

function isTimeline(tl: Timeline): boolean {
  return !!tl && typeof tl === 'object' && (typeof tl.totalTime === 'function' || typeof tl.seek === 'function');
}
// A timeline's own length in seconds (one pass, repeats aside), or null.
export function timelineLength(tl: Timeline): number | null {
  try {
    const d = typeof tl.duration === 'function' ? Number(tl.duration()) : NaN;
    return isFinite(d) && d > 0 ? d : null;
  } catch (err) {
    return null;
  }
}
export function timelineRegistry(): TimelineRegistry {
  const raw = window.__timelines || {};
  const root = compositionRoot();
  const rootId = root ? (root.getAttribute('data-composition-id') as string) : 'root';
  const named: Record<string, Timeline> = {};
  if (Array.isArray(raw)) {
    if (raw.length === 1 && isTimeline(raw[0])) named[rootId] = raw[0];
    else if (raw.length > 1) raw.forEach(function (tl, i) { if (isTimeline(tl)) named['tl-' + i] = tl; });
  } else {
    for (const key in raw) if (isTimeline(raw[key])) named[key] = raw[key];
  }
  const hosts: Record<string, Element> = {};
  const compositions = document.querySelectorAll('[data-composition-id]');
  for (let i = 0; i < compositions.length; i++) {
    if (compositions[i] !== root) hosts[compositions[i].getAttribute('data-composition-id') as string] = compositions[i];
  }
  const keys = Object.keys(named);
  // The only timeline registered, under a key that names no nested composition, is the root's.
  const sole = keys.length === 1 && !hosts[keys[0]] ? named[keys[0]] : null;
  const rootTimeline = named[rootId] || sole;
  const children: ChildTimeline[] = [];
  const others: Timeline[] = [];
  keys.forEach(function (key) {
    const tl = named[key];
    if (tl === rootTimeline) return;
    if (hosts[key]) children.push({ tl: tl, host: hosts[key] });
    else others.push(tl);
  });
  // Seconds into a nested composition's timeline at composition time `seconds`.
  function childTime(child: ChildTimeline, t: Timing, seconds: number): number {
    const local = playbackStartOf(child.host) + Math.max(0, seconds - t.startOf(child.host)) * playbackRateOf(child.host);
    const length = t.durationOf(child.host);
    return length === null ? local : Math.min(local, playbackStartOf(child.host) + length * playbackRateOf(child.host));
  }
  // Where the last timeline ends on the composition's timeline, 0 when there is none. A nested
  // timeline counts whole, however short its clip (HyperFrames places it in the root timeline).
  function end(t: Timing): number {
    let latest = rootTimeline ? timelineLength(rootTimeline) || 0 : 0;
    children.forEach(function (child) {
      const length = timelineLength(child.tl);
      if (length === null) return;
      const played = Math.max(0, length - playbackStartOf(child.host)) / playbackRateOf(child.host);
      latest = Math.max(latest, t.startOf(child.host) + played);
    });
    others.forEach(function (tl) { latest = Math.max(latest, timelineLength(tl) || 0); });
    return latest;
  }
  return { named: named, root: rootTimeline, children: children, others: others, childTime: childTime, end: end };
}

// A finished timeline (time past its total duration, as at the previous frame) is left alone.
export const timelineTime = new WeakMap<Timeline, number>();
function seekTimeline(tl: Timeline, seconds: number): void {
  const total = typeof tl.totalDuration === 'function' ? tl.totalDuration() : Infinity;
  const applied = Math.min(seconds, total >= 0 ? total : Infinity);
  if (timelineTime.get(tl) === applied) return;
  const first = !timelineTime.has(tl);
  timelineTime.set(tl, applied);
  // GSAP renders nothing when the playhead does not move, so a timeline first shown at the time it
  // already reads (0, at frame 0) would skip what it sets there (a set() at 0 hiding a scene): as
  // HyperFrames does, it is moved a millisecond away first, without events.
  if (first && typeof tl.totalTime === 'function' && Number(tl.totalTime()) === seconds) tl.totalTime(seconds >= 0.001 ? seconds - 0.001 : seconds + 0.001, true);
  if (typeof tl.totalTime === 'function') tl.totalTime(seconds, false);
  else tl.seek(seconds, false);
  state.changed = true;
}
export function syncTimelines(): void {
  const seconds = state.nowMs / 1000;
  const t = timing();
  const registry = t.timelines;
  if (registry.root) seekTimeline(registry.root, seconds);
  registry.children.forEach(function (child) { seekTimeline(child.tl, registry.childTime(child, t, seconds)); });
  registry.others.forEach(function (tl) { seekTimeline(tl, seconds); });
}

// Until its timeline is registered, a composition may still be setting up (a script that fetches
// data first): readiness waits, at most this long, for the timeline of each composition, unless
// it is marked data-no-timeline or the page loads no GSAP.
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
      else real.setTimeout(poll, 50);
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
