import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import type { Browser, Page } from 'puppeteer-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { findBrowser, launchBrowser } from '../render/browser/browser';

// The page runtime's WebAssembly conversion of video pictures (page/yuv-pixels.ts) against
// WebCodecs' own copyTo to RGBA in a real Chromium, byte for byte.

/** yuv-pixels.ts as a classic script that sets window.__yuvPixels. */
function moduleScript(): string {
  return buildSync({
    entryPoints: [path.join(__dirname, 'page', 'yuv-pixels.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: '__yuvPixels',
    platform: 'browser',
    target: 'es2020',
    logLevel: 'silent',
  }).outputFiles[0].text;
}

let browser: Browser;
let server: http.Server;
let page: Page;

const test = suite('video pictures converted to RGBA in WebAssembly');

test.before(async () => {
  // 127.0.0.1 is a secure context, where WebCodecs exists.
  server = http.createServer((_, res) => res.end('<!doctype html><title>yuv</title>')).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  browser = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' });
  page = await browser.newPage();
  await page.evaluateOnNewDocument(moduleScript());
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
});

test.after(async () => {
  await browser?.close();
  server?.close();
});

/**
 * For each matrix and range, how many bytes of the module's picture differ from copyTo's, for a
 * picture of `format` at `width`x`height` filled by `fill` (one of the page functions below).
 */
async function differences(format: string, width: number, height: number, fill: 'every' | 'noise'): Promise<string[]> {
  return page.evaluate(
    async (format, width, height, fill) => {
      const { yuvPixels, COEFFICIENTS, CHROMA_SHIFTS } = (window as unknown as { __yuvPixels: typeof import('./page/yuv-pixels') }).__yuvPixels;
      const [sx, sy] = CHROMA_SHIFTS[format];
      const cw = (width + sx) >> sx;
      const ch = (height + sy) >> sy;
      const planes = new Uint8Array(width * height + 2 * cw * ch);
      if (fill === 'every') {
        // Chroma sample k has U = k mod 256 and V = (k / 256) mod 256; the pixels of the samples
        // with one (U, V) take every Y between them.
        const covered = (1 << sx) * (1 << sy);
        for (let y = 0; y < height; y++) {
          for (let x = 0; x < width; x++) {
            const k = (y >> sy) * cw + (x >> sx);
            const within = ((y & ((1 << sy) - 1)) << sx) | (x & ((1 << sx) - 1));
            planes[y * width + x] = ((k >> 16) * covered + within) & 255;
          }
        }
        for (let k = 0; k < cw * ch; k++) {
          planes[width * height + k] = k & 255;
          planes[width * height + cw * ch + k] = (k >> 8) & 255;
        }
      } else {
        let seed = 12345;
        for (let i = 0; i < planes.length; i++) {
          seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
          planes[i] = seed >>> 24;
        }
      }
      const found: string[] = [];
      for (const matrix of Object.keys(COEFFICIENTS)) {
        for (const fullRange of [false, true]) {
          const converter = yuvPixels({ format, codedWidth: width, codedHeight: height, matrix, fullRange, width, height, durationSeconds: 1, videoDurationSeconds: 1 });
          if (!converter) {
            found.push(`${matrix} ${fullRange ? 'full' : 'limited'}: no converter`);
            continue;
          }
          const got = converter.convert(planes);
          const frame = new VideoFrame(planes, { format: format as VideoPixelFormat, codedWidth: width, codedHeight: height, timestamp: 0, colorSpace: { matrix: matrix as VideoMatrixCoefficients, fullRange } });
          const expected = new Uint8Array(width * height * 4);
          await frame.copyTo(expected, { format: 'RGBA', colorSpace: 'srgb' });
          frame.close();
          let differing = 0;
          for (let i = 0; i < expected.length; i++) if (expected[i] !== got[i]) differing++;
          if (differing > 0 || got.length !== expected.length) found.push(`${matrix} ${fullRange ? 'full' : 'limited'}: ${differing} of ${expected.length} bytes differ`);
        }
      }
      return found;
    },
    format,
    width,
    height,
    fill,
  );
}

test('every Y, U and V of I420, I422 and I444, in BT.601, BT.709 and BT.2020, limited and full range, converts as copyTo does', async () => {
  // 4096x4096 holds each (U, V) pair's samples with all 256 values of Y among their pixels.
  for (const format of ['I420', 'I422', 'I444']) assert.equal(await differences(format, 4096, 4096, 'every'), [], format);
});

test('pictures of sizes that are odd or not a multiple of 16 convert as copyTo does, to the last pixel', async () => {
  for (const format of ['I420', 'I422', 'I444']) {
    for (const [w, h] of [[1278, 717], [641, 361], [17, 9], [1, 1]]) assert.equal(await differences(format, w, h, 'noise'), [], `${format} ${w}x${h}`);
  }
});

test('pictures with alpha, and matrices it does not know, are left to copyTo', async () => {
  const made = await page.evaluate(() => {
    const { yuvPixels } = (window as unknown as { __yuvPixels: typeof import('./page/yuv-pixels') }).__yuvPixels;
    return [['I420', 'bt709'], ['I420A', 'bt709'], ['RGBA', 'rgb'], ['I420', 'fcc']].map(
      ([format, matrix]) => yuvPixels({ format, codedWidth: 16, codedHeight: 16, matrix, fullRange: false, width: 16, height: 16, durationSeconds: 1, videoDurationSeconds: 1 }) !== null,
    );
  });
  assert.equal(made, [true, false, false, false]);
});

test.run();
