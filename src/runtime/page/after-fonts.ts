// --- the page's scripts, once its fonts are in ------------------------------------------------------
// HyperFrames runs a composition's body scripts once the document is parsed and the fonts its text
// asks for have loaded (or after 5 s), so that text a script measures at load (a caption's width,
// a bar under a title) has the size it is drawn at. The project server marks those scripts
// (../after-fonts-scripts.ts) and this runs them: it lays the page out so its fonts start
// loading, waits for them, then runs the scripts in order. A `DOMContentLoaded` (or, once the page
// has loaded, `load`) listener they add is called once they have all run, as the events have passed.
// `document.write` in one of them inserts its markup after the script, as it would while parsing,
// instead of replacing the loaded document.
import { AFTER_FONTS_CLAIM, AFTER_FONTS_MODULE_TYPE, AFTER_FONTS_TYPE, runMarkedScripts } from '../after-fonts-scripts';
import { real } from './clock';
import { noteFailedLoad } from './loads';

export const FONT_WAIT_MS = 5000;

let scriptsRan: Promise<void> = Promise.resolve();
/** Settles once the page's marked scripts have run (at once when it has none). */
export function pageScriptsRan(): Promise<void> { return scriptsRan; }

function fontsLoaded(): Promise<void> {
  const fonts = document.fonts;
  if (!fonts) return Promise.resolve();
  // Layout asks for the faces the text needs; until then no load has started.
  void (document.body || document.documentElement).offsetHeight;
  let timer = 0;
  const late = new Promise<boolean>(function (resolve) { timer = real.setTimeout(function () { resolve(true); }, FONT_WAIT_MS); });
  return Promise.race([fonts.ready.then(function () { return false; }), late]).then(function (timedOut) {
    real.clearTimeout(timer);
    if (!timedOut) return;
    const loading: string[] = [];
    fonts.forEach(function (face) { if (face.status === 'loading' && loading.indexOf(face.family) < 0) loading.push(face.family); });
    noteFailedLoad('font ' + loading.join(', ') + ' (not loaded ' + FONT_WAIT_MS / 1000 + ' s after the page was parsed, when its scripts ran)');
  });
}

type Captured = { target: EventTarget; type: string; listener: EventListenerOrEventListenerObject };

// While the scripts run, listeners for the events that have passed are kept, to be called after.
function captureMissedEvents(target: Document | Window, captured: Captured[]): () => void {
  const own = Object.getOwnPropertyDescriptor(target, 'addEventListener');
  const add = target.addEventListener;
  const hooked = function (type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void {
    if (!listener) return;
    const passed = type === 'DOMContentLoaded' || (type === 'load' && target === window && document.readyState === 'complete');
    if (passed) captured.push({ target: target, type: type, listener: listener });
    else add.call(target, type, listener, options);
  };
  target.addEventListener = hooked;
  return function () {
    if (target.addEventListener !== hooked) return;
    if (own) Object.defineProperty(target, 'addEventListener', own);
    else delete (target as { addEventListener?: unknown }).addEventListener;
  };
}

// Markup a script writes goes after it, in the order written.
function writeAfterScript(): () => void {
  const write = document.write;
  const writeln = document.writeln;
  const ends = new WeakMap<Element, Comment>();
  const insert = function (markup: string): void {
    const script = document.currentScript;
    if (!script || !script.parentNode) return;
    let end = ends.get(script);
    if (!end) {
      end = document.createComment('');
      script.parentNode.insertBefore(end, script.nextSibling);
      ends.set(script, end);
    }
    const range = document.createRange();
    range.selectNode(end);
    end.parentNode!.insertBefore(range.createContextualFragment(markup), end);
  };
  document.write = function (...markup: string[]) { insert(markup.join('')); };
  document.writeln = function (...markup: string[]) { insert(markup.join('') + '\n'); };
  return function () {
    document.write = write;
    document.writeln = writeln;
  };
}

// `then` runs once the scripts have, before the listeners they added for the passed events.
function runScripts(then: () => void): Promise<void> {
  const captured: Captured[] = [];
  const restores = [captureMissedEvents(document, captured), captureMissedEvents(window, captured), writeAfterScript()];
  return runMarkedScripts(document).then(function () {
    restores.forEach(function (restore) { restore(); });
    then();
    captured.forEach(function (c) {
      const event = new Event(c.type);
      try {
        if (typeof c.listener === 'function') c.listener.call(c.target, event);
        else c.listener.handleEvent(event);
      } catch (err) {
        reportError(err);
      }
    });
  });
}

/**
 * Once the page is parsed, runs its marked scripts when its fonts are in, then `then` (what the
 * runtime sets up over the page's own objects, such as `window.__hf`); a page without marked
 * scripts gets `then` at once. Install it after the runtime's other work at that moment.
 */
export function installAfterFonts(then: () => void): void {
  (window as unknown as Record<string, unknown>)[AFTER_FONTS_CLAIM] = true;
  const start = function (): void {
    if (!document.querySelector('script[type="' + AFTER_FONTS_TYPE + '"], script[type="' + AFTER_FONTS_MODULE_TYPE + '"]')) then();
    else scriptsRan = fontsLoaded().then(function () { return runScripts(then); });
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
  else start();
}
