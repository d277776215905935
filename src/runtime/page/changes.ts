// --- whether a frame may look different from the one before ----------------------------------------
// A frame the page cannot have changed since the previous one is not drawn again: the renderer
// repeats the previous image. `state.changed` says it may have: a callback of the clock ran
// (clock.ts), an animation, timeline, adapter or video moved, the DOM or a style sheet changed, a
// load arrived, or a canvas was painted.
import { isControlledImage } from './animated-images';
import { state } from './state';

/** Every DOM change of the page; seek.ts and loads.ts take its records. */
export const mutations = new MutationObserver(function () { state.changed = true; });
// Motion the clock does not drive (a GIF whose pictures animated-images.ts could not read, a
// canvas a worker draws on) may change any frame: such pages never skip a draw.
const GIFS = 'img[src*=".gif" i], img[src^="data:image/gif" i]';
let drawnElsewhere = false;
export function hasUncontrolledMotion(): boolean {
  return drawnElsewhere || Array.prototype.some.call(document.querySelectorAll(GIFS), function (img: Element) { return !isControlledImage(img); });
}

// Outside the clock, what arrives between two frames (an image, a fetch's body, a font: each has a
// resource entry or a load event) and what a script then does with it (paints a canvas in an
// image's load handler or when a decode's promise settles, adds a style sheet rule) change the
// picture with no DOM change.
const arrivals = typeof PerformanceObserver === 'function' ? new PerformanceObserver(function () { state.changed = true; }) : null;
export function arrivedSinceLastFrame(): boolean { return arrivals !== null && arrivals.takeRecords().length > 0; }
// The calls that put pixels on a canvas or change a style sheet.
const DRAWS: Record<string, string[]> = {
  CanvasRenderingContext2D: ['clearRect', 'fillRect', 'strokeRect', 'fillText', 'strokeText', 'fill', 'stroke', 'drawImage', 'putImageData', 'reset'],
  WebGLRenderingContext: ['clear', 'drawArrays', 'drawElements'],
  WebGL2RenderingContext: ['clear', 'drawArrays', 'drawElements', 'drawArraysInstanced', 'drawElementsInstanced', 'drawRangeElements', 'blitFramebuffer'],
  ImageBitmapRenderingContext: ['transferFromImageBitmap'],
  CSSStyleSheet: ['insertRule', 'deleteRule', 'addRule', 'removeRule', 'replace', 'replaceSync'],
};

export function installChanges(): void {
  mutations.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  if (typeof HTMLCanvasElement.prototype.transferControlToOffscreen === 'function') {
    const toOffscreen = HTMLCanvasElement.prototype.transferControlToOffscreen;
    HTMLCanvasElement.prototype.transferControlToOffscreen = function (this: HTMLCanvasElement) {
      drawnElsewhere = true;
      return toOffscreen.apply(this, arguments as unknown as []);
    };
  }
  if (arrivals) arrivals.observe({ type: 'resource' });
  document.addEventListener('load', function () { state.changed = true; }, true);
  document.addEventListener('error', function () { state.changed = true; }, true);
  if (document.fonts) document.fonts.addEventListener('loadingdone', function () { state.changed = true; });
  const win = window as unknown as Record<string, { prototype?: Record<string, unknown> } | undefined>;
  Object.keys(DRAWS).forEach(function (name) {
    const proto = win[name] && (win[name] as { prototype?: Record<string, unknown> }).prototype;
    if (!proto) return;
    DRAWS[name].forEach(function (method) {
      const draw = proto[method];
      if (typeof draw !== 'function') return;
      proto[method] = function (this: unknown) {
        state.changed = true;
        return draw.apply(this, arguments);
      };
    });
  });
  // Style sheets adopted by the document or a shadow root.
  [Document.prototype, ShadowRoot.prototype].forEach(function (proto) {
    const adopted = Object.getOwnPropertyDescriptor(proto, 'adoptedStyleSheets');
    if (!adopted || !adopted.set) return;
    const setAdopted = adopted.set;
    Object.defineProperty(proto, 'adoptedStyleSheets', {
      configurable: true,
      enumerable: adopted.enumerable,
      get: adopted.get,
      set: function (sheets) {
        state.changed = true;
        setAdopted.call(this, sheets);
      },
    });
  });
}
