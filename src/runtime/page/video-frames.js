// --- <video> pictures from the renderer's decoder ------------------------------------------------
// While rendering (docs/reference/formats.md, "Media on the timeline"), a <video> playing an http(s) URL never loads in
// the browser: the renderer installs a DevTools binding, window.__vidkitVideoFrames (and sets
// boot.videoFrames), and this part
// asks it for each video's picture at each frame. The renderer decodes the source with libav,
// writes the picture raw to a file (its 8-bit YUV planes as decoded, else RGBA) and hands the
// file to a hidden <input type=file> of the element (DOM.setFileInputFiles: a local file read,
// measured ~4x cheaper than the same bytes through fetch). The planes are painted into a canvas
// as a WebCodecs VideoFrame of the source's matrix and range, so Chromium converts them with the
// code that converts its own video (measured bit-exact against the browser's picture of the same
// frame); RGBA with putImageData. Both happen before the frame's animation callbacks run, so the
// picture is in the page before the begin-frame that captures it.
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
// (media.js), and so does every video in <vidkit-player>, which has no such binding.
// The binding arrives after this script has run, so it is looked up when first used.
var videoChannel = boot.videoFrames === true;
var decodedVideos = new Map();
var nextVideoId = 1;
var videoCalls = new Map();
var nextVideoCall = 1;
var HAVE_ENOUGH_DATA = 4;
var RealVideoFrame = window.VideoFrame;
var realDrawImage = window.CanvasRenderingContext2D.prototype.drawImage;

// The URL a video plays when the renderer can decode it, else null.
function decodableSource(el) {
  if (!videoChannel || el.tagName !== 'VIDEO' || el.srcObject != null) return null;
  var url = el.getAttribute('src') !== null ? el.src : '';
  if (!url) {
    var source = el.querySelector('source[src]');
    url = source ? source.src : '';
  }
  return /^https?:/i.test(url) ? url : null;
}
// Keeps the browser from loading the source (the load starts in a task after the element gets
// its src, so this runs first when called from a mutation record or a src setter).
function withhold(el) {
  if (el.getAttribute('preload') !== 'none') el.preload = 'none';
  if (el.autoplay) el.autoplay = false;
}
function videoState(el) {
  var state = decodedVideos.get(el);
  if (state) return state;
  state = {
    id: nextVideoId++, src: null, asked: null, info: null, canvas: null, context: null, input: document.createElement('input'),
    host: null, hostStyle: '', time: null, painted: false, paused: true, offset: fragmentStart(el), presented: 0, callbacks: [],
  };
  state.input.type = 'file';
  decodedVideos.set(el, state);
  return state;
}
// A `#t=` media fragment's start, as a browser applies it.
function fragmentStart(el) {
  var m = /#t=(?:npt:)?([\d.]+)/.exec(el.getAttribute('src') || '');
  return m ? Number(m[1]) : 0;
}
// Takes over every video of `elements` whose source the renderer decodes.
function adoptVideos(elements) {
  elements.forEach(function (el) {
    var src = decodableSource(el);
    if (src === null) return;
    withhold(el);
    var state = videoState(el);
    if (state.src === src) return;
    state.src = src;
    state.info = null;
    state.painted = false;
    state.time = null;
  });
}
// The videos whose source (new, or changed) the renderer has not been asked to open.
function unopenedVideos() {
  var list = [];
  decodedVideos.forEach(function (state) { if (state.asked !== state.src) list.push(state); });
  return list;
}
function allVideos() {
  var list = Array.prototype.slice.call(document.querySelectorAll('video'));
  decodedVideos.forEach(function (state, el) { if (list.indexOf(el) < 0) list.push(el); });
  return list;
}

// --- the renderer's answers -------------------------------------------------------------------
// Asks the renderer about `videos` ([{ id, src } to open, { id, time } for a picture]); `handle`
// gets its answer, [{ id, info | missing, written }], and the promise settles once it has.
function askRenderer(videos, handle) {
  var call = nextVideoCall++;
  return new Promise(function (resolve, reject) {
    videoCalls.set(call, { handle: handle, resolve: resolve, reject: reject });
    window.__vidkitVideoFrames(JSON.stringify({ call: call, videos: videos }));
  });
}
// window.__vidkit.__videoReply: the renderer awaits the returned promise before it removes the
// files it handed over.
function videoReply(call, answer) {
  var pending = videoCalls.get(call);
  if (!pending) return null;
  videoCalls.delete(call);
  if (answer.error) {
    pending.reject(new Error(answer.error));
    return null;
  }
  var done = Promise.resolve().then(function () { return pending.handle(answer.items); });
  done.then(pending.resolve, pending.reject);
  return done;
}
function stateById(id) {
  var found = null;
  decodedVideos.forEach(function (state) { if (state.id === id) found = state; });
  return found;
}

// Opens the sources of `states`; resolves once each element reports its metadata.
function openVideos(states) {
  if (states.length === 0) return null;
  states.forEach(function (s) { s.asked = s.src; });
  return askRenderer(states.map(function (s) { return { id: s.id, src: s.src }; }), function (items) {
    items.forEach(function (item) {
      var state = stateById(item.id);
      var el = elementOf(state);
      if (!state || !el) return;
      // A source that is missing (--allow-missing-media) or has no video shows nothing.
      if (!item.info) return;
      state.info = item.info;
      if (!state.canvas) {
        state.canvas = document.createElement('canvas');
        state.context = state.canvas.getContext('2d');
      }
      state.canvas.width = item.info.width;
      state.canvas.height = item.info.height;
      // A picture replaces the one before, transparent parts included.
      state.context.globalCompositeOperation = 'copy';
      el.poster = 'data:image/svg+xml,' + encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="' + item.info.width + '" height="' + item.info.height + '"/>');
      ['durationchange', 'loadedmetadata', 'loadeddata', 'canplay', 'canplaythrough'].forEach(function (type) { el.dispatchEvent(new Event(type)); });
    });
  });
}
function elementOf(state) {
  var found = null;
  decodedVideos.forEach(function (s, el) { if (s === state) found = el; });
  return found;
}

// --- pictures ------------------------------------------------------------------------------------
// The source time a video shows at the current frame, as HyperFrames samples it: its own time
// from its start at its rate, taken on the render's frame grid; a looping clip repeats the span
// from its playback start to the end of its video stream, a looping element of the page (no
// data-start) its whole source, as a browser loops it.
function videoSourceTime(el, state) {
  var m = media.get(el);
  var place = m ? mediaPlacement(el, m) : { start: 0, offset: state.offset, rate: el.playbackRate || 1, end: Infinity };
  var local = Math.max(0, Math.min(nowMs / 1000, place.end) - place.start);
  var clip = el.hasAttribute('data-start');
  if (clip && el.loop) {
    var period = (state.info.videoDurationSeconds - place.offset) / place.rate;
    if (period > 0) local %= period;
  }
  var t = place.offset + Math.floor(local * place.rate * fps + 1e-9) / fps;
  var d = state.info.durationSeconds;
  if (!clip && el.loop && d > 0) t %= d;
  return t;
}
// Asks for the picture of every video whose time moved; null when none did, else a promise that
// settles once the new pictures are painted (and requestVideoFrameCallback callbacks have run).
function videoPictures() {
  if (!videoChannel) return null;
  forgetTiming();
  registerMedia();
  adoptVideos(allVideos());
  var opening = openVideos(unopenedVideos());
  if (opening) return opening.then(videoPictures);
  var asked = [];
  decodedVideos.forEach(function (state, el) {
    if (!state.info) return;
    // A clip outside its window shows nothing: its picture can wait until it is shown.
    if (el.isConnected && el.hasAttribute('data-start') && !timing().shownAt(el, frame)) return;
    var t = videoSourceTime(el, state);
    if (state.painted && state.time === t) return;
    state.time = t;
    asked.push({ id: state.id, time: t });
  });
  if (asked.length === 0) return null;
  return askRenderer(asked, function (items) {
    return Promise.all(items.map(function (item) {
      var state = stateById(item.id);
      if (!state || !item.written) return null;
      return readPicture(state).then(function (bytes) {
        paintPicture(state, bytes);
        state.painted = true;
        state.presented += 1;
        changed = true;
        var callbacks = state.callbacks;
        state.callbacks = [];
        var metadata = {
          presentationTime: nowMs, expectedDisplayTime: nowMs, width: state.info.width, height: state.info.height,
          mediaTime: state.time, presentedFrames: state.presented, processingDuration: 0,
        };
        callbacks.forEach(function (c) { c.callback.call(elementOf(state), nowMs, metadata); });
      });
    }));
  });
}

// The file's bytes, read into the video's own buffer: a new ArrayBuffer for every picture left
// hundreds of MB for the garbage collector to find (ten 1080p videos: 120-280 MB).
function readPicture(state) {
  var file = state.input.files[0];
  if (!state.buffer || state.buffer.byteLength !== file.size) state.buffer = new ArrayBuffer(file.size);
  var reader = file.stream().getReader({ mode: 'byob' });
  var filled = 0;
  function next() {
    if (filled === state.buffer.byteLength) {
      reader.releaseLock();
      return new Uint8Array(state.buffer);
    }
    return reader.read(new Uint8Array(state.buffer, filled)).then(function (chunk) {
      if (chunk.done) throw new Error('a video picture file ended early');
      state.buffer = chunk.value.buffer;
      filled += chunk.value.byteLength;
      return next();
    });
  }
  return next();
}
function paintPicture(state, bytes) {
  var info = state.info;
  if (info.format === 'RGBA') {
    state.context.putImageData(new ImageData(new Uint8ClampedArray(bytes), info.codedWidth, info.codedHeight), 0, 0);
    return;
  }
  var picture = new RealVideoFrame(bytes, {
    format: info.format, codedWidth: info.codedWidth, codedHeight: info.codedHeight, timestamp: Math.round(state.time * 1e6),
    colorSpace: { matrix: info.matrix, fullRange: info.fullRange },
  });
  // Drawn at the natural size: a sample aspect ratio stretches it as the browser would.
  realDrawImage.call(state.context, picture, 0, 0, state.canvas.width, state.canvas.height);
  picture.close();
}

// --- the picture over the element --------------------------------------------------------------
// Each decoded video in the document gets its canvas drawn over its content box by a positioned
// next sibling (selectors see one element more there: `video + x` and :nth-child after it). The
// anchor gives the video's box as laid out after its own transform, so the sibling is placed at
// the untransformed box (found from the transformed corners) and given the same transform.
var FRAME_TAG = 'vidkit-video-frame';
var FRAME_EFFECTS = ['opacity', 'filter', 'mix-blend-mode', 'transform', 'translate', 'rotate', 'scale', 'visibility', 'backface-visibility', 'image-rendering'];
var FRAME_CLIPS = ['clip-path', 'mask-image', 'mask-size', 'mask-position', 'mask-repeat', 'mask-origin', 'mask-clip', 'mask-mode'];
function syncVideoFrames() {
  decodedVideos.forEach(function (state, el) {
    if (!state.canvas) return;
    if (!el.isConnected || !el.parentNode) {
      if (state.host && state.host.isConnected) state.host.remove();
      return;
    }
    if (!state.host) {
      state.host = document.createElement(FRAME_TAG);
      var root = state.host.attachShadow({ mode: 'closed' });
      state.canvas.style.cssText = 'display:block;width:100%;height:100%';
      root.appendChild(state.canvas);
    }
    if (el.nextSibling !== state.host) el.parentNode.insertBefore(state.host, el.nextSibling);
    var anchor = '--vidkit-video-' + state.id;
    if (el.style.getPropertyValue('anchor-name') !== anchor) el.style.setProperty('anchor-name', anchor);
    var style = frameStyle(getComputedStyle(el), anchor);
    if (style.host !== state.hostStyle) {
      state.hostStyle = style.host;
      state.host.style.cssText = style.host;
    }
    if (state.canvas.style.objectFit !== style.fit) state.canvas.style.objectFit = style.fit;
    if (state.canvas.style.objectPosition !== style.position) state.canvas.style.objectPosition = style.position;
  });
}
function frameStyle(cs, anchor) {
  var px = function (name) { return parseFloat(cs.getPropertyValue(name)) || 0; };
  var left = px('border-left-width') + px('padding-left');
  var top = px('border-top-width') + px('padding-top');
  var right = px('border-right-width') + px('padding-right');
  var bottom = px('border-bottom-width') + px('padding-bottom');
  var width = px('width');
  var height = px('height');
  if (cs.boxSizing !== 'border-box') {
    width += left + right;
    height += top + bottom;
  }
  var origin = cs.transformOrigin.split(' ').map(parseFloat);
  var corners = [[0, 0], [width, 0], [0, height], [width, height]].map(function (c) {
    return transformOf(cs, origin).transformPoint(new DOMPoint(c[0], c[1]));
  });
  var minX = Math.min.apply(null, corners.map(function (p) { return p.x; }));
  var minY = Math.min.apply(null, corners.map(function (p) { return p.y; }));
  var shown = cs.display !== 'none';
  var parts = [
    'position:' + (cs.position === 'fixed' ? 'fixed' : 'absolute') + '!important',
    'display:' + (shown ? 'block' : 'none') + '!important',
    'left:calc(anchor(' + anchor + ' left) + ' + (left - minX) + 'px)!important',
    'top:calc(anchor(' + anchor + ' top) + ' + (top - minY) + 'px)!important',
    'right:auto!important', 'bottom:auto!important',
    'width:' + Math.max(0, width - left - right) + 'px!important',
    'height:' + Math.max(0, height - top - bottom) + 'px!important',
    'margin:0!important', 'padding:0!important', 'border:0!important', 'box-sizing:content-box!important',
    'overflow:hidden!important', 'pointer-events:none!important', 'transition:none!important', 'animation:none!important',
    'z-index:' + (cs.position === 'static' ? 'auto' : cs.zIndex) + '!important',
    'transform-origin:' + (origin[0] - left) + 'px ' + (origin[1] - top) + 'px ' + (origin[2] || 0) + 'px!important',
  ];
  FRAME_EFFECTS.forEach(function (name) { parts.push(name + ':' + cs.getPropertyValue(name) + '!important'); });
  // The content box's corners: the outer radii less border and padding; its clip and mask are the
  // element's own, exact when it has no border or padding.
  [['top-left', left, top], ['top-right', right, top], ['bottom-right', right, bottom], ['bottom-left', left, bottom]].forEach(function (c) {
    var r = cs.getPropertyValue('border-' + c[0] + '-radius').split(' ');
    var rx = radius(r[0], width) - c[1];
    var ry = radius(r[1] || r[0], height) - c[2];
    parts.push('border-' + c[0] + '-radius:' + Math.max(0, rx) + 'px ' + Math.max(0, ry) + 'px!important');
  });
  FRAME_CLIPS.forEach(function (name) { parts.push(name + ':' + cs.getPropertyValue(name) + '!important'); });
  return { host: parts.join(';'), fit: cs.objectFit, position: cs.objectPosition };
}
function radius(value, size) { return /%$/.test(value) ? (parseFloat(value) / 100) * size : parseFloat(value) || 0; }
// The element's own transform about its origin: translate, rotate, scale, then transform.
function transformOf(cs, origin) {
  var m = new DOMMatrix().translate(origin[0], origin[1], origin[2] || 0);
  if (cs.translate !== 'none') {
    var t = cs.translate.split(' ');
    m = m.translate(parseFloat(t[0]), parseFloat(t[1] || '0'), parseFloat(t[2] || '0'));
  }
  if (cs.rotate !== 'none') {
    var r = cs.rotate.split(' ');
    var angle = parseFloat(r[r.length - 1]) * (/rad$/.test(cs.rotate) ? 180 / Math.PI : /turn$/.test(cs.rotate) ? 360 : 1);
    var axis = r.length === 4 ? r.slice(0, 3).map(Number) : r.length === 2 ? { x: [1, 0, 0], y: [0, 1, 0], z: [0, 0, 1] }[r[0]] : [0, 0, 1];
    m = m.rotateAxisAngle(axis[0], axis[1], axis[2], angle);
  }
  if (cs.scale !== 'none') {
    var s = cs.scale.split(' ');
    m = m.scale(parseFloat(s[0]), parseFloat(s[1] || s[0]), parseFloat(s[2] || '1'));
  }
  if (cs.transform !== 'none') m = m.multiply(new DOMMatrix(cs.transform));
  return m.translate(-origin[0], -origin[1], -(origin[2] || 0));
}

// --- what scripts see -------------------------------------------------------------------------------
function decodedPicture(source) {
  var state = source instanceof HTMLVideoElement ? decodedVideos.get(source) : null;
  return state && state.canvas ? state.canvas : source;
}
function substituteVideos(args) {
  for (var i = 0; i < args.length; i++) if (args[i] instanceof HTMLVideoElement) args[i] = decodedPicture(args[i]);
  return args;
}
function replaceMethod(proto, name, wrap) {
  if (!proto || typeof proto[name] !== 'function') return;
  var base = proto[name];
  Object.defineProperty(proto, name, { configurable: true, writable: true, value: wrap(base) });
}
function drawingTakesPicture(base) {
  return function () { return base.apply(this, substituteVideos(Array.prototype.slice.call(arguments))); };
}
function replaceVideoProperty(name, get, set) {
  var proto = HTMLVideoElement.prototype;
  var base = Object.getOwnPropertyDescriptor(proto, name) || Object.getOwnPropertyDescriptor(HTMLMediaElement.prototype, name);
  Object.defineProperty(proto, name, {
    configurable: true,
    enumerable: true,
    get: function () {
      var state = decodedVideos.get(this);
      return state ? get.call(this, state) : base.get.call(this);
    },
    set: base.set ? function (value) {
      var state = decodedVideos.get(this);
      if (state && set) set.call(this, state, value);
      else base.set.call(this, value);
    } : undefined,
  });
}
function replaceVideoMethod(name, own) {
  var proto = HTMLVideoElement.prototype;
  var base = proto[name];
  Object.defineProperty(proto, name, {
    configurable: true,
    writable: true,
    value: function () {
      // A script's own video (not in the document) is adopted when it is played or loaded.
      if (!decodedVideos.has(this) && decodableSource(this) !== null) adoptVideos([this]);
      var state = decodedVideos.get(this);
      return state ? own.apply(this, [state].concat(Array.prototype.slice.call(arguments))) : base.apply(this, arguments);
    },
  });
}
function queueEvents(el, types) {
  queueMicrotask(function () { types.forEach(function (type) { el.dispatchEvent(new Event(type)); }); });
}
function installVideoFrames() {
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
    // Before its first picture, where it starts (as media.js reads it); after, the timeline
    // decides, as before. Either way the page hears its seek end.
    var t = Number(value);
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
  var nextCallback = 1;
  replaceVideoMethod('requestVideoFrameCallback', function (s, callback) {
    var id = nextCallback++;
    s.callbacks.push({ id: id, callback: callback });
    return id;
  });
  replaceVideoMethod('cancelVideoFrameCallback', function (s, id) {
    s.callbacks = s.callbacks.filter(function (c) { return c.id !== id; });
  });
  // A script that sets src on its own video keeps the browser from loading it.
  var srcBase = Object.getOwnPropertyDescriptor(HTMLMediaElement.prototype, 'src');
  Object.defineProperty(HTMLVideoElement.prototype, 'src', {
    configurable: true,
    enumerable: true,
    get: srcBase.get,
    set: function (value) {
      srcBase.set.call(this, value);
      if (decodableSource(this) !== null) adoptVideos([this]);
    },
  });
  [window.CanvasRenderingContext2D, window.OffscreenCanvasRenderingContext2D].forEach(function (ctx) {
    if (!ctx) return;
    replaceMethod(ctx.prototype, 'drawImage', drawingTakesPicture);
    replaceMethod(ctx.prototype, 'createPattern', drawingTakesPicture);
  });
  [window.WebGLRenderingContext, window.WebGL2RenderingContext].forEach(function (gl) {
    if (!gl) return;
    ['texImage2D', 'texSubImage2D', 'texImage3D', 'texSubImage3D'].forEach(function (name) { replaceMethod(gl.prototype, name, drawingTakesPicture); });
  });
  replaceMethod(window, 'createImageBitmap', drawingTakesPicture);
  if (window.GPUQueue) {
    replaceMethod(window.GPUQueue.prototype, 'copyExternalImageToTexture', function (base) {
      return function (source) {
        var args = Array.prototype.slice.call(arguments);
        if (source && source.source instanceof HTMLVideoElement) args[0] = Object.assign({}, source, { source: decodedPicture(source.source) });
        return base.apply(this, args);
      };
    });
  }
  if (RealVideoFrame) {
    window.VideoFrame = new Proxy(RealVideoFrame, {
      construct: function (target, args, newTarget) {
        var state = args[0] instanceof HTMLVideoElement ? decodedVideos.get(args[0]) : null;
        if (state && state.canvas) {
          args = [state.canvas, Object.assign({ timestamp: Math.round((state.time || 0) * 1e6) }, args[1])];
        }
        return Reflect.construct(target, args, newTarget);
      },
    });
  }
  // Videos the parser or a script puts in the document: withheld before their load task runs.
  new MutationObserver(function (records) {
    records.forEach(function (record) {
      if (record.type === 'attributes') {
        if (record.target.tagName === 'VIDEO' && decodableSource(record.target) !== null) adoptVideos([record.target]);
        return;
      }
      record.addedNodes.forEach(function (node) {
        if (node.nodeType !== 1) return;
        var videos = node.tagName === 'VIDEO' ? [node] : Array.prototype.slice.call(node.querySelectorAll('video'));
        if (node.tagName === 'SOURCE' && node.parentElement && node.parentElement.tagName === 'VIDEO') videos.push(node.parentElement);
        adoptVideos(videos);
      });
    });
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['src'] });
}
if (videoChannel) installVideoFrames();
