// The page runtime's clocks and randomness: the virtual time every part of the runtime reads,
// Date, performance.now, timers and requestAnimationFrame driven by it, and seeded replacements
// for Math.random and crypto. What the page's callbacks start is for the caller (seek.ts) to note,
// through the `started` it passes, so the clock sits below the animations and media it affects.
import { epochMs, seed, state } from './state';

/** The browser's own timers, Date and fetch, which the runtime's own waits and requests use. */
export const real = {
  setTimeout: window.setTimeout.bind(window),
  clearTimeout: window.clearTimeout.bind(window),
  fetch: window.fetch.bind(window),
  requestAnimationFrame: window.requestAnimationFrame.bind(window),
  Date: window.Date,
};

// --- Date and performance.now ---------------------------------------------------------------
const RealDate = real.Date;
function VirtualDate(this: unknown, ...args: unknown[]): unknown {
  if (!new.target) return new RealDate(epochMs + state.nowMs).toString();
  return Reflect.construct(RealDate, args.length ? args : [epochMs + state.nowMs], new.target);
}
VirtualDate.prototype = RealDate.prototype;
VirtualDate.now = function () { return epochMs + state.nowMs; };
VirtualDate.parse = RealDate.parse;
VirtualDate.UTC = RealDate.UTC;

// --- Math.random, crypto.getRandomValues, crypto.randomUUID -------------------------------------
// sfc32 generators seeded from a cyrb128 hash of the seed (both from bryc's PRNG notes): the
// numbers depend only on the seed and the order of the page's calls, which every worker, chunk,
// re-render and the player repeat (load runs the same scripts; seeking steps through every frame).
// Math.random and crypto draw from separate streams, so crypto calls, e.g. a library's ids, do not
// shift the numbers that place the page's shapes.
function cyrb128(str: string): number[] {
  let h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762;
  for (let i = 0, k; i < str.length; i++) {
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
function sfc32(key: number[]): () => number {
  let a = key[0] | 0, b = key[1] | 0, c = key[2] | 0, d = key[3] | 0;
  function next(): number {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  }
  // The first outputs still resemble the hash.
  for (let i = 0; i < 15; i++) next();
  return next;
}
const nextMath = sfc32(cyrb128('Math.random:' + seed));
const nextCrypto = sfc32(cyrb128('crypto:' + seed));
function fillRandom(bytes: Uint8Array): void {
  for (let i = 0; i < bytes.length; i += 4) {
    const word = nextCrypto();
    for (let j = 0; j < 4 && i + j < bytes.length; j++) bytes[i + j] = (word >>> (8 * j)) & 255;
  }
}

function installRandomness(): void {
  // 53 random bits, the full precision of a double in [0, 1), as the browser's own gives.
  Math.random = function random() { return ((nextMath() >>> 5) * 67108864 + (nextMath() >>> 6)) / 9007199254740992; };
  const CryptoProto = window.Crypto.prototype;
  const realGetRandomValues = CryptoProto.getRandomValues;
  const realRandomUUID: (() => string) | undefined = CryptoProto.randomUUID;
  // Each replacement first makes the browser's own call, which checks the receiver and the argument
  // and throws exactly what the browser would: TypeMismatchError for a float array or a DataView,
  // QuotaExceededError over 65536 bytes.
  CryptoProto.getRandomValues = function getRandomValues<T extends ArrayBufferView | null>(this: Crypto, array: T): T {
    realGetRandomValues.call(this, array as unknown as ArrayBufferView);
    const view = array as ArrayBufferView;
    fillRandom(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
    return array;
  };
  // randomUUID exists only in secure contexts (https, localhost, the player's srcdoc in either).
  if (typeof realRandomUUID === 'function') {
    CryptoProto.randomUUID = function randomUUID(this: Crypto) {
      realRandomUUID.call(this);
      const b = new Uint8Array(16);
      fillRandom(b);
      b[6] = (b[6] & 0x0f) | 0x40; // version 4
      b[8] = (b[8] & 0x3f) | 0x80; // variant 10xx
      let hex = '';
      for (let i = 0; i < 16; i++) hex += (b[i] + 256).toString(16).slice(1);
      return (hex.slice(0, 8) + '-' + hex.slice(8, 12) + '-' + hex.slice(12, 16) + '-' + hex.slice(16, 20) + '-' + hex.slice(20)) as `${string}-${string}-${string}-${string}-${string}`;
    };
  }
}

// --- timers -------------------------------------------------------------------------------------
interface Timer {
  due: number;
  fn: Function;
  args: unknown[];
  interval: number;
}
const timers = new Map<number, Timer>();
let nextTimerId = 1;
// Browsers clamp nested intervals to 4 ms; doing the same keeps a zero interval from looping forever.
const MIN_INTERVAL_MS = 4;
function addTimer(cb: unknown, delay: unknown, args: unknown[], repeat: boolean): number {
  const id = nextTimerId++;
  const ms = Math.max(0, Number(delay) || 0);
  const fn = typeof cb === 'function' ? cb : new Function(String(cb));
  timers.set(id, { due: state.nowMs + ms, fn: fn, args: args, interval: repeat ? Math.max(MIN_INTERVAL_MS, ms) : 0 });
  return id;
}

// The timer due first at or before `untilMs` (the one set first among equals), or null.
function earliestTimer(untilMs: number): { id: number; timer: Timer } | null {
  let found: { id: number; timer: Timer } | null = null;
  timers.forEach(function (timer, id) {
    if (timer.due <= untilMs && (found === null || timer.due < found.timer.due || (timer.due === found.timer.due && id < found.id))) found = { id: id, timer: timer };
  });
  return found;
}
function fire(id: number, timer: Timer): void {
  if (timer.interval) timer.due += timer.interval; else timers.delete(id);
  timer.fn.apply(window, timer.args);
  state.changed = true;
}

// Fires every timer due at or before `untilMs`, earliest first, each at its own due time, calling
// `started` after each.
const MAX_TIMER_CALLS = 1000000;
export function runTimers(untilMs: number, started: () => void): void {
  for (let calls = 0; ; calls++) {
    if (calls > MAX_TIMER_CALLS) throw new Error('vidkit: timers keep scheduling each other without time passing');
    const next = earliestTimer(untilMs);
    if (next === null) return;
    state.nowMs = Math.max(state.nowMs, next.timer.due);
    fire(next.id, next.timer);
    // A callback may start animations or add media: they began at this timer's time.
    started();
  }
}

// Fires the timer due first within `withinMs` of now while the clock stays where it is, for the
// wait before the first frame (timelines.ts); false when there is none.
export function fireEarliestTimerEarly(withinMs: number): boolean {
  const next = earliestTimer(state.nowMs + withinMs);
  if (next === null) return false;
  fire(next.id, next.timer);
  return true;
}

// --- requestAnimationFrame ------------------------------------------------------------------------
let rafCallbacks = new Map<number, FrameRequestCallback>();
let nextRafId = 1;
// Runs the animation frame's callbacks, then `started` if there were any.
export function runAnimationFrame(timeMs: number, started: () => void): void {
  const due = rafCallbacks;
  rafCallbacks = new Map();
  due.forEach(function (cb) { cb(timeMs); });
  if (due.size > 0) {
    state.changed = true;
    started();
  }
}

/** Puts the page's clocks, timers, animation frames and randomness on the virtual clock. */
export function installClock(): void {
  Object.defineProperty(VirtualDate, 'name', { value: 'Date' });
  window.Date = VirtualDate as unknown as DateConstructor;
  Object.defineProperty(performance, 'now', { value: function () { return state.nowMs; }, configurable: true });
  // timeOrigin + now() is another way to read the wall clock; it reads the virtual one.
  Object.defineProperty(performance, 'timeOrigin', { value: epochMs, configurable: true });
  installRandomness();
  const win = window as unknown as Record<string, unknown>;
  win.setTimeout = function (cb: unknown, delay: unknown, ...args: unknown[]) { return addTimer(cb, delay, args, false); };
  win.setInterval = function (cb: unknown, delay: unknown, ...args: unknown[]) { return addTimer(cb, delay, args, true); };
  window.clearTimeout = window.clearInterval = function (id?: number) { timers.delete(id as number); };
  window.requestAnimationFrame = function (cb) { const id = nextRafId++; rafCallbacks.set(id, cb); return id; };
  window.cancelAnimationFrame = function (id) { rafCallbacks.delete(id); };
}
