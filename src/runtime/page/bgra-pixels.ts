// --- BGRA pictures made RGBA ---------------------------------------------------------------------
// WebCodecs converts an opaque planar picture (I420, I422, I444) to BGRA, the byte order its
// converter writes, ~1 ms a 1080p picture faster than to RGBA, which it reorders on a slower path
// (measured in this Chromium: 2.9 ms against 1.8 ms). ImageData only takes RGBA, so the picture is
// converted to BGRA in a WebAssembly memory and reordered there with SIMD (0.4 ms a 1080p picture),
// bit-exact with the RGBA conversion for every format, matrix and range the decoder hands over.
// Pictures with alpha gain nothing (their conversion is as fast either way) and keep RGBA.

// The module, 111 bytes: (memory (export "memory") 1) and (func (export "swizzle") (param $p i32)
// (param $end i32)), which swaps bytes 0 and 2 of every 4 from $p, 16 bytes a step, until $end.
const MODULE_BYTES = [
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
  0x01, 0x06, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x00, // types: (i32, i32) -> ()
  0x03, 0x02, 0x01, 0x00, // functions: one, of type 0
  0x05, 0x03, 0x01, 0x00, 0x01, // memories: one, at least 1 page
  0x07, 0x14, 0x02, // exports: two
  0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, // "memory", memory 0
  0x07, 0x73, 0x77, 0x69, 0x7a, 0x7a, 0x6c, 0x65, 0x00, 0x00, // "swizzle", function 0
  0x0a, 0x3e, 0x01, 0x3c, 0x00, // code: one body of 60 bytes, no locals
  0x02, 0x40, 0x03, 0x40, // block, loop
  0x20, 0x00, 0x20, 0x01, 0x4f, 0x0d, 0x01, // br_if out: $p >= $end
  0x20, 0x00, // the address to store at: $p
  0x20, 0x00, 0xfd, 0x00, 0x04, 0x00, // v128.load $p
  0x20, 0x00, 0xfd, 0x00, 0x04, 0x00, // v128.load $p
  0xfd, 0x0d, 2, 1, 0, 3, 6, 5, 4, 7, 10, 9, 8, 11, 14, 13, 12, 15, // i8x16.shuffle: BGRA -> RGBA
  0xfd, 0x0b, 0x04, 0x00, // v128.store
  0x20, 0x00, 0x41, 0x10, 0x6a, 0x21, 0x00, // $p += 16
  0x0c, 0x00, 0x0b, 0x0b, 0x0b, // br loop, end, end, end
];
const PAGE_BYTES = 65536;

// Taken before the page's scripts run, as the runtime's other built-ins are.
const RealWebAssembly = window.WebAssembly;
let compiled: WebAssembly.Module | null | undefined;

/** A picture's pixels in a memory of their own, with the reorder that makes them RGBA. */
export interface BgraPixels {
  /** Where WebCodecs writes the BGRA picture; RGBA once `toRgba` has run. */
  pixels: Uint8ClampedArray<ArrayBuffer>;
  toRgba(): void;
}

/**
 * A buffer of `size` bytes for BGRA pixels, or null where the page cannot compile WebAssembly
 * (a Content-Security-Policy without 'wasm-unsafe-eval'): the caller converts to RGBA instead.
 */
export function bgraPixels(size: number): BgraPixels | null {
  if (compiled === undefined) {
    try {
      compiled = new RealWebAssembly.Module(new Uint8Array(MODULE_BYTES));
    } catch {
      compiled = null;
    }
  }
  if (compiled === null) return null;
  const exports = new RealWebAssembly.Instance(compiled).exports as { memory: WebAssembly.Memory; swizzle(p: number, end: number): void };
  // The last step may run up to 15 bytes past the picture: room for them too.
  exports.memory.grow(Math.ceil((size + 16) / PAGE_BYTES) - 1);
  return {
    pixels: new Uint8ClampedArray(exports.memory.buffer as ArrayBuffer, 0, size),
    toRgba: function () { exports.swizzle(0, size); },
  };
}
