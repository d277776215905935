// --- HyperFrames timing: the root, clips and their windows on the timeline ---------------------
// A `[data-start]` element is a clip, shown only from its start to its end (docs/guide/hyperframes.md). A start is seconds into its composition, or `id`, `id + s`, `id - s`: the end
// of another clip, plus or minus seconds. The length is `data-duration`, else `data-end` minus
// the start, else what the element itself lasts (a medium's playable length, 3 s for an image, a
// nested composition's timeline, though a host that named no composition stays shown to the end
// of the composition around it). Times here are seconds on the root composition's timeline.
// Which registered timeline is whose is read here too, as a nested composition lasts its
// timeline. This reads the page and changes only clip visibility: the parts that move things
// (animations, timelines, media, videos) read it, and it imports none of them.
import type { PageClip } from '../protocol';
import type { PageLibrary } from './globals';
import { fps } from './state';

// The root: the composition marked data-root="true", else the first (topmost) one.
export function compositionRoot(): HTMLElement | null {
  return document.querySelector<HTMLElement>('[data-composition-id][data-root="true"]') || document.querySelector<HTMLElement>('[data-composition-id]');
}

/** The root element of a composition mounted in a host without a data-composition-id of its own. */
function isUnnamedRoot(el: Element): boolean {
  return el.hasAttribute('data-vidkit-root') && !!el.parentElement && el.parentElement.hasAttribute('data-vidkit-unnamed-host');
}

const REFERENCE_ID = /^[A-Za-z0-9_.:-]+$/;
// `data-start` as { ref, offset }: ref null for seconds; null when absent or unreadable.
export function parseStart(raw: string | null): { ref: string | null; offset: number } | null {
  const text = (raw || '').trim();
  if (text === '') return null;
  const n = Number(text);
  if (isFinite(n)) return { ref: null, offset: n };
  if (REFERENCE_ID.test(text)) return { ref: text, offset: 0 };
  const m = /^(.*?)\s*([+-])\s*(\d*\.?\d+)$/.exec(text);
  if (!m || !REFERENCE_ID.test(m[1])) return null;
  return { ref: m[1], offset: (m[2] === '-' ? -1 : 1) * Number(m[3]) };
}
export function positiveNumber(raw: string | null | undefined): number | null {
  if (raw === null || raw === undefined || String(raw).trim() === '') return null;
  const n = Number(raw);
  return isFinite(n) && n > 0 ? n : null;
}
export function finiteNumber(raw: string | null | undefined): number | null {
  if (raw === null || raw === undefined || String(raw).trim() === '') return null;
  const n = Number(raw);
  return isFinite(n) ? n : null;
}
export function isMediaElement(el: Element): el is HTMLMediaElement { return el.tagName === 'VIDEO' || el.tagName === 'AUDIO'; }
/** What a medium (or an image) plays, for messages and the soundtrack. */
export function mediaSource(el: HTMLMediaElement | HTMLImageElement): string {
  return el.currentSrc || el.src || (el.querySelector('source') || ({} as { src?: string })).src || '<' + el.tagName.toLowerCase() + '>';
}
// Seconds into the source where a medium (or a nested composition's timeline) begins playing.
export function playbackStartOf(el: Element): number {
  const own = finiteNumber(el.getAttribute('data-playback-start'));
  if (own !== null && own >= 0) return own;
  const media = finiteNumber(el.getAttribute('data-media-start'));
  return media !== null && media >= 0 ? media : 0;
}
// data-playback-rate, within HyperFrames' 0.1 to 10; else a medium's own playbackRate.
export function playbackRateOf(el: Element): number {
  let rate = positiveNumber(el.getAttribute('data-playback-rate'));
  if (rate === null) rate = isMediaElement(el) ? el.playbackRate || 1 : 1;
  return Math.min(10, Math.max(0.1, rate));
}
// The element whose data-playback-start and data-playback-rate a nested composition's timeline
// follows: its host, or, for a host that named no composition, the composition's own root (in
// HyperFrames that root keeps the id and the host is a plain clip around it, whose offset and
// rate reach no timeline).
function timelineClock(host: Element): Element {
  if (!host.hasAttribute('data-vidkit-unnamed-host')) return host;
  const root = host.querySelector('[data-vidkit-root="' + CSS.escape(host.getAttribute('data-composition-id') || '') + '"]');
  return root || host;
}
// --- timelines registered in window.__timelines --------------------------------------------------
// HyperFrames' rules (docs/guide/hyperframes.md): the root composition's timeline is the
// one under its data-composition-id, or the only one registered; a timeline under the id of a
// nested composition plays in that clip's own time (from its start, after data-playback-start, at
// data-playback-rate); an array counts as one timeline for the root, or several under tl-0,
// tl-1, ... Any other timeline follows the composition's time.
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
function timelineLength(tl: Timeline): number | null {
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
  // Seconds into a nested composition's timeline at composition time `seconds`. Its clip's end
  // does not stop it (HyperFrames plays it to its own end): a timeline whose targets lie outside
  // its clip goes on moving them.
  function childTime(child: ChildTimeline, t: Timing, seconds: number): number {
    const clock = timelineClock(child.host);
    return playbackStartOf(clock) + Math.max(0, seconds - t.startOf(child.host)) * playbackRateOf(clock);
  }
  // Where the last timeline ends on the composition's timeline, 0 when there is none. A nested
  // timeline counts whole, however short its clip (HyperFrames places it in the root timeline).
  function end(t: Timing): number {
    let latest = rootTimeline ? timelineLength(rootTimeline) || 0 : 0;
    children.forEach(function (child) {
      const length = timelineLength(child.tl);
      if (length === null) return;
      const clock = timelineClock(child.host);
      const played = Math.max(0, length - playbackStartOf(clock)) / playbackRateOf(clock);
      latest = Math.max(latest, t.startOf(child.host) + played);
    });
    others.forEach(function (tl) { latest = Math.max(latest, timelineLength(tl) || 0); });
    return latest;
  }
  return { named: named, root: rootTimeline, children: children, others: others, childTime: childTime, end: end };
}

// The default length of an image clip without one, as in HyperFrames.
const IMAGE_SECONDS = 3;

/** One consistent reading of the timeline: every clip's window, in seconds. */
export interface Timing {
  startOf(el: Element): number;
  /** Null when nothing tells. */
  durationOf(el: Element): number | null;
  /** Infinity when the clip lasts to the end. */
  endOf(el: Element): number;
  shownAt(el: Element, frameIndex: number): boolean;
  timelines: TimelineRegistry;
}

// One consistent reading of the timeline, remade for each frame (media durations arrive, scripts
// add clips and timelines).
let timingCache: Timing | null = null;
export function timing(): Timing {
  if (timingCache === null) timingCache = readTiming();
  return timingCache;
}
export function forgetTiming(): void { timingCache = null; }

function readTiming(): Timing {
  const root = compositionRoot();
  const starts = new Map<Element, number>();
  const durations = new Map<Element, number | null>();
  const resolving = new Set<Element>();
  const timelines = timelineRegistry();

  function compositionNamed(id: string): Element | null {
    const all = document.querySelectorAll('[data-composition-id]');
    for (let i = 0; i < all.length; i++) if (all[i].getAttribute('data-composition-id') === id) return all[i];
    return null;
  }
  function referenced(id: string): Element | null { return document.getElementById(id) || compositionNamed(id); }
  // The composition an element's own start is counted in. The root of a composition mounted in a
  // host that named none counts its own data-start in the composition around the host: in
  // HyperFrames that root keeps the composition's id, and the host is a plain clip around it.
  function enclosingComposition(el: Element): Element | null {
    let from = el.hasAttribute('data-composition-id') ? el.parentElement : el;
    if (from === el && isUnnamedRoot(el)) from = (el.parentElement as Element).parentElement;
    return from ? from.closest('[data-composition-id]') : null;
  }
  // Where time 0 of `el`'s composition falls on the root timeline: its start, less the part of
  // it trimmed away by data-playback-start. In a host that named no composition, a medium is also
  // trimmed by the root's data-playback-start, as its timeline is (timelineClock); in HyperFrames
  // other clips there are not.
  function compositionOffset(el: Element): number {
    const comp = enclosingComposition(el);
    if (!comp) return 0;
    const offset = startOf(comp) - playbackStartOf(comp);
    if (!isMediaElement(el)) return offset;
    const clock = timelineClock(comp);
    return clock === comp ? offset : offset - playbackStartOf(clock);
  }
  function startOf(el: Element): number {
    if (starts.has(el)) return starts.get(el) as number;
    // A reference cycle resolves to the composition's start instead of looping.
    if (resolving.has(el)) return 0;
    resolving.add(el);
    const value = computeStart(el);
    resolving.delete(el);
    starts.set(el, value);
    return value;
  }
  function computeStart(el: Element): number {
    const start = parseStart(el.getAttribute('data-start'));
    if (start === null) {
      // A composition without a start of its own begins with the composition around it.
      const parent = el.hasAttribute('data-composition-id') && el.parentElement;
      return parent && parent.hasAttribute('data-composition-id') ? startOf(parent) : 0;
    }
    if (start.ref === null) return compositionOffset(el) + Math.max(0, start.offset);
    const ref = referenced(start.ref);
    if (!ref) return compositionOffset(el);
    return Math.max(0, startOf(ref) + (durationOf(ref) || 0) + start.offset);
  }
  function durationOf(el: Element): number | null {
    if (durations.has(el)) return durations.get(el) as number | null;
    const value = computeDuration(el);
    durations.set(el, value);
    return value;
  }
  function computeDuration(el: Element): number | null {
    const own = positiveNumber(el.getAttribute('data-duration'));
    if (own !== null) return own;
    const end = finiteNumber(el.getAttribute('data-end'));
    if (end !== null && end > startOf(el)) return end - startOf(el);
    if (isMediaElement(el)) {
      const d = el.duration;
      return isFinite(d) && d > 0 ? Math.max(0, d - playbackStartOf(el)) / playbackRateOf(el) : null;
    }
    if (el.tagName === 'IMG') return IMAGE_SECONDS;
    const id = el.getAttribute('data-composition-id');
    if (id !== null && el !== root) {
      const tl = timelines.named[id];
      const length = tl ? timelineLength(tl) : null;
      return length ? length / playbackRateOf(el) : null;
    }
    return null;
  }
  // A host that named no composition (data-vidkit-unnamed-host, set by the sub-composition
  // transform) and has no length of its own stays until the composition around it ends, its
  // timeline holding its last state, as HyperFrames renders it; a named host lasts its timeline.
  function endOf(el: Element): number {
    // The root inside such a host ends with the host: HyperFrames keeps a nested composition's
    // data-duration from its window.
    if (isUnnamedRoot(el)) return Infinity;
    if (el.hasAttribute('data-vidkit-unnamed-host') && !el.hasAttribute('data-duration') && !el.hasAttribute('data-end')) return Infinity;
    const d = durationOf(el);
    return d === null ? Infinity : startOf(el) + d;
  }
  // Whole frames, so that a clip's first and last frames do not depend on float rounding.
  function frameAt(seconds: number): number {
    const f = seconds * fps;
    const whole = Math.round(f);
    return Math.abs(f - whole) <= 1e-3 ? whole : f;
  }
  function inWindow(el: Element, frameIndex: number): boolean {
    return frameIndex >= frameAt(startOf(el)) && frameIndex < frameAt(endOf(el));
  }
  // In its window, and so is every clip around it up to the root.
  function shownAt(el: Element, frameIndex: number): boolean {
    if (!inWindow(el, frameIndex)) return false;
    for (let up = el.parentElement; up && up !== root; up = up.parentElement) {
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
const NOT_SHOWN: Record<string, number> = { SCRIPT: 1, STYLE: 1, LINK: 1, META: 1, AUDIO: 1, TEMPLATE: 1 };
const CLIP_HIDDEN = 'data-vidkit-clip-hidden';
let clipHidingStyle: HTMLStyleElement | null = null;
function ensureClipHidingStyle(): void {
  if (clipHidingStyle && clipHidingStyle.isConnected) return;
  clipHidingStyle = document.createElement('style');
  clipHidingStyle.textContent = '[' + CLIP_HIDDEN + '] * { visibility: hidden !important; }';
  (document.head || document.documentElement).appendChild(clipHidingStyle);
}
const inFlow = new WeakMap<Element, boolean>();
const hiddenDisplay = new WeakMap<Element, { value: string; priority: string }>();
function flowsInPage(el: Element): boolean {
  if (!inFlow.has(el)) {
    const position = getComputedStyle(el).position;
    inFlow.set(el, (position === 'static' || position === 'relative' || position === 'sticky') && el.querySelector('[data-start]') === null);
  }
  return inFlow.get(el) as boolean;
}
export function showClips(frameIndex: number): void {
  const t = timing();
  const clips = document.querySelectorAll<HTMLElement>('[data-start]');
  for (let i = 0; i < clips.length; i++) {
    const el = clips[i];
    if (NOT_SHOWN[el.tagName] || !el.style) continue;
    const shown = t.shownAt(el, frameIndex);
    const visibility = shown ? 'visible' : 'hidden';
    if (el.style.visibility !== visibility) el.style.visibility = visibility;
    if (shown === el.hasAttribute(CLIP_HIDDEN)) {
      if (!shown) ensureClipHidingStyle();
      el.toggleAttribute(CLIP_HIDDEN, !shown);
    }
    if (!shown && !hiddenDisplay.has(el) && flowsInPage(el)) {
      hiddenDisplay.set(el, { value: el.style.getPropertyValue('display'), priority: el.style.getPropertyPriority('display') });
      el.style.setProperty('display', 'none', 'important');
    } else if (shown && hiddenDisplay.has(el)) {
      const before = hiddenDisplay.get(el) as { value: string; priority: string };
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
const ENDLESS_TIMELINE_SECONDS = 7200;
export function compositionDuration(): number {
  const root = compositionRoot();
  const declared = root ? positiveNumber(root.getAttribute('data-duration')) : null;
  if (declared !== null) return declared;
  const t = timing();
  const timelineEnd = t.timelines.end(t);
  let floor = 0;
  let clipEnd = 0;
  const clips = document.querySelectorAll('[data-start]');
  for (let i = 0; i < clips.length; i++) {
    const el = clips[i];
    if (el === root) continue;
    // A nested composition counts for what its timeline lasts, not for staying shown to the end.
    const length = el.hasAttribute('data-composition-id') ? t.durationOf(el) : null;
    const end = length !== null ? t.startOf(el) + length : t.endOf(el);
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
const NOT_A_CLIP: Record<string, number> = { SCRIPT: 1, STYLE: 1, LINK: 1, META: 1, TEMPLATE: 1 };
export function clipList(): PageClip[] {
  forgetTiming();
  const t = timing();
  const root = compositionRoot();
  const els = Array.prototype.filter.call(document.querySelectorAll('[data-start], [data-composition-id]'), function (el: Element) {
    return el !== root && !NOT_A_CLIP[el.tagName];
  }) as Element[];
  const index = new Map<Element, number>();
  els.forEach(function (el, i) { index.set(el, i); });
  return els.map(function (el) {
    const around = el.parentElement ? el.parentElement.closest('[data-composition-id]') : null;
    const from = el.parentElement ? el.parentElement.closest('[data-vidkit-source]') : null;
    const end = t.endOf(el);
    const media = isMediaElement(el);
    return {
      tag: el.tagName.toLowerCase(),
      id: el.id || null,
      composition: around && around !== root && index.has(around) ? (index.get(around) as number) : null,
      compositionId: el.getAttribute('data-composition-id'),
      source: from ? from.getAttribute('data-vidkit-source') : null,
      start: t.startOf(el),
      end: isFinite(end) ? end : null,
      track: finiteNumber(el.getAttribute('data-track-index')),
      src: media || el.tagName === 'IMG' ? mediaSource(el as HTMLMediaElement) : null,
      playbackStart: media || el.hasAttribute('data-composition-id') ? playbackStartOf(el) : 0,
      playbackRate: media || el.hasAttribute('data-composition-id') ? playbackRateOf(el) : 1,
      sourceDuration: media && isFinite(el.duration) ? el.duration : null,
    };
  });
}
