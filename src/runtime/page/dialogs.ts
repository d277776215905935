// --- dialogs -----------------------------------------------------------------------------------------
// Nobody answers a dialog during a render. Where the renderer listens (it exposes the function
// `__vidkitDialog`, page-dialogs.ts), alert, confirm and prompt return at once what a dismissed
// dialog returns (undefined, false, null) and report their kind, their text and the frame whose
// time they came at, which every worker stepping through that time reports alike. Elsewhere (the
// player) they are the browser's own.
import { fps, state } from './state';

const DISMISSED = { alert: undefined, confirm: false, prompt: null };
type DialogKind = keyof typeof DISMISSED;

export function installDialogs(): void {
  (Object.keys(DISMISSED) as DialogKind[]).forEach(function (kind) {
    const own = window[kind] as (...args: unknown[]) => unknown;
    (window as unknown as Record<DialogKind, unknown>)[kind] = function (message?: unknown) {
      const report = window.__vidkitDialog;
      if (typeof report !== 'function') return own.apply(window, Array.prototype.slice.call(arguments));
      report(JSON.stringify({ kind: kind, text: message === undefined ? '' : String(message), frame: dialogFrame() }));
      return DISMISSED[kind];
    };
  });
}
// The first frame that shows what happened now, on the page's clock: an iframe's own clock only
// catches up with it once the page has stepped.
function dialogFrame(): number {
  let seconds = state.nowMs / 1000;
  try {
    const top = window.top;
    if (top !== window && top && top.__vidkit) seconds = top.__vidkit.time;
  } catch (err) {
    // A frame of another origin keeps its own clock, stepped to the same frames.
  }
  return Math.ceil(seconds * fps - 1e-6);
}
