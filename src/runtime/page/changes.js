// --- whether a frame may look different from the one before ----------------------------------------
// A frame the page cannot have changed since the previous one is not drawn again: the renderer
// repeats the previous image. `changed` says it may have: a callback of the clock ran (clock.js),
// an animation, timeline, adapter or video moved, the DOM or a style sheet changed, a load arrived,
// or a canvas was painted.
var changed = true;
var mutations = new MutationObserver(function () { changed = true; });
mutations.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
// Motion the clock does not drive (SVG animation, animated images, a canvas a worker draws on) may
// change any frame: such pages never skip a draw.
var UNCONTROLLED = 'animate, animateMotion, animateTransform, set, img[src*=".gif" i], img[src^="data:image/gif" i]';
var drawnElsewhere = false;
function hasUncontrolledMotion() { return drawnElsewhere || document.querySelector(UNCONTROLLED) !== null; }
if (typeof HTMLCanvasElement.prototype.transferControlToOffscreen === 'function') {
  var toOffscreen = HTMLCanvasElement.prototype.transferControlToOffscreen;
  HTMLCanvasElement.prototype.transferControlToOffscreen = function () {
    drawnElsewhere = true;
    return toOffscreen.apply(this, arguments);
  };
}

// Outside the clock, what arrives between two frames (an image, a fetch's body, a font: each has a
// resource entry or a load event) and what a script then does with it (paints a canvas in an
// image's load handler or when a decode's promise settles, adds a style sheet rule) change the
// picture with no DOM change.
var arrivals = typeof PerformanceObserver === 'function' ? new PerformanceObserver(function () { changed = true; }) : null;
if (arrivals) arrivals.observe({ type: 'resource' });
function arrivedSinceLastFrame() { return arrivals !== null && arrivals.takeRecords().length > 0; }
document.addEventListener('load', function () { changed = true; }, true);
document.addEventListener('error', function () { changed = true; }, true);
if (document.fonts) document.fonts.addEventListener('loadingdone', function () { changed = true; });
// The calls that put pixels on a canvas or change a style sheet.
var DRAWS = {
  CanvasRenderingContext2D: ['clearRect', 'fillRect', 'strokeRect', 'fillText', 'strokeText', 'fill', 'stroke', 'drawImage', 'putImageData', 'reset'],
  WebGLRenderingContext: ['clear', 'drawArrays', 'drawElements'],
  WebGL2RenderingContext: ['clear', 'drawArrays', 'drawElements', 'drawArraysInstanced', 'drawElementsInstanced', 'drawRangeElements', 'blitFramebuffer'],
  ImageBitmapRenderingContext: ['transferFromImageBitmap'],
  CSSStyleSheet: ['insertRule', 'deleteRule', 'addRule', 'removeRule', 'replace', 'replaceSync'],
};
Object.keys(DRAWS).forEach(function (name) {
  var proto = window[name] && window[name].prototype;
  if (!proto) return;
  DRAWS[name].forEach(function (method) {
    var draw = proto[method];
    if (typeof draw !== 'function') return;
    proto[method] = function () {
      changed = true;
      return draw.apply(this, arguments);
    };
  });
});
// Style sheets adopted by the document or a shadow root.
[Document.prototype, ShadowRoot.prototype].forEach(function (proto) {
  var adopted = Object.getOwnPropertyDescriptor(proto, 'adoptedStyleSheets');
  if (!adopted || !adopted.set) return;
  Object.defineProperty(proto, 'adoptedStyleSheets', {
    configurable: true,
    enumerable: adopted.enumerable,
    get: adopted.get,
    set: function (sheets) {
      changed = true;
      adopted.set.call(this, sheets);
    },
  });
});
