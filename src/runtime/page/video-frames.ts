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
// (paintPicture), as RGBA pictures are. Both happen before the frame's
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
import type { VideoAnswer, VideoInfo, VideoReply, VideoRequest } from '../protocol';
import { media, mediaPlacement, registerMedia } from './media';
import { fps, state, videoChannel } from './state';
import { forgetTiming, timing } from './timing';
import { type YuvPixels, yuvPixels } from './yuv-pixels';

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
const RealVideoFrame = window.VideoFrame;
// The overload that scales, which is the one this calls.
const realDrawImage = window.CanvasRenderingContext2D.prototype.drawImage as (this: CanvasRenderingContext2D, image: CanvasImageSource, dx: number, dy: number, dw: number, dh: number) => void;

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
function askRenderer(videos: VideoRequest[], handle: (items: VideoAnswer[]) => unknown): Promise<unknown> {
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
function useCanvas(s: DecodedVideo, opaque: boolean): void {
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

// --- pictures ------------------------------------------------------------------------------------
// The source time a video shows at the current frame, as HyperFrames samples it: its own time
// from its start at its rate, taken on the render's frame grid; a looping clip repeats the span
// from its playback start to the end of its video stream, a looping element of the page (no
// data-start) its whole source, as a browser loops it.
function videoSourceTime(el: HTMLVideoElement, s: DecodedVideo): number {
  const info = s.info as VideoInfo;
  const m = media.get(el);
  const place = m ? mediaPlacement(el, m) : { start: 0, offset: s.offset, rate: el.playbackRate || 1, end: Infinity };
  let local = Math.max(0, Math.min(state.nowMs / 1000, place.end) - place.start);
  const clip = el.hasAttribute('data-start');
  if (clip && el.loop) {
    const period = (info.videoDurationSeconds - place.offset) / place.rate;
    if (period > 0) local %= period;
  }
  let t = place.offset + Math.floor(local * place.rate * fps + 1e-9) / fps;
  const d = info.durationSeconds;
  if (!clip && el.loop && d > 0) t %= d;
  return t;
}
// Asks for the picture of every video whose time moved; null when none did, else a promise that
// settles once the new pictures are painted (and requestVideoFrameCallback callbacks have run).
export function videoPictures(): Promise<unknown> | null {
  if (!videoChannel) return null;
  forgetTiming();
  registerMedia();
  adoptVideos(allVideos());
  const opening = openVideos(unopenedVideos());
  if (opening) return opening.then(videoPictures);
  const asked: VideoRequest[] = [];
  decodedVideos.forEach(function (s, el) {
    if (!s.info) return;
    // A clip outside its window shows nothing: its picture can wait until it is shown.
    if (el.isConnected && el.hasAttribute('data-start') && !timing().shownAt(el, state.frame)) return;
    const t = videoSourceTime(el, s);
    if (s.painted && s.time === t) return;
    s.time = t;
    asked.push({ id: s.id, time: t });
  });
  if (asked.length === 0) return null;
  return askRenderer(asked, function (items) {
    // One picture file read at a time: with eight or more read at once, Chromium left one read
    // unanswered now and then, and the frame waited until its timeout.
    let reads: Promise<unknown> = Promise.resolve();
    return Promise.all(items.map(function (item) {
      const s = stateById(item.id);
      if (!s || !item.written) return null;
      const read = reads.then(function () { return readPicture(s); });
      reads = read;
      return read.then(function (bytes) {
        return paintPicture(s, bytes);
      }).then(function () {
        s.painted = true;
        s.presented += 1;
        state.changed = true;
        const info = s.info as VideoInfo;
        const callbacks = s.callbacks;
        s.callbacks = [];
        const metadata = {
          presentationTime: state.nowMs, expectedDisplayTime: state.nowMs, width: info.width, height: info.height,
          mediaTime: s.time as number, presentedFrames: s.presented, processingDuration: 0,
        };
        callbacks.forEach(function (c) { c.callback.call(elementOf(s), state.nowMs, metadata); });
      });
    }));
  });
}

// The file's bytes, read into the video's own buffer: a new ArrayBuffer for every picture left
// hundreds of MB for the garbage collector to find (ten 1080p videos: 120-280 MB).
function readPicture(s: DecodedVideo): Promise<Uint8Array> {
  const file = (s.input.files as FileList)[0];
  if (!s.buffer || s.buffer.byteLength !== file.size) s.buffer = new ArrayBuffer(file.size);
  const reader = file.stream().getReader({ mode: 'byob' });
  let filled = 0;
  function next(): Promise<Uint8Array> | Uint8Array {
    const buffer = s.buffer as ArrayBuffer;
    if (filled === buffer.byteLength) {
      reader.releaseLock();
      return new Uint8Array(buffer);
    }
    return reader.read(new Uint8Array(buffer, filled)).then(function (chunk) {
      if (chunk.done) throw new Error('a video picture file ended early');
      s.buffer = chunk.value.buffer as ArrayBuffer;
      filled += chunk.value.byteLength;
      return next();
    });
  }
  return Promise.resolve(next());
}
// An opaque planar picture is converted to RGBA in WebAssembly (yuv-pixels.ts), any other planar
// one by WebCodecs' copyTo (the same conversion as drawing it, checked bit-exact for
// I420/I422/I444/I420A in 709, 601 and full range) into the video's own RGBA buffer, and put on
// its canvas. Drawing a VideoFrame instead keeps each converted picture in the renderer's image
// cache: 520 MB of shared memory per 1080x1920 video within 100 frames.
function paintPicture(s: DecodedVideo, bytes: Uint8Array): Promise<void> | void {
  const info = s.info as VideoInfo;
  // The first picture of a source without alpha (I420, I444P10, ...; not I420A or RGBA) makes the canvas opaque.
  if (!s.opaque && !/A/.test(info.format)) useCanvas(s, true);
  const context = s.context as CanvasRenderingContext2D;
  const canvas = s.canvas as HTMLCanvasElement;
  const put = function (rgba: Uint8ClampedArray<ArrayBuffer>) {
    context.putImageData(new ImageData(rgba, info.codedWidth, info.codedHeight), 0, 0);
  };
  if (info.format === 'RGBA') return put(new Uint8ClampedArray(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength));
  const natural = info.codedWidth === canvas.width && info.codedHeight === canvas.height;
  if (natural && s.opaque) {
    // A page that cannot compile WebAssembly gets null, once per source.
    if (s.yuv === undefined) s.yuv = yuvPixels(info);
    if (s.yuv) return put(s.yuv.convert(bytes));
  }
  const picture = new RealVideoFrame(bytes as Uint8Array<ArrayBuffer>, {
    format: info.format as VideoPixelFormat, codedWidth: info.codedWidth, codedHeight: info.codedHeight, timestamp: Math.round((s.time as number) * 1e6),
    colorSpace: { matrix: info.matrix as VideoMatrixCoefficients, fullRange: info.fullRange },
  });
  if (!natural) {
    // Drawn at the natural size: a sample aspect ratio stretches it as the browser would.
    realDrawImage.call(context, picture, 0, 0, canvas.width, canvas.height);
    picture.close();
    return;
  }
  const size = info.codedWidth * info.codedHeight * 4;
  if (s.rgba?.byteLength !== size) s.rgba = new Uint8ClampedArray(size);
  const pixels = s.rgba;
  return picture.copyTo(pixels, { format: 'RGBA', colorSpace: 'srgb' }).then(
    function () {
      picture.close();
      put(pixels);
    },
    function (err) { picture.close(); throw err; },
  );
}
