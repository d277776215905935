// --- <video> pictures from the renderer's decoder ------------------------------------------------
// While rendering (docs/reference/formats.md, "Media on the timeline"), a <video> playing an http(s) URL never loads in
// the browser: the renderer installs a DevTools binding, window.__vidkitVideoFrames (and sets
// boot.videoFrames), and this part
// asks it for each video's picture at each frame. The renderer decodes the source with libav,
// writes the picture raw to a file (its 8-bit YUV planes as decoded, else RGBA) and hands the
// file to a hidden <input type=file> of the element (DOM.setFileInputFiles: a local file read,
// measured ~4x cheaper than the same bytes through fetch). The planes are converted to RGBA with
// the arithmetic of the code that converts Chromium's own video (measured bit-exact against the
// browser's picture of the same frame): in WebAssembly (yuv-pixels.ts) when the picture is opaque,
// else by a WebCodecs VideoFrame of the source's matrix and range; the result is put on a canvas
// (video-pictures.ts), as RGBA pictures are. Both happen before the frame's
// animation callbacks run, so the picture is in the page before the begin-frame that captures it.
//   The canvas is the element's picture everywhere: it is drawn over the video's content box (a
//   positioned sibling holding it in a closed shadow root, anchored to the video and given the
//   video's computed transform, opacity, filter, blend mode, radii, clip, object-fit and
//   object-position, while the video itself still paints its background, border and shadow), and
//   it stands in for the video in canvas drawImage/createPattern, WebGL texImage2D/texSubImage2D
//   (and 3D), createImageBitmap, new VideoFrame(video) and WebGPU copies. A poster or background
//   image would keep CSS truest but costs more than twice as much per frame (the image decoded
//   and rasterised again every frame), and a MediaStream into the element reaches the compositor
//   on its own schedule, the race this replaces.
//   The element reports the source as a loaded, paused video would: duration, videoWidth,
//   videoHeight, readyState, currentTime, with loadedmetadata, loadeddata, canplay and
//   canplaythrough once the renderer has opened it, seeking/seeked after a script sets
//   currentTime, requestVideoFrameCallback with each new picture. Its intrinsic size comes from a
//   transparent poster of the source's size, so a video sized by its source lays out as it would.
// Videos of other URLs (blob:, data:, a MediaSource, srcObject) play in the browser as before
// (media.ts), and so does every video in <vidkit-player>, which has no such binding.
// This module keeps the decoded videos, opens their sources and carries the renderer's answers;
// video-pictures.ts asks for each frame's pictures and paints them.
import type { VideoAnswer, VideoInfo, VideoReply, VideoRequest } from '../protocol';
import { videoChannel } from './state';
import type { YuvPixels } from './yuv-pixels';

/** What the runtime keeps of a video whose pictures the renderer decodes. */
export interface DecodedVideo {
  id: number;
  /** The source the element plays, and the one the renderer was asked to open. */
  src: string | null;
  asked: string | null;
  info: VideoInfo | null;
  canvas: HTMLCanvasElement | null;
  context: CanvasRenderingContext2D | null;
  /** Whether the canvas is opaque: only while it holds a picture of a source without alpha. */
  opaque: boolean;
  /** The hidden file input the renderer hands each picture's file to. */
  input: HTMLInputElement;
  /** The positioned sibling that shows the canvas over the element (video-overlay.ts). */
  host: HTMLElement | null;
  hostStyle: string;
  /** The source time of the picture shown, null before the first. */
  time: number | null;
  painted: boolean;
  paused: boolean;
  /** Where it starts before its first picture: a `#t=` fragment, or a time a script set. */
  offset: number;
  presented: number;
  callbacks: Array<{ id: number; callback: VideoFrameRequestCallback }>;
  buffer?: ArrayBuffer;
  /** The picture converted to RGBA by copyTo, reused from one picture to the next. */
  rgba?: Uint8ClampedArray<ArrayBuffer>;
  /** The converter of the source's opaque pictures (yuv-pixels.ts), made with the first; null where there is none. */
  yuv?: YuvPixels | null;
}
export const decodedVideos = new Map<HTMLVideoElement, DecodedVideo>();
let nextVideoId = 1;
const videoCalls = new Map<number, { handle(items: VideoAnswer[]): unknown; resolve(value: unknown): void; reject(reason: unknown): void }>();
let nextVideoCall = 1;

// The URL a video plays when the renderer can decode it, else null.
export function decodableSource(el: HTMLElement): string | null {
  if (!videoChannel || el.tagName !== 'VIDEO' || (el as HTMLVideoElement).srcObject != null) return null;
  const video = el as HTMLVideoElement;
  let url = video.getAttribute('src') !== null ? video.src : '';
  if (!url) {
    const source = video.querySelector('source[src]') as HTMLSourceElement | null;
    url = source ? source.src : '';
  }
  return /^https?:/i.test(url) ? url : null;
}
// Keeps the browser from loading the source (the load starts in a task after the element gets
// its src, so this runs first when called from a mutation record or a src setter).
function withhold(el: HTMLVideoElement): void {
  if (el.getAttribute('preload') !== 'none') el.preload = 'none';
  if (el.autoplay) el.autoplay = false;
}
function videoState(el: HTMLVideoElement): DecodedVideo {
  let found = decodedVideos.get(el);
  if (found) return found;
  found = {
    id: nextVideoId++, src: null, asked: null, info: null, canvas: null, context: null, opaque: false, input: document.createElement('input'),
    host: null, hostStyle: '', time: null, painted: false, paused: true, offset: fragmentStart(el), presented: 0, callbacks: [],
  };
  found.input.type = 'file';
  decodedVideos.set(el, found);
  return found;
}
// A `#t=` media fragment's start, as a browser applies it.
function fragmentStart(el: HTMLVideoElement): number {
  const m = /#t=(?:npt:)?([\d.]+)/.exec(el.getAttribute('src') || '');
  return m ? Number(m[1]) : 0;
}
// Takes over every video of `elements` whose source the renderer decodes.
export function adoptVideos(elements: HTMLElement[]): void {
  elements.forEach(function (el) {
    const src = decodableSource(el);
    if (src === null) return;
    const video = el as HTMLVideoElement;
    withhold(video);
    const s = videoState(video);
    if (s.src === src) return;
    s.src = src;
    s.info = null;
    s.painted = false;
    s.time = null;
  });
}
// The videos whose source (new, or changed) the renderer has not been asked to open.
export function unopenedVideos(): DecodedVideo[] {
  const list: DecodedVideo[] = [];
  decodedVideos.forEach(function (s) { if (s.asked !== s.src) list.push(s); });
  return list;
}
export function allVideos(): HTMLVideoElement[] {
  const list = Array.prototype.slice.call(document.querySelectorAll('video')) as HTMLVideoElement[];
  decodedVideos.forEach(function (s, el) { if (list.indexOf(el) < 0) list.push(el); });
  return list;
}

// --- the renderer's answers -------------------------------------------------------------------
// Asks the renderer about `videos` ([{ id, src } to open, { id, time } for a picture]); `handle`
// gets its answer, [{ id, info | missing, written }], and the promise settles once it has.
export function askRenderer(videos: VideoRequest[], handle: (items: VideoAnswer[]) => unknown): Promise<unknown> {
  const call = nextVideoCall++;
  return new Promise(function (resolve, reject) {
    videoCalls.set(call, { handle: handle, resolve: resolve, reject: reject });
    window.__vidkitVideoFrames(JSON.stringify({ call: call, videos: videos }));
  });
}
// window.__vidkit.__videoReply: the renderer awaits the returned promise before it removes the
// files it handed over.
export function videoReply(call: number, answer: VideoReply): Promise<unknown> | null {
  const pending = videoCalls.get(call);
  if (!pending) return null;
  videoCalls.delete(call);
  const failure = (answer as { error?: string }).error;
  if (failure) {
    pending.reject(new Error(failure));
    return null;
  }
  const done = Promise.resolve().then(function () { return pending.handle((answer as { items: VideoAnswer[] }).items); });
  done.then(pending.resolve, pending.reject);
  return done;
}
export function stateById(id: number): DecodedVideo | null {
  let found: DecodedVideo | null = null;
  decodedVideos.forEach(function (s) { if (s.id === id) found = s; });
  return found;
}

// Opens the sources of `states`; resolves once each element reports its metadata.
export function openVideos(states: DecodedVideo[]): Promise<unknown> | null {
  if (states.length === 0) return null;
  states.forEach(function (s) { s.asked = s.src; });
  return askRenderer(states.map(function (s) { return { id: s.id, src: s.src as string }; }), function (items) {
    items.forEach(function (item) {
      const s = stateById(item.id);
      const el = elementOf(s);
      if (!s || !el) return;
      // A source that is missing (--allow-missing-media) or has no video shows nothing.
      if (!item.info) return;
      s.info = item.info;
      s.yuv = undefined;
      // Transparent until its first picture, as a video that has loaded nothing.
      if (!s.canvas || s.opaque) useCanvas(s, false);
      const canvas = s.canvas as HTMLCanvasElement;
      canvas.width = item.info.width;
      canvas.height = item.info.height;
      // A picture replaces the one before, transparent parts included.
      (s.context as CanvasRenderingContext2D).globalCompositeOperation = 'copy';
      el.poster = 'data:image/svg+xml,' + encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="' + item.info.width + '" height="' + item.info.height + '"/>');
      ['durationchange', 'loadedmetadata', 'loadeddata', 'canplay', 'canplaythrough'].forEach(function (type) { el.dispatchEvent(new Event(type)); });
    });
  });
}
// Gives the video a new canvas, opaque or not, in the old one's place and of its size. An opaque
// canvas is one the compositor copies instead of blending, and what lies under it is not drawn:
// measured 3-4 % off a 1080p page with two videos.
export function useCanvas(s: DecodedVideo, opaque: boolean): void {
  const old = s.canvas;
  const canvas = document.createElement('canvas');
  s.context = canvas.getContext('2d', { alpha: !opaque });
  s.canvas = canvas;
  s.opaque = opaque;
  if (old) {
    canvas.width = old.width;
    canvas.height = old.height;
    canvas.style.cssText = old.style.cssText;
    if (old.parentNode) old.replaceWith(canvas);
  }
  // After the size: a canvas's size resets its context.
  (s.context as CanvasRenderingContext2D).globalCompositeOperation = 'copy';
}
export function elementOf(s: DecodedVideo | null): HTMLVideoElement | null {
  let found: HTMLVideoElement | null = null;
  decodedVideos.forEach(function (candidate, el) { if (candidate === s) found = el; });
  return found;
}
