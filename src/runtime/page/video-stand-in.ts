// --- what scripts see -------------------------------------------------------------------------------
// A video whose pictures the renderer decodes (video-frames.ts) reports the source as a loaded,
// paused video would, and its canvas stands in for it wherever a script draws or copies a video.
import { DecodedVideo, adoptVideos, decodableSource, decodedVideos } from './video-frames';

type Method = (this: unknown, ...args: unknown[]) => unknown;
type Prototype = Record<string, unknown> | undefined;

const HAVE_ENOUGH_DATA = 4;

function decodedPicture(source: unknown): unknown {
  const s = source instanceof HTMLVideoElement ? decodedVideos.get(source) : null;
  return s && s.canvas ? s.canvas : source;
}
function substituteVideos(args: unknown[]): unknown[] {
  for (let i = 0; i < args.length; i++) if (args[i] instanceof HTMLVideoElement) args[i] = decodedPicture(args[i]);
  return args;
}
function replaceMethod(proto: Prototype, name: string, wrap: (base: Method) => Method): void {
  if (!proto || typeof proto[name] !== 'function') return;
  const base = proto[name] as Method;
  Object.defineProperty(proto, name, { configurable: true, writable: true, value: wrap(base) });
}
function drawingTakesPicture(base: Method): Method {
  return function (this: unknown) { return base.apply(this, substituteVideos(Array.prototype.slice.call(arguments))); };
}
function replaceVideoProperty(name: string, get: (this: HTMLVideoElement, s: DecodedVideo) => unknown, set?: (this: HTMLVideoElement, s: DecodedVideo, value: unknown) => void): void {
  const proto = HTMLVideoElement.prototype;
  const base = (Object.getOwnPropertyDescriptor(proto, name) || Object.getOwnPropertyDescriptor(HTMLMediaElement.prototype, name)) as PropertyDescriptor;
  Object.defineProperty(proto, name, {
    configurable: true,
    enumerable: true,
    get: function (this: HTMLVideoElement) {
      const s = decodedVideos.get(this);
      return s ? get.call(this, s) : base.get!.call(this);
    },
    set: base.set ? function (this: HTMLVideoElement, value: unknown) {
      const s = decodedVideos.get(this);
      if (s && set) set.call(this, s, value);
      else base.set!.call(this, value);
    } : undefined,
  });
}
function replaceVideoMethod(name: string, own: (this: HTMLVideoElement, s: DecodedVideo, ...args: never[]) => unknown): void {
  const proto = HTMLVideoElement.prototype as unknown as Record<string, Method>;
  const base = proto[name];
  Object.defineProperty(proto, name, {
    configurable: true,
    writable: true,
    value: function (this: HTMLVideoElement) {
      // A script's own video (not in the document) is adopted when it is played or loaded.
      if (!decodedVideos.has(this) && decodableSource(this) !== null) adoptVideos([this]);
      const s = decodedVideos.get(this);
      return s ? (own as Method).apply(this, [s].concat(Array.prototype.slice.call(arguments))) : base.apply(this, Array.prototype.slice.call(arguments));
    },
  });
}
function queueEvents(el: EventTarget, types: string[]): void {
  queueMicrotask(function () { types.forEach(function (type) { el.dispatchEvent(new Event(type)); }); });
}
export function installVideoFrames(): void {
  replaceVideoProperty('duration', function (s) { return s.info ? s.info.durationSeconds : NaN; });
  replaceVideoProperty('videoWidth', function (s) { return s.info ? s.info.width : 0; });
  replaceVideoProperty('videoHeight', function (s) { return s.info ? s.info.height : 0; });
  replaceVideoProperty('readyState', function (s) { return s.info ? HAVE_ENOUGH_DATA : 0; });
  replaceVideoProperty('paused', function (s) { return s.paused; });
  replaceVideoProperty('seeking', function () { return false; });
  replaceVideoProperty('ended', function () { return false; });
  replaceVideoProperty('currentTime', function (s) {
    if (s.time === null) return s.offset;
    return s.info && s.info.durationSeconds > 0 ? Math.min(s.time, s.info.durationSeconds) : s.time;
  }, function (s, value) {
    // Before its first picture, where it starts (as media.ts reads it); after, the timeline
    // decides, as before. Either way the page hears its seek end.
    const t = Number(value);
    if (s.time === null && isFinite(t) && t >= 0) s.offset = t;
    queueEvents(this, ['seeking', 'timeupdate', 'seeked']);
  });
  replaceVideoMethod('play', function (s) {
    if (s.paused) {
      s.paused = false;
      queueEvents(this, ['play', 'playing']);
    }
    return Promise.resolve();
  });
  replaceVideoMethod('pause', function (s) {
    if (!s.paused) {
      s.paused = true;
      queueEvents(this, ['pause']);
    }
  });
  replaceVideoMethod('load', function (s) { s.asked = null; });
  let nextCallback = 1;
  replaceVideoMethod('requestVideoFrameCallback', function (s, callback: VideoFrameRequestCallback) {
    const id = nextCallback++;
    s.callbacks.push({ id: id, callback: callback });
    return id;
  });
  replaceVideoMethod('cancelVideoFrameCallback', function (s, id: number) {
    s.callbacks = s.callbacks.filter(function (c) { return c.id !== id; });
  });
  // A script that sets src on its own video keeps the browser from loading it.
  const srcBase = Object.getOwnPropertyDescriptor(HTMLMediaElement.prototype, 'src') as PropertyDescriptor;
  Object.defineProperty(HTMLVideoElement.prototype, 'src', {
    configurable: true,
    enumerable: true,
    get: srcBase.get,
    set: function (this: HTMLVideoElement, value: string) {
      srcBase.set!.call(this, value);
      if (decodableSource(this) !== null) adoptVideos([this]);
    },
  });
  const win = window as unknown as Record<string, { prototype: Prototype } | undefined>;
  [win.CanvasRenderingContext2D, win.OffscreenCanvasRenderingContext2D].forEach(function (ctx) {
    if (!ctx) return;
    replaceMethod(ctx.prototype, 'drawImage', drawingTakesPicture);
    replaceMethod(ctx.prototype, 'createPattern', drawingTakesPicture);
  });
  [win.WebGLRenderingContext, win.WebGL2RenderingContext].forEach(function (gl) {
    if (!gl) return;
    ['texImage2D', 'texSubImage2D', 'texImage3D', 'texSubImage3D'].forEach(function (name) { replaceMethod(gl.prototype, name, drawingTakesPicture); });
  });
  replaceMethod(window as unknown as Prototype, 'createImageBitmap', drawingTakesPicture);
  if (window.GPUQueue) {
    replaceMethod(window.GPUQueue.prototype, 'copyExternalImageToTexture', function (base) {
      return function (this: unknown, source: unknown) {
        const args = Array.prototype.slice.call(arguments);
        const copy = source as { source?: unknown } | null;
        if (copy && copy.source instanceof HTMLVideoElement) args[0] = Object.assign({}, copy, { source: decodedPicture(copy.source) });
        return base.apply(this, args);
      };
    });
  }
  const RealVideoFrame = window.VideoFrame;
  if (RealVideoFrame) {
    window.VideoFrame = new Proxy(RealVideoFrame, {
      construct: function (target, args, newTarget) {
        const s = args[0] instanceof HTMLVideoElement ? decodedVideos.get(args[0]) : null;
        if (s && s.canvas) {
          args = [s.canvas, Object.assign({ timestamp: Math.round((s.time || 0) * 1e6) }, args[1])];
        }
        return Reflect.construct(target, args, newTarget);
      },
    });
  }
  // Videos the parser or a script puts in the document: withheld before their load task runs.
  new MutationObserver(function (records) {
    records.forEach(function (record) {
      if (record.type === 'attributes') {
        const target = record.target as HTMLElement;
        if (target.tagName === 'VIDEO' && decodableSource(target) !== null) adoptVideos([target]);
        return;
      }
      record.addedNodes.forEach(function (added) {
        if (added.nodeType !== 1) return;
        const node = added as HTMLElement;
        const videos = node.tagName === 'VIDEO' ? [node] : (Array.prototype.slice.call(node.querySelectorAll('video')) as HTMLElement[]);
        if (node.tagName === 'SOURCE' && node.parentElement && node.parentElement.tagName === 'VIDEO') videos.push(node.parentElement);
        adoptVideos(videos);
      });
    });
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['src'] });
}
