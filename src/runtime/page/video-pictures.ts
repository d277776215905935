// --- each frame's pictures of the decoded videos -------------------------------------------------
// At each frame drawn, every video the renderer decodes (video-frames.ts) whose source time moved
// gets its picture: asked of the renderer, read from the file it hands over, converted and painted
// on the video's canvas, before the frame's animation callbacks run (seek.ts).
import type { VideoInfo, VideoRequest } from '../protocol';
import { Placement, media, mediaPlacement, registerMedia } from './media';
import { real } from './clock';
import { fps, state, videoChannel } from './state';
import { compositionDuration, forgetTiming, timing } from './timing';
import { DecodedVideo, adoptVideos, allVideos, askRenderer, decodedVideos, elementOf, openVideos, stateById, unopenedVideos, useCanvas } from './video-frames';
import { yuvPixels } from './yuv-pixels';

const RealVideoFrame = window.VideoFrame;
// The overload that scales, which is the one this calls.
const realDrawImage = window.CanvasRenderingContext2D.prototype.drawImage as (this: CanvasRenderingContext2D, image: CanvasImageSource, dx: number, dy: number, dw: number, dh: number) => void;

// The source time a video shows at the current frame, as HyperFrames samples it: its own time
// from its start at its rate, taken on the render's frame grid; a looping clip repeats the span
// from its playback start to the end of its video stream, a looping element of the page (no
// data-start) its whole source, as a browser loops it.
function videoSourceTime(el: HTMLVideoElement, s: DecodedVideo, compositionEnd: () => number): number {
  const info = s.info as VideoInfo;
  const m = media.get(el);
  const place = m ? mediaPlacement(el, m) : { start: 0, offset: s.offset, rate: el.playbackRate || 1, end: Infinity };
  let local = Math.max(0, Math.min(state.nowMs / 1000, place.end) - place.start);
  const clip = el.hasAttribute('data-start');
  if (clip && el.loop) {
    const period = (info.videoDurationSeconds - place.offset) / place.rate;
    if (period > 0) local %= period;
  }
  let index = Math.floor(local * place.rate * fps + 1e-9);
  if (clip && !el.loop) index = Math.min(index, lastFrameIndex(place, info, compositionEnd()));
  let t = place.offset + index / fps;
  const d = info.durationSeconds;
  if (!clip && el.loop && d > 0) t %= d;
  return t;
}
// The last frame a clip shows, as HyperFrames extracts its frames: its visible span (until its end,
// the composition's end or its source's end) at the render's rate, rounded to the nearest frame
// (ffmpeg's fps filter). A span of 10.24 s at 30 fps has 307 frames: the clip's last composition
// frame (307, at 10.233 s) shows its frame 306 again, not 307.
function lastFrameIndex(place: Placement, info: VideoInfo, compositionEnd: number): number {
  const source = (info.videoDurationSeconds - place.offset) / place.rate;
  const visible = Math.min(place.end, compositionEnd, place.start + source) - place.start;
  // Nudged up: 2.05 s at 30 fps is 61.5 frames, which a float product puts a hair below.
  const frames = Math.round(visible * place.rate * fps + 1e-6);
  return frames > 0 ? frames - 1 : Infinity;
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
  // Read at most once a frame: a page without data-duration counts it from every clip.
  let end: number | null = null;
  const compositionEnd = function (): number {
    if (end === null) end = compositionDuration();
    return end;
  };
  decodedVideos.forEach(function (s, el) {
    if (!s.info) return;
    // A clip outside its window shows nothing: its picture can wait until it is shown.
    if (el.isConnected && el.hasAttribute('data-start') && !timing().shownAt(el, state.frame)) return;
    const t = videoSourceTime(el, s, compositionEnd);
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

// How long each read of a picture file may take before it is abandoned and the file read again.
// Chromium now and then leaves a read of such a file unanswered, with no error (about one 1080x1920
// render in twenty, one read at a time): the frame then waited out its whole timeout and the render
// failed. A read takes milliseconds; the longer tries are for a machine that is very busy, and all
// of them end well within the frame timeout.
const READ_DEADLINES_MS = [1000, 2000, 4000, 8000];

// The file's bytes, read into the video's own buffer: a new ArrayBuffer for every picture left
// hundreds of MB for the garbage collector to find (ten 1080p videos: 120-280 MB).
function readPicture(s: DecodedVideo, attempt = 0): Promise<Uint8Array> {
  const file = (s.input.files as FileList)[0];
  const read = readPictureOnce(s, file);
  return new Promise<Uint8Array>(function (resolve, reject) {
    let late = false;
    const timer = real.setTimeout(function () {
      // What the abandoned read settles with (a cancelled read ends empty) is ignored.
      late = true;
      read.abandon();
      if (attempt + 1 < READ_DEADLINES_MS.length) readPicture(s, attempt + 1).then(resolve, reject);
      else reject(new Error('the browser did not read the picture of ' + s.src + ' at ' + (s.time as number).toFixed(3) + ' s in ' + READ_DEADLINES_MS.length + ' tries'));
    }, READ_DEADLINES_MS[attempt]);
    read.bytes.then(
      function (bytes) { if (!late) { real.clearTimeout(timer); resolve(bytes); } },
      function (err) { if (!late) { real.clearTimeout(timer); reject(err); } },
    );
  });
}

// One read of `file` through a BYOB reader. An abandoned read is cancelled and never touches the
// video's buffer again: the next read takes a new one (the buffer it was reading into went with it).
function readPictureOnce(s: DecodedVideo, file: File): { bytes: Promise<Uint8Array>; abandon(): void } {
  if (!s.buffer || s.buffer.byteLength !== file.size) s.buffer = new ArrayBuffer(file.size);
  const reader = file.stream().getReader({ mode: 'byob' });
  let abandoned = false;
  let filled = 0;
  function next(): Promise<Uint8Array> | Uint8Array {
    const buffer = s.buffer as ArrayBuffer;
    if (filled === buffer.byteLength) {
      reader.releaseLock();
      return new Uint8Array(buffer);
    }
    return reader.read(new Uint8Array(buffer, filled)).then(function (chunk) {
      if (abandoned) return new Uint8Array(0);
      if (chunk.done) throw new Error('a video picture file ended early');
      s.buffer = chunk.value.buffer as ArrayBuffer;
      filled += chunk.value.byteLength;
      return next();
    });
  }
  return {
    bytes: Promise.resolve().then(next),
    abandon: function () {
      abandoned = true;
      s.buffer = undefined;
      reader.cancel().catch(function () { return undefined; });
    },
  };
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
