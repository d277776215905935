// --- planar pictures converted to RGBA ------------------------------------------------------------
// An opaque 8-bit planar picture (I420, I422, I444) is converted to RGBA by a WebAssembly module
// (yuv-to-rgba.wat) with the fixed-point arithmetic of Chromium's own video converter, bit-exact
// with WebCodecs' copyTo for every Y, U and V of each format, matrix and range (yuv-pixels.test.ts).
// A 1080p picture takes 1.5 ms where a VideoFrame, its copyTo and a reorder took 2.2 ms (measured
// in this Chromium), and nothing waits on the browser process as copyTo's set-up does.
import type { VideoInfo } from '../protocol';
import { MODULE_BYTES } from './yuv-to-rgba.wasm';

/**
 * Chromium's coefficients for each matrix, limited range then full: y scale (in 65536ths of 64
 * per 257), y bias, then U to B, U to G, V to G and V to R, in 64ths. The limited-range U to B is
 * capped at 2.0 (128), as Chromium's converter caps it.
 */
export const COEFFICIENTS: Record<string, [number[], number[]]> = {
  smpte170m: [[18997, -1160, 128, 25, 52, 102], [16320, 32, 113, 22, 46, 90]],
  bt709: [[18997, -1160, 128, 14, 34, 115], [16320, 32, 119, 12, 30, 101]],
  'bt2020-ncl': [[19003, -1160, 128, 12, 42, 107], [16320, 32, 120, 11, 37, 94]],
};
/** Each format's chroma subsampling: log2 of the pixels a sample covers across and down. */
export const CHROMA_SHIFTS: Record<string, [number, number]> = { I420: [1, 1], I422: [1, 0], I444: [0, 0] };

const PAGE_BYTES = 65536;
// Taken before the page's scripts run, as the runtime's other built-ins are.
const RealWebAssembly = window.WebAssembly;
let compiled: WebAssembly.Module | null | undefined;

/** A source's converter: its planes in, its RGBA picture out, in one memory. */
export interface YuvPixels {
  convert(planes: Uint8Array): Uint8ClampedArray<ArrayBuffer>;
}

/**
 * The converter for pictures of `info`, or null where there is none: a format with alpha or one
 * the module does not take, or a page that cannot compile WebAssembly (a Content-Security-Policy
 * without 'wasm-unsafe-eval'), which converts with copyTo instead.
 */
export function yuvPixels(info: VideoInfo): YuvPixels | null {
  const shifts = CHROMA_SHIFTS[info.format];
  const coefficients = COEFFICIENTS[info.matrix]?.[info.fullRange ? 1 : 0];
  if (!shifts || !coefficients) return null;
  if (compiled === undefined) {
    try {
      compiled = new RealWebAssembly.Module(MODULE_BYTES);
    } catch {
      compiled = null;
    }
  }
  if (compiled === null) return null;
  const exports = new RealWebAssembly.Instance(compiled).exports as {
    memory: WebAssembly.Memory;
    yuvToRgba(y: number, u: number, v: number, out: number, width: number, height: number, shiftX: number, shiftY: number, ...k: number[]): void;
  };
  const { codedWidth: width, codedHeight: height } = info;
  const lumaSize = width * height;
  const chromaSize = ((width + shifts[0]) >> shifts[0]) * ((height + shifts[1]) >> shifts[1]);
  const inputSize = lumaSize + 2 * chromaSize;
  // Room for the module's last step past each (yuv-to-rgba.wat).
  const out = (inputSize + 16 + 15) & ~15;
  const outSize = lumaSize * 4;
  exports.memory.grow(Math.ceil((out + outSize + 64) / PAGE_BYTES) - 1);
  const input = new Uint8Array(exports.memory.buffer, 0, inputSize);
  const pixels = new Uint8ClampedArray(exports.memory.buffer as ArrayBuffer, out, outSize);
  return {
    convert: function (planes) {
      input.set(planes);
      exports.yuvToRgba(0, lumaSize, lumaSize + chromaSize, out, width, height, shifts[0], shifts[1], ...coefficients);
      return pixels;
    },
  };
}
