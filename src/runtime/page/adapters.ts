// --- HyperFrames' frame adapters ------------------------------------------------------------------
// Libraries that draw without the DOM noticing (WebGL, canvas) follow the clock through the hooks
// HyperFrames gives them, each at the composition's time in seconds unless said otherwise:
//   - an `hf-seek` event on window, detail { time, waitUntil(promise) }: a promise passed to
//     waitUntil, synchronously in the listener, holds the frame until it settles;
//   - window.__hfThreeTime and window.__hfTypegpuTime, for render loops that read the time;
//   - anime.js instances listed in window.__hfAnime (and those anime.running lists): seek(ms);
//   - Lottie animations in window.__hfLottie (and lottie.getRegisteredAnimations()), in the time
//     of the composition around them: lottie-web's goToAndStop, dotLottie's frame setters.
import type { PageLibrary } from './globals';
import { state } from './state';
import { timing } from './timing';

// Set before every animation frame too, so that a render loop reads the time of its own frame.
export function setAdapterTime(seconds: number): void {
  window.__hfThreeTime = seconds;
  window.__hfTypegpuTime = seconds;
}

// Whether a listener of `hf-seek` exists: what it draws, the DOM does not report.
let seekListeners = 0;

function collectInto(list: PageLibrary[], more: unknown): PageLibrary[] {
  if (!Array.isArray(more)) return list;
  const seen = new Set(list);
  more.forEach(function (item) { if (!seen.has(item)) list.push(item); });
  return list;
}
function animeInstances(): PageLibrary[] {
  const anime = window.anime;
  if (anime && Array.isArray(anime.running) && anime.running.length > 0) window.__hfAnime = collectInto(window.__hfAnime || [], anime.running);
  return Array.isArray(window.__hfAnime) ? window.__hfAnime : [];
}
function lottieAnimations(): PageLibrary[] {
  const lottie = window.lottie;
  if (lottie && typeof lottie.getRegisteredAnimations === 'function') {
    const registered = lottie.getRegisteredAnimations();
    if (registered && registered.length > 0) window.__hfLottie = collectInto(window.__hfLottie || [], registered);
  }
  return Array.isArray(window.__hfLottie) ? window.__hfLottie : [];
}
// A frame index that loops back to 0 within a hair of the end.
function wrapFrame(value: number, total: number): number {
  const wrapped = value % total;
  return total - wrapped < 1e-6 ? 0 : wrapped;
}
function seekLottie(anim: PageLibrary, compositionSeconds: number): void {
  const element = typeof anim.goToAndStop === 'function' ? anim.wrapper : anim.canvas;
  const comp = element && element.closest ? element.closest('[data-composition-id]') : null;
  const seconds = Math.max(0, compositionSeconds - (comp ? timing().startOf(comp) : 0));
  const loops = anim.loop === true;
  const total = anim.totalFrames || 0;
  if (typeof anim.goToAndStop === 'function') {
    // lottie-web draws nothing past the file's end: a loop wraps, a one-shot holds its last frame.
    const frameAt = seconds * anim.frameRate;
    if (total > 0 && loops) anim.goToAndStop(wrapFrame(frameAt, total), true);
    else if (total > 0 && frameAt >= total) anim.goToAndStop(total - 1, true);
    else anim.goToAndStop(seconds * 1000, false);
  } else if (typeof anim.setFrame === 'function') {
    if (!(total > 0 && anim.duration > 0)) return;
    const f = (seconds * total) / anim.duration;
    anim.setFrame(Math.min(loops ? wrapFrame(f, total) : f, total - 1));
  } else if (typeof anim.setCurrentRawFrameValue === 'function') {
    const raw = seconds * (anim.frameRate || 30);
    if (total > 0) anim.setCurrentRawFrameValue(Math.min(loops ? wrapFrame(raw, total) : raw, total - 1));
  } else if (typeof anim.seek === 'function' && anim.duration > 0) {
    anim.seek(Math.min(100, ((loops ? seconds % anim.duration : seconds) / anim.duration) * 100));
  }
}

let adapterSeconds: number | null = null;
// Moves every adapter to the current time; promises the page asked to wait for go into `waits`.
export function syncAdapters(waits: Promise<unknown>[]): void {
  const seconds = state.nowMs / 1000;
  if (adapterSeconds === seconds) return;
  adapterSeconds = seconds;
  setAdapterTime(seconds);
  const anime = animeInstances();
  anime.forEach(function (instance) { if (instance && typeof instance.seek === 'function') instance.seek(state.nowMs); });
  const lottie = lottieAnimations();
  lottie.forEach(function (anim) { if (anim && typeof anim === 'object') seekLottie(anim, seconds); });
  let accepting = true;
  const detail = {
    time: seconds,
    waitUntil: function (promise: unknown) {
      if (!accepting) throw new Error('vidkit: hf-seek waitUntil() must be called synchronously from the event listener');
      waits.push(Promise.resolve(promise));
    },
  };
  try {
    window.dispatchEvent(new CustomEvent('hf-seek', { detail: detail }));
  } finally {
    accepting = false;
  }
  if (seekListeners > 0 || anime.length > 0 || lottie.length > 0) state.changed = true;
}

export function installAdapters(): void {
  setAdapterTime(0);
  const realAddEventListener = window.addEventListener;
  window.addEventListener = function (this: Window, type: string) {
    if (type === 'hf-seek') seekListeners += 1;
    return realAddEventListener.apply(this, arguments as unknown as Parameters<Window['addEventListener']>);
  } as Window['addEventListener'];
}
