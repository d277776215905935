// --- same-origin iframes --------------------------------------------------------------------------
// A same-origin iframe runs a runtime of its own, with the same configuration: the renderer
// injects it into every frame before any script (as into the page), and where nothing did (the
// player's iframe) this runtime installs a copy of itself once the frame has loaded. Every frame
// of the page steps each iframe's clock to the same frame. Cross-origin frames are out of reach.
import type { VidkitRuntime } from '../protocol';
import { boot, state } from './state';

// The function the bundle is wrapped in (src/runtime/page-bundle.ts): the whole runtime, whose
// text this copies into the frames.
declare function installVidkitRuntime(): void;
const ownSource = '(' + installVidkitRuntime.toString() + ')();';

// The windows of the page's iframes that this page may script and that hold their document.
function childWindows(): Window[] {
  const wins: Window[] = [];
  document.querySelectorAll('iframe').forEach(function (el) {
    let win;
    try {
      win = el.contentWindow;
      if (!win || !win.document || win.location.href === 'about:blank') return;
    } catch (err) {
      return;
    }
    wins.push(win);
  });
  return wins;
}
function childRuntime(win: Window): VidkitRuntime {
  if (!win.__vidkit) {
    win.__vidkitBoot = boot;
    (win as Window & { eval(source: string): unknown }).eval(ownSource);
  }
  return win.__vidkit as VidkitRuntime;
}
// Resolves once every iframe has loaded and its runtime is ready.
export function framesReady(): Promise<unknown> {
  const frames = Array.prototype.slice.call(document.querySelectorAll('iframe')) as HTMLIFrameElement[];
  return Promise.all(frames.map(function (el) {
    let loadedNow;
    try {
      loadedNow = el.contentDocument === null || el.contentDocument.readyState === 'complete';
    } catch (err) {
      loadedNow = true;
    }
    const arrived = loadedNow ? Promise.resolve() : new Promise<void>(function (resolve) { el.addEventListener('load', function () { resolve(); }, { once: true }); });
    return arrived.then(function () {
      const win = childWindows().indexOf(el.contentWindow as Window) >= 0 ? el.contentWindow : null;
      return win ? childRuntime(win).__ready() : null;
    });
  }));
}
// Steps every iframe to `target`; their pending work goes into `waits`.
export function seekFrames(target: number, waits: Promise<unknown>[]): void {
  childWindows().forEach(function (win) {
    const runtime = childRuntime(win);
    const result = runtime.__seekFrame(target);
    if (result && typeof (result as Promise<unknown>).then === 'function') waits.push(result as Promise<unknown>);
    else if (result) state.changed = true;
  });
}
