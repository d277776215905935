// The page runtime's clocks and randomness: the virtual time every part of the runtime reads,
// Date, performance.now, timers and requestAnimationFrame driven by it, and seeded replacements
// for Math.random and crypto. It reads its configuration from `window.__vidkitBoot` =
// { variables, overrides, fps, seed, epochMs, transparent, fontsUrl } (src/runtime/boot.ts builds it).
// This file and its neighbours are parts of one script: src/runtime/runtime.ts joins them, in
// the order it lists, inside one function.
var boot = window.__vidkitBoot || {};
var fps = boot.fps || 30;
// Every chunk of one render shares the same epoch, so Date agrees across chunk seams.
var epochMs = typeof boot.epochMs === 'number' ? boot.epochMs : 0;
var seed = String(boot.seed);
var variables = boot.variables || {};

var real = {
  setTimeout: window.setTimeout.bind(window),
  requestAnimationFrame: window.requestAnimationFrame.bind(window),
  Date: window.Date,
};

var nowMs = 0;
var frame = -1;

// --- Date and performance.now ---------------------------------------------------------------
var RealDate = real.Date;
function VirtualDate() {
  if (!new.target) return new RealDate(epochMs + nowMs).toString();
  var args = arguments.length ? Array.prototype.slice.call(arguments) : [epochMs + nowMs];
  return Reflect.construct(RealDate, args, new.target);
}
VirtualDate.prototype = RealDate.prototype;
VirtualDate.now = function () { return epochMs + nowMs; };
VirtualDate.parse = RealDate.parse;
VirtualDate.UTC = RealDate.UTC;
Object.defineProperty(VirtualDate, 'name', { value: 'Date' });
window.Date = VirtualDate;
Object.defineProperty(performance, 'now', { value: function () { return nowMs; }, configurable: true });
// timeOrigin + now() is another way to read the wall clock; it reads the virtual one.
Object.defineProperty(performance, 'timeOrigin', { value: epochMs, configurable: true });

// --- Math.random, crypto.getRandomValues, crypto.randomUUID -------------------------------------
// sfc32 generators seeded from a cyrb128 hash of the seed (both from bryc's PRNG notes): the
// numbers depend only on the seed and the order of the page's calls, which every worker, chunk,
// re-render and the player repeat (load runs the same scripts; seeking steps through every frame).
// Math.random and crypto draw from separate streams, so crypto calls, e.g. a library's ids, do not
// shift the numbers that place the page's shapes.
function cyrb128(str) {
  var h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762;
  for (var i = 0, k; i < str.length; i++) {
    k = str.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4; h2 ^= h1; h3 ^= h1; h4 ^= h1;
  return [h1, h2, h3, h4];
}
// Returns a function giving the next unsigned 32-bit number.
function sfc32(key) {
  var a = key[0] | 0, b = key[1] | 0, c = key[2] | 0, d = key[3] | 0;
  function next() {
    var t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  }
  // The first outputs still resemble the hash.
  for (var i = 0; i < 15; i++) next();
  return next;
}
var nextMath = sfc32(cyrb128('Math.random:' + seed));
var nextCrypto = sfc32(cyrb128('crypto:' + seed));
// 53 random bits, the full precision of a double in [0, 1), as the browser's own gives.
Math.random = function random() { return ((nextMath() >>> 5) * 67108864 + (nextMath() >>> 6)) / 9007199254740992; };
function fillRandom(bytes) {
  for (var i = 0; i < bytes.length; i += 4) {
    var word = nextCrypto();
    for (var j = 0; j < 4 && i + j < bytes.length; j++) bytes[i + j] = (word >>> (8 * j)) & 255;
  }
}
var CryptoProto = window.Crypto.prototype;
var realGetRandomValues = CryptoProto.getRandomValues;
var realRandomUUID = CryptoProto.randomUUID;
// Each replacement first makes the browser's own call, which checks the receiver and the argument
// and throws exactly what the browser would: TypeMismatchError for a float array or a DataView,
// QuotaExceededError over 65536 bytes.
CryptoProto.getRandomValues = function getRandomValues(array) {
  realGetRandomValues.call(this, array);
  fillRandom(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
  return array;
};
// randomUUID exists only in secure contexts (https, localhost, the player's srcdoc in either).
if (typeof realRandomUUID === 'function') {
  CryptoProto.randomUUID = function randomUUID() {
    realRandomUUID.call(this);
    var b = new Uint8Array(16);
    fillRandom(b);
    b[6] = (b[6] & 0x0f) | 0x40; // version 4
    b[8] = (b[8] & 0x3f) | 0x80; // variant 10xx
    var hex = '';
    for (var i = 0; i < 16; i++) hex += (b[i] + 256).toString(16).slice(1);
    return hex.slice(0, 8) + '-' + hex.slice(8, 12) + '-' + hex.slice(12, 16) + '-' + hex.slice(16, 20) + '-' + hex.slice(20);
  };
}

// --- timers -------------------------------------------------------------------------------------
var timers = new Map();
var nextTimerId = 1;
// Browsers clamp nested intervals to 4 ms; doing the same keeps a zero interval from looping forever.
var MIN_INTERVAL_MS = 4;
function addTimer(cb, delay, args, repeat) {
  var id = nextTimerId++;
  var ms = Math.max(0, Number(delay) || 0);
  var fn = typeof cb === 'function' ? cb : new Function(String(cb));
  timers.set(id, { due: nowMs + ms, fn: fn, args: args, interval: repeat ? Math.max(MIN_INTERVAL_MS, ms) : 0 });
  return id;
}
window.setTimeout = function (cb, delay) { return addTimer(cb, delay, Array.prototype.slice.call(arguments, 2), false); };
window.setInterval = function (cb, delay) { return addTimer(cb, delay, Array.prototype.slice.call(arguments, 2), true); };
window.clearTimeout = window.clearInterval = function (id) { timers.delete(id); };

// Fires every timer due at or before `untilMs`, earliest first, each at its own due time.
var MAX_TIMER_CALLS = 1000000;
function runTimers(untilMs) {
  for (var calls = 0; ; calls++) {
    if (calls > MAX_TIMER_CALLS) throw new Error('vidkit: timers keep scheduling each other without time passing');
    var nextId = -1, next = null;
    timers.forEach(function (t, id) {
      if (t.due <= untilMs && (next === null || t.due < next.due || (t.due === next.due && id < nextId))) { next = t; nextId = id; }
    });
    if (next === null) return;
    nowMs = Math.max(nowMs, next.due);
    if (next.interval) next.due += next.interval; else timers.delete(nextId);
    next.fn.apply(window, next.args);
    changed = true;
    // A callback may start animations or add media: they began at this timer's time.
    registerAnimations();
    registerMedia();
  }
}

// --- requestAnimationFrame ------------------------------------------------------------------------
var rafCallbacks = new Map();
var nextRafId = 1;
window.requestAnimationFrame = function (cb) { var id = nextRafId++; rafCallbacks.set(id, cb); return id; };
window.cancelAnimationFrame = function (id) { rafCallbacks.delete(id); };
function runAnimationFrame(timeMs) {
  var due = rafCallbacks;
  rafCallbacks = new Map();
  due.forEach(function (cb) { cb(timeMs); });
  if (due.size > 0) {
    changed = true;
    registerAnimations();
    registerMedia();
  }
}

