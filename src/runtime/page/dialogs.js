// --- dialogs -----------------------------------------------------------------------------------------
// Nobody answers a dialog during a render. Where the renderer listens (it exposes the function
// `__vidkitDialog`, page-dialogs.ts), alert, confirm and prompt return at once what a dismissed
// dialog returns (undefined, false, null) and report their kind, their text and the frame whose
// time they came at, which every worker stepping through that time reports alike. Elsewhere (the
// player) they are the browser's own.
var DISMISSED = { alert: undefined, confirm: false, prompt: null };
Object.keys(DISMISSED).forEach(function (kind) {
  var own = window[kind];
  window[kind] = function (message) {
    var report = window.__vidkitDialog;
    if (typeof report !== 'function') return own.apply(window, arguments);
    report(JSON.stringify({ kind: kind, text: message === undefined ? '' : String(message), frame: dialogFrame() }));
    return DISMISSED[kind];
  };
});
// The first frame that shows what happened now, on the page's clock: an iframe's own clock only
// catches up with it once the page has stepped.
function dialogFrame() {
  var seconds = nowMs / 1000;
  try {
    if (window.top !== window && window.top.__vidkit) seconds = window.top.__vidkit.time;
  } catch (err) {
    // A frame of another origin keeps its own clock, stepped to the same frames.
  }
  return Math.ceil(seconds * fps - 1e-6);
}
