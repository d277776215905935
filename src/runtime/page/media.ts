// --- <video> and <audio> ---------------------------------------------------------------------------
// Media elements play on the virtual timeline. One with `data-start` is a clip (timing.ts): it
// plays from its start, from data-playback-start (or data-media-start) seconds into its source,
// at data-playback-rate, for data-duration seconds if given, at data-volume. One without plays
// from the virtual time at which it appears in the document, from the currentTime it has then, at
// its playbackRate. Either loops with `loop`. The runtime keeps them paused and seeks every video
// to its own time for each frame; the soundtrack is mixed natively from what `__mediaTimeline()`
// reports.
import type { MediaElementTiming } from '../protocol';
import { fps, state, videoChannel } from './state';
import { timelineTime } from './timelines';
import { Timeline as PageTimeline, compositionDuration, finiteNumber, mediaSource, parseStart, playbackRateOf, playbackStartOf, positiveNumber, timing } from './timing';
import { adoptVideos, allVideos, decodableSource, decodedVideos, openVideos, unopenedVideos } from './video-frames';

/** What the runtime knows of a media element: when it appeared, at which own time and rate, and the time last shown. */
export interface MediaState {
  appeared: number;
  offset: number;
  rate: number;
  shown: number | null;
}
export const media = new Map<HTMLMediaElement, MediaState>();
// Seek a hair past the exact time: containers round timestamps (WebM to 1 ms), and a frame whose
// stored time is a fraction of a millisecond late must still count as showing.
const SEEK_BIAS_S = 0.001;
// HyperFrames' largest gain: +12 dB.
const MAX_VOLUME = 3.98;
export function registerMedia(): void {
  const els = document.querySelectorAll<HTMLMediaElement>('video, audio');
  for (let i = 0; i < els.length; i++) {
    const el = els[i];
    if (media.has(el)) continue;
    const attr = el.getAttribute('data-start');
    if (attr !== null && parseStart(attr) === null) {
      throw new Error('vidkit: data-start="' + attr + '" of ' + mediaSource(el) + ' must be seconds or a clip reference (id, id + seconds, id - seconds)');
    }
    media.set(el, { appeared: state.nowMs, offset: el.currentTime || 0, rate: el.playbackRate || 1, shown: null });
    const gain = dataVolume(el);
    // Volume tweens start from data-volume, as in HyperFrames.
    if (gain !== null) el.volume = Math.min(1, gain);
    el.autoplay = false;
    // A video the renderer decodes (video-frames.ts) never loads in the browser.
    if (decodableSource(el) !== null) adoptVideos([el]);
    else el.preload = 'auto';
    el.pause();
  }
}
function dataVolume(el: Element): number | null {
  const v = finiteNumber(el.getAttribute('data-volume'));
  return v === null ? null : Math.min(MAX_VOLUME, Math.max(0, v));
}
// An element with nothing to play (no src, no <source>, no stream yet) shows no picture and makes
// no sound: there is nothing to wait for, seek or mix until a script gives it a source.
function hasSource(el: HTMLMediaElement): boolean { return el.hasAttribute('src') || el.querySelector('source') !== null || el.srcObject != null; }
// Resolves once `el` has reached `readyState` (1: metadata, 2: a picture), rejects if it cannot load,
// also when it failed before this was asked.
function loaded(el: HTMLMediaElement, readyState: number): Promise<void> {
  if (el.readyState >= readyState) return Promise.resolve();
  if (el.error) return Promise.reject(mediaFailure(el));
  return new Promise(function (resolve, reject) {
    const ready = readyState >= 2 ? 'loadeddata' : 'loadedmetadata';
    function settle(ok: boolean): void {
      el.removeEventListener(ready, onReady);
      el.removeEventListener('error', onError, true);
      if (ok) resolve(); else reject(mediaFailure(el));
    }
    function onReady(): void { settle(true); }
    // A failed <source> reports on itself (seen here while capturing); after the last one the
    // element has nothing left to try.
    function onError(event: Event): void { if (event.target === el || !laterSource(event.target as Element)) settle(false); }
    el.addEventListener(ready, onReady);
    el.addEventListener('error', onError, true);
    // Elements the page set to preload nothing have not started loading.
    if (el.networkState === el.NETWORK_EMPTY || el.networkState === el.NETWORK_IDLE) el.load();
  });
}
function laterSource(source: Element): Element | null {
  for (let next = source.nextElementSibling; next; next = next.nextElementSibling) if (next.tagName === 'SOURCE') return next;
  return null;
}
function mediaFailure(el: HTMLMediaElement): Error {
  const reason = el.error && el.error.message ? ' (' + el.error.message + ')' : '';
  return new Error('media failed to load: ' + mediaSource(el) + reason);
}
/** Where an element plays on the composition's timeline, in seconds: from `start` (its own time `offset` there) at `rate`, until `end` (Infinity: until its source ends). */
export interface Placement {
  start: number;
  offset: number;
  rate: number;
  end: number;
}
export function mediaPlacement(el: HTMLMediaElement, m: MediaState): Placement {
  if (!el.hasAttribute('data-start')) return { start: m.appeared / 1000, offset: m.offset, rate: m.rate, end: Infinity };
  const t = timing();
  const start = t.startOf(el);
  const trimmed = positiveNumber(el.getAttribute('data-duration')) !== null || finiteNumber(el.getAttribute('data-end')) !== null;
  return { start: start, offset: playbackStartOf(el), rate: playbackRateOf(el), end: trimmed ? t.endOf(el) : Infinity };
}
function mediaTimeAt(el: HTMLMediaElement, m: MediaState): number {
  const place = mediaPlacement(el, m);
  const seconds = Math.min(state.nowMs / 1000, place.end);
  let t = place.offset + Math.max(0, seconds - place.start) * place.rate;
  const d = el.duration;
  if (isFinite(d) && d > 0) t = el.loop ? t % d : Math.min(t, d);
  return t;
}
function seekMedia(el: HTMLMediaElement, t: number): Promise<void> {
  // Before its metadata a seek only records a start position and fires no 'seeked'.
  return loaded(el, 1).then(function () { return seekLoaded(el, t); });
}
function seekLoaded(el: HTMLMediaElement, t: number): Promise<void> {
  return new Promise(function (resolve, reject) {
    function settle(ok: boolean): void {
      el.removeEventListener('seeked', onSeeked);
      el.removeEventListener('error', onError);
      if (ok) resolve(); else reject(new Error('media failed to load: ' + mediaSource(el)));
    }
    // A 'seeked' still queued from an earlier seek (the page's own currentTime, a load) arrives
    // while this one is under way; taking it would pair every later seek with the one before.
    function onSeeked(): void { if (!el.seeking) settle(true); }
    function onError(): void { settle(false); }
    el.addEventListener('seeked', onSeeked);
    el.addEventListener('error', onError);
    el.currentTime = t;
  });
}
// Videos whose new picture the compositor has not presented yet (requestVideoFrameCallback).
export const unpresented = new Set<HTMLVideoElement>();
// A picture presented while the seek is still under way is an old one (a video that has just
// become visible shows its last picture first): only one presented after it counts.
function whenPresented(el: HTMLVideoElement): void {
  el.requestVideoFrameCallback(function () {
    if (el.seeking) whenPresented(el);
    else unpresented.delete(el);
  });
}
// Seeks each video whose own time moved; the seeks' promises go into `waits`.
export function syncVideos(waits: Promise<unknown>[]): void {
  media.forEach(function (m, el) {
    if (el.tagName !== 'VIDEO' || !el.isConnected || !hasSource(el) || decodedVideos.has(el as HTMLVideoElement)) return;
    const video = el as HTMLVideoElement;
    const t = mediaTimeAt(video, m);
    if (m.shown === t) return;
    m.shown = t;
    state.changed = true;
    if (typeof video.requestVideoFrameCallback === 'function') {
      unpresented.add(video);
      whenPresented(video);
    }
    // The end itself shows no frame in every container: aim just inside it.
    const d = video.duration;
    const target = isFinite(d) && d > 0 ? Math.min(t + SEEK_BIAS_S, d - SEEK_BIAS_S) : t + SEEK_BIAS_S;
    waits.push(seekMedia(video, target).then(function () { return 'video'; }));
  });
}
export function mediaReady(): Promise<void> {
  registerMedia();
  const waits: unknown[] = [];
  media.forEach(function (m, el) {
    // A video's first picture must be in before the first seek, or its late arrival can
    // replace the picture of that seek on screen.
    if (hasSource(el) && !decodedVideos.has(el as HTMLVideoElement)) waits.push(loaded(el, el.tagName === 'VIDEO' ? 2 : 1));
  });
  if (videoChannel) {
    adoptVideos(allVideos());
    waits.push(openVideos(unopenedVideos()));
  }
  // A script may set currentTime before the metadata arrives; it counts once it has.
  return Promise.all(waits).then(function () {
    media.forEach(function (m, el) { if (m.shown === null) m.offset = el.currentTime || 0; });
  });
}

// --- volume over time --------------------------------------------------------------------------
// A timeline may tween an element's `volume` (HyperFrames' volume automation). The mix needs the
// volume at every frame of the composition, also of the frames before this page's first: the
// timelines are stepped through every frame time (events suppressed), the volumes read, and the
// timelines put back where they were.
type VolumePoint = { time: number; volume: number };
function sampleVolumes(elements: HTMLMediaElement[]): VolumePoint[][] {
  const samples = elements.map(function (): VolumePoint[] { return []; });
  const registry = timing().timelines;
  const all: Array<{ tl: PageTimeline; at(seconds: number): number }> = [];
  if (registry.root) all.push({ tl: registry.root, at: function (s) { return s; } });
  registry.children.forEach(function (child) { all.push({ tl: child.tl, at: function (s) { return registry.childTime(child, timing(), s); } }); });
  registry.others.forEach(function (tl) { all.push({ tl: tl, at: function (s) { return s; } }); });
  if (elements.length === 0 || all.length === 0) return samples;
  // The render's frame count (src/composition/root.ts): whole frames, else rounded up.
  const frames = Math.max(1, Math.ceil(compositionDuration() * fps - 1e-3));
  const probe = function (tl: PageTimeline, seconds: number) {
    if (typeof tl.totalTime === 'function') tl.totalTime(seconds, true);
    else tl.seek(seconds, true);
  };
  for (let f = 0; f <= frames; f++) {
    const seconds = f / fps;
    all.forEach(function (entry) { probe(entry.tl, entry.at(seconds)); });
    elements.forEach(function (el, i) { samples[i].push({ time: seconds, volume: el.volume }); });
  }
  all.forEach(function (entry) {
    timelineTime.delete(entry.tl);
    probe(entry.tl, entry.at(state.nowMs / 1000));
  });
  return samples;
}
// What the renderer mixes: every media element seen so far, in seconds.
export function mediaTimeline(): MediaElementTiming[] {
  const list: MediaElementTiming[] = [];
  const audible: Array<{ el: HTMLMediaElement; entry: MediaElementTiming }> = [];
  media.forEach(function (m, el) {
    if (!hasSource(el)) return;
    const place = mediaPlacement(el, m);
    const gain = dataVolume(el);
    const entry: MediaElementTiming = {
      kind: el.tagName.toLowerCase() as 'audio' | 'video', src: mediaSource(el), start: place.start, offset: place.offset,
      playbackRate: place.rate, loop: el.loop, volume: gain === null ? el.volume : gain, muted: el.muted,
    };
    if (isFinite(place.end)) entry.end = place.end;
    list.push(entry);
    if (!el.muted) audible.push({ el: el, entry: entry });
  });
  const samples = sampleVolumes(audible.map(function (a) { return a.el; }));
  audible.forEach(function (a, i) {
    const points = samples[i];
    // Only a volume that moves is automation: a still one is the element's static volume.
    if (points.some(function (p) { return Math.abs(p.volume - points[0].volume) > 1e-4; })) a.entry.volumes = points;
  });
  return list;
}
