import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { findBrowser, launchBrowser } from '../render/browser/browser';
import { FIXTURES, ServingCli, errorLines, tempDir, vidkit, vidkitServe } from '../test-support/cli';
import { decodeGray, decodeRgbFrame, psnr, psnrPerFrame, readBits } from '../test-support/media';
import { addPlayer, playerFrame } from '../test-support/player';
import { DEFAULT_EPOCH_MS, Determinism, runtimeBoot } from './boot';
import { bootScript } from './runtime';

let browser: Browser;

// --- the runtime in a real page ------------------------------------------------------------------

let server: http.Server;
let pageUrl = '';

/** A blank page on 127.0.0.1 (a secure context, so crypto.randomUUID exists) with the runtime booted as given. */
async function runtimePage(determinism: Determinism): Promise<Page> {
  const page = await browser.newPage();
  await page.evaluateOnNewDocument(bootScript(runtimeBoot({}, {}, 30, determinism)));
  await page.goto(pageUrl);
  return page;
}

interface Draws {
  math: number[];
  bytes: number[];
  words: number[];
  uuid: string;
}

/** What a page reads first: Math.random, then crypto.getRandomValues and crypto.randomUUID. */
async function firstDraws(determinism: Determinism): Promise<Draws> {
  const page = await runtimePage(determinism);
  const draws = await page.evaluate(() => ({
    math: [Math.random(), Math.random(), Math.random()],
    bytes: Array.from(crypto.getRandomValues(new Uint8Array(8))),
    words: Array.from(crypto.getRandomValues(new Uint32Array(2))),
    uuid: crypto.randomUUID(),
  }));
  await page.close();
  return draws;
}

const runtime = suite('seeded randomness and the epoch in the page runtime');

runtime.before(async () => {
  browser = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' });
  server = http.createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>blank</title>'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

runtime.after(async () => {
  await browser?.close();
  server?.close();
});

runtime('the same seed gives the same numbers in a fresh page, another seed others; the default sequence is fixed', async () => {
  const first = await firstDraws({ seed: 'shapes' });
  assert.equal(await firstDraws({ seed: 'shapes' }), first);
  const other = await firstDraws({ seed: 'shapes2' });
  assert.not.equal(other.math, first.math);
  assert.not.equal(other.bytes, first.bytes);
  assert.not.equal(other.uuid, first.uuid);
  // Existing compositions keep their picture only while the default sequence stays this one.
  const byDefault = await firstDraws({});
  assert.equal(await firstDraws({ seed: 'vidkit' }), byDefault);
  assert.equal(byDefault.math.map((x) => x.toFixed(12)), ['0.202179280565', '0.829160204987', '0.593503394764']);
  assert.is(byDefault.uuid, '5e132e1f-25f8-4686-9628-cd2b85ef45c2');
});

runtime('Math.random gives doubles in [0, 1) with 53 random bits, evenly spread', async () => {
  const page = await runtimePage({ seed: 'spread' });
  const stats = await page.evaluate(() => {
    let sum = 0;
    let min = 1;
    let max = 0;
    let finerThan32Bits = 0;
    for (let i = 0; i < 10_000; i++) {
      const x = Math.random();
      sum += x;
      min = Math.min(min, x);
      max = Math.max(max, x);
      if ((x * 2 ** 32) % 1 !== 0) finerThan32Bits++;
    }
    return { mean: sum / 10_000, min, max, finerThan32Bits };
  });
  await page.close();
  assert.ok(stats.min >= 0 && stats.max < 1, `range ${stats.min}..${stats.max}`);
  assert.ok(Math.abs(stats.mean - 0.5) < 0.02, `mean ${stats.mean}`);
  assert.ok(stats.finerThan32Bits > 9_900, `${stats.finerThan32Bits} of 10000 use more than 32 bits`);
});

runtime('crypto.getRandomValues fills every integer typed array in place and returns it, and throws as the browser does', async () => {
  const page = await runtimePage({});
  const result = await page.evaluate(() => {
    const kinds = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array];
    const filled = kinds.map((Kind) => {
      const array = new Kind(64);
      const returned = crypto.getRandomValues(array);
      const values = Array.from(array as ArrayLike<number | bigint>, String);
      return { kind: Kind.name, same: returned === array, distinct: new Set(values).size };
    });
    // A view into a larger buffer: only its own bytes change.
    const buffer = new Uint8Array(16);
    crypto.getRandomValues(buffer.subarray(4, 8));
    const outside = [...buffer.subarray(0, 4), ...buffer.subarray(8)];
    const inside = [...buffer.subarray(4, 8)];
    // Every byte value turns up in 64 KiB, the most one call may fill.
    const seen = new Set(crypto.getRandomValues(new Uint8Array(65536))).size;
    // No named helper functions in here: tsx would wrap them in a __name the page does not have.
    const thrown: Record<string, string> = {};
    const unbound = crypto.getRandomValues;
    for (const name of ['float', 'dataView', 'over', 'none', 'unbound']) {
      try {
        if (name === 'float') crypto.getRandomValues(new Float32Array(4) as unknown as Uint8Array);
        if (name === 'dataView') crypto.getRandomValues(new DataView(new ArrayBuffer(4)) as unknown as Uint8Array);
        if (name === 'over') crypto.getRandomValues(new Uint8Array(65537));
        if (name === 'none') (crypto.getRandomValues as unknown as () => void)();
        if (name === 'unbound') unbound(new Uint8Array(4));
        thrown[name] = 'returned';
      } catch (err) {
        // Chromium's QuotaExceededError is a DOMException of its own class.
        thrown[name] = `${err instanceof DOMException ? 'DOMException' : (err as Error).constructor.name} ${(err as Error).name}`;
      }
    }
    const fullSize = crypto.getRandomValues(new Uint8Array(65536)).length;
    return { filled, outsideZero: outside.every((b) => b === 0), insideSet: inside.some((b) => b !== 0), seen, thrown, fullSize };
  });
  await page.close();
  for (const f of result.filled) {
    assert.ok(f.same, `${f.kind}: returns the array it was given`);
    assert.ok(f.distinct > 50, `${f.kind}: ${f.distinct} distinct values of 64`);
  }
  assert.ok(result.outsideZero && result.insideSet, 'a subarray fills its own bytes only');
  assert.is(result.seen, 256);
  assert.is(result.fullSize, 65536);
  assert.equal(result.thrown, {
    float: 'DOMException TypeMismatchError',
    dataView: 'DOMException TypeMismatchError',
    over: 'DOMException QuotaExceededError',
    none: 'TypeError TypeError',
    unbound: 'TypeError TypeError',
  });
});

runtime('crypto.randomUUID gives distinct version 4 UUIDs', async () => {
  const page = await runtimePage({ seed: 'ids' });
  const ids = await page.evaluate(() => Array.from({ length: 200 }, () => crypto.randomUUID()));
  await page.close();
  for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is(new Set(ids).size, 200);
});

runtime('Date and performance.timeOrigin read the epoch at load: 2024-01-01T00:00:00Z by default, or the one given', async () => {
  const read = async (determinism: Determinism) => {
    const page = await runtimePage(determinism);
    const got = await page.evaluate(() => ({ now: Date.now(), iso: new Date().toISOString(), origin: performance.timeOrigin + performance.now() }));
    await page.close();
    return got;
  };
  assert.equal(await read({}), { now: DEFAULT_EPOCH_MS, iso: '2024-01-01T00:00:00.000Z', origin: DEFAULT_EPOCH_MS });
  const later = Date.UTC(2030, 5, 15, 12);
  assert.equal(await read({ epochMs: later }), { now: later, iso: '2030-06-15T12:00:00.000Z', origin: later });
});

runtime.run();

// --- renders and the player ----------------------------------------------------------------------

// seeded-random: 320x180, 1 s at 30 fps; boxes placed with Math.random at load, one moved with it on
// every frame, and block rows showing the Date, getRandomValues and randomUUID read at load.
const PROJECT = path.join(FIXTURES, 'seeded-random');
const W = 320;
const H = 180;
const out = tempDir('vidkit-determinism-');
const OTHER = ['--seed', 'another', '--epoch', '2030-06-15T12:00:00Z'];

/**
 * ProRes 4444 (`--format mov`) encodes each frame on its own at near-lossless quality, so the
 * comparison measures the picture: in H.264 the worker count alone changes the encoder's threads
 * and keyframes, which on this composition's saturated edges costs 42-50 dB with identical pictures.
 */
function render(name: string, args: string[]): string {
  const output = path.join(out, `${name}.mov`);
  const run = vidkit(['render', PROJECT, '--format', 'mov', '--output', output, ...args]);
  assert.is(run.status, 0, run.stderr);
  return output;
}

const renders = suite('the same picture with 1 and 3 workers, twice in a row, and in the player');

let one = '';
let other = '';

renders.before(async () => {
  browser = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' });
});

renders.after(async () => {
  await browser?.close();
  fs.rmSync(out, { recursive: true, force: true });
});

renders('1 worker, 3 workers and 3 again draw every frame alike (PSNR >= 50 dB); another seed draws other boxes', () => {
  one = render('one', ['--workers', '1']);
  const three = render('three', ['--workers', '3']);
  const again = render('again', ['--workers', '3']);
  for (const [name, file] of [['3 workers', three], ['3 workers again', again]]) {
    const db = psnrPerFrame(file, one);
    assert.is(db.length, 30, name);
    const low = db.map((v, i) => [i, v]).filter(([, v]) => v < 50);
    assert.equal(low, [], `${name} against 1 worker: frames under 50 dB`);
  }
  other = render('other', ['--workers', '1', ...OTHER]);
  const frames = psnrPerFrame(other, one);
  assert.ok(frames[0] < 30, `another seed draws another picture: ${frames[0].toFixed(1)} dB`);
});

renders('new Date() at load reads the default epoch, or --epoch', () => {
  const dateRows = (file: string) => {
    const frames = decodeGray(file, W, H);
    return [0, 29].map((i) => [readBits(frames[i], 0, 0.5), readBits(frames[i], 1, 0.5)]);
  };
  // Row 0: (year - 2000) * 16 + month; row 1: day * 32 + hour.
  assert.equal(dateRows(one), [[24 * 16 + 1, 1 * 32 + 0], [24 * 16 + 1, 1 * 32 + 0]]);
  assert.equal(dateRows(other), [[30 * 16 + 6, 15 * 32 + 12], [30 * 16 + 6, 15 * 32 + 12]]);
});

renders('--epoch that is not a date fails at once (exit 2), naming the forms it takes', () => {
  const run = vidkit(['render', PROJECT, '--output', path.join(out, 'bad.mp4'), '--epoch', '2024-01-01T12:00']);
  assert.is(run.status, 2);
  assert.equal(errorLines(run.stderr), [
    'vidkit: error: --epoch must be an ISO 8601 date such as 2024-01-01 or 2024-01-01T12:00:00Z (a time needs its zone), or milliseconds since 1970-01-01 UTC, got "2024-01-01T12:00"',
  ]);
});

renders('the player shows the render\'s picture: by default, and with the seed and epoch attributes', async () => {
  let preview: ServingCli | undefined;
  try {
    preview = await vidkitServe(['preview', PROJECT, '--port', '0']);
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 1200 });
    await page.goto(preview.url);
    const frame = 20;
    await addPlayer(page, 'default', {}, W, H);
    const byDefault = await playerFrame(page, 'default', frame, 30, path.join(out, 'player-default.png'));
    // The epoch given from the start, the seed changed once the player is showing: both count.
    await addPlayer(page, 'seeded', { epoch: '2030-06-15T12:00:00Z' }, W, H);
    await page.evaluate(() => document.getElementById('seeded')!.setAttribute('seed', 'another'));
    const seeded = await playerFrame(page, 'seeded', frame, 30, path.join(out, 'player-seeded.png'));
    const same = psnr(byDefault, decodeRgbFrame(one, frame, W, H));
    const sameSeeded = psnr(seeded, decodeRgbFrame(other, frame, W, H));
    // The two pictures differ, so either comparison could fail.
    const crossed = psnr(byDefault, decodeRgbFrame(other, frame, W, H));
    console.log(`    frame ${frame}: player against render ${same.toFixed(1)} dB, with seed and epoch ${sameSeeded.toFixed(1)} dB, crossed ${crossed.toFixed(1)} dB`);
    assert.ok(same >= 40, `default player against the render: ${same.toFixed(1)} dB`);
    assert.ok(sameSeeded >= 40, `player with seed and epoch against the render with them: ${sameSeeded.toFixed(1)} dB`);
    assert.ok(crossed < 30, `default player against the other render: ${crossed.toFixed(1)} dB`);
    await page.close();
  } finally {
    await preview?.stop();
  }
});

renders.run();
