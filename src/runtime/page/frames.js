// --- same-origin iframes --------------------------------------------------------------------------
// A same-origin iframe runs a runtime of its own, with the same configuration: the renderer
// injects it into every frame before any script (as into the page), and where nothing did (the
// player's iframe) this runtime installs a copy of itself once the frame has loaded. Every frame
// of the page steps each iframe's clock to the same frame. Cross-origin frames are out of reach.
var ownSource = '(' + installVidkitRuntime.toString() + ')();';

// The windows of the page's iframes that this page may script and that hold their document.
function childWindows() {
  var wins = [];
  document.querySelectorAll('iframe').forEach(function (el) {
    var win;
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
function childRuntime(win) {
  if (!win.__vidkit) {
    win.__vidkitBoot = boot;
    win.eval(ownSource);
  }
  return win.__vidkit;
}
// Resolves once every iframe has loaded and its runtime is ready.
function framesReady() {
  var frames = Array.prototype.slice.call(document.querySelectorAll('iframe'));
  return Promise.all(frames.map(function (el) {
    var loadedNow;
    try {
      loadedNow = el.contentDocument === null || el.contentDocument.readyState === 'complete';
    } catch (err) {
      loadedNow = true;
    }
    var arrived = loadedNow ? Promise.resolve() : new Promise(function (resolve) { el.addEventListener('load', function () { resolve(); }, { once: true }); });
    return arrived.then(function () {
      var win = childWindows().indexOf(el.contentWindow) >= 0 ? el.contentWindow : null;
      return win ? childRuntime(win).__ready() : null;
    });
  }));
}
// Steps every iframe to `target`; their pending work goes into `waits`.
function seekFrames(target, waits) {
  childWindows().forEach(function (win) {
    var runtime = childRuntime(win);
    var result = runtime.__seekFrame(target);
    if (result && typeof result.then === 'function') waits.push(result);
    else if (result) changed = true;
  });
}
