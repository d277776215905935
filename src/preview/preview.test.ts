import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { findBrowser, launchBrowser } from '../render/browser/browser';
import { FIXTURES, REPO_ROOT, ServingCli, errorLines, tempDir, vidkit, vidkitAsync, vidkitServe } from '../test-support/cli';
import { httpGet } from '../test-support/http';
import { decodeImageRgb, decodeRgbFrame, imageAsVideoRgb, psnr, rgbAt } from '../test-support/media';

const EXAMPLE = path.join(REPO_ROOT, 'examples', 'ui-3d-reveal');
const ARTIFACTS = path.join(REPO_ROOT, 'out', 'test-artifacts');
const out = tempDir('vidkit-preview-test-');
const W = 960;
const H = 540;

let browser: Browser;

/** Opens the preview page and waits until the player has shown its first frame. */
async function openPreview(url: string, inBrowser = browser, deviceScaleFactor = 1): Promise<Page> {
  const page = await inBrowser.newPage();
  await page.setViewport({ width: 2400, height: 1300, deviceScaleFactor });
  await page.goto(url);
  await page.waitForFunction(() => (document.getElementById('player') as unknown as { duration: number }).duration > 0, { timeout: 60_000 });
  return page;
}

/** The player's screen (the composition, without the controls) as a PNG, and its RGB pixels. */
async function screenShot(page: Page, name: string): Promise<{ file: string; rgb: Buffer; width: number }> {
  const box = await page.evaluate(() => {
    const r = document.getElementById('player')!.shadowRoot!.querySelector('.screen')!.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
  const file = path.join(name.includes('/') ? '' : out, name);
  await page.screenshot({ path: file as `${string}.png`, clip: box });
  return { file, rgb: decodeImageRgb(file), width: box.width };
}

/**
 * Gives the player a box of `width` × `height` CSS pixels, as a page embedding it would, at the
 * window's top left above the studio's panels, so that the whole box is on screen.
 */
async function sizePlayer(page: Page, width: number, height: number): Promise<void> {
  await page.evaluate(
    (w, h) => {
      const p = document.getElementById('player')!;
      Object.assign(p.style, { width: `${w}px`, position: 'fixed', left: '0', top: '0', zIndex: '10' });
      p.setAttribute('width', String(w));
      p.setAttribute('height', String(h));
    },
    width,
    height,
  );
}

async function seek(page: Page, seconds: number): Promise<void> {
  await page.evaluate((s) => (document.getElementById('player') as unknown as { seek(s: number): Promise<void> }).seek(s), seconds);
}

const preview = suite('vidkit preview');

let example: ServingCli;

preview.before(async () => {
  browser = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' });
  example = await vidkitServe(['preview', EXAMPLE, '--port', '0']);
});

preview.after(async () => {
  await browser?.close();
  await example?.stop();
});

preview('serves on loopback and says so on stdout', () => {
  assert.match(example.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
});

preview('answers only requests addressed to loopback with its port, never serves dotfiles, and follows links the project contains as a render does', async () => {
  const project = path.join(out, 'confined');
  fs.cpSync(path.join(FIXTURES, 'color-var'), project, { recursive: true });
  fs.writeFileSync(path.join(project, '.env'), 'TOKEN=1');
  fs.mkdirSync(path.join(project, '.git'));
  fs.writeFileSync(path.join(project, '.git', 'config'), '[core]');
  fs.writeFileSync(path.join(out, 'outside.txt'), 'outside the project');
  // A link the author made is followed as a local render follows it; a link to a dotfile is not.
  fs.symlinkSync(path.join(out, 'outside.txt'), path.join(project, 'shared.txt'));
  fs.symlinkSync('.env', path.join(project, 'public.txt'));
  const server = await vidkitServe(['preview', project, '--port', '0']);
  try {
    const port = new URL(server.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      for (const route of ['/', '/index.html', '/__vidkit/composition']) {
        assert.equal([host, route, (await httpGet(server.url, route, host)).status], [host, route, 200]);
      }
    }
    // A page of attacker.example that points its name at 127.0.0.1 (DNS rebinding) still sends its name.
    for (const host of [`attacker.example:${port}`, `localhost:${Number(port) + 1}`]) {
      for (const route of ['/', '/index.html', '/__vidkit/composition']) {
        assert.equal([host, route, (await httpGet(server.url, route, host)).status], [host, route, 403]);
      }
    }
    for (const route of ['/.env', '/.git/config', '/public.txt', '/%2e%2e/outside.txt']) {
      const res = await httpGet(server.url, route);
      assert.equal([route, res.status], [route, 404]);
      assert.not.match(res.body, /TOKEN|core|outside/);
    }
    const shared = await httpGet(server.url, '/shared.txt');
    assert.equal([shared.status, shared.body], [200, 'outside the project']);
  } finally {
    assert.is(await server.stop(), 0);
  }
});

preview('the player seeked to t shows frame t of vidkit render (PSNR >= 40 dB), backwards too', async () => {
  // The default render (begin-frame capture, standard quality) at --width 1440 draws the 1920-wide
  // page at device scale 0.75; the player's browser gets the same scale. Both draw identical
  // pixels (text hinting, see browser.ts); what is left is the encoding of standard quality (JPEG 90
  // frames, CRF 18), which on the dense frame 90 costs 40.5 dB at 1440 wide but 39.5 dB at 960.
  const [RW, RH] = [1440, 810];
  const output = path.join(out, 'reveal-1440.mp4');
  const rendering = vidkitAsync(['render', EXAMPLE, '--width', String(RW), '--output', output]);
  const scaled = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' }, { scale: RW / 1920 });
  const page = await openPreview(example.url, scaled, RW / 1920);
  await sizePlayer(page, 1920, 1080);
  const shots: { t: number; rgb: Buffer }[] = [];
  for (const t of [1.5, 3, 0.5]) {
    await seek(page, t);
    const shot = await screenShot(page, `player-${t}.png`);
    shots.push({ t, rgb: imageAsVideoRgb(shot.file) });
  }
  await scaled.close();
  const run = await rendering;
  assert.is(run.status, 0, run.stderr);
  for (const { t, rgb } of shots) {
    const frame = decodeRgbFrame(output, Math.round(t * 30), RW, RH);
    const db = psnr(frame, rgb);
    console.log(`    t=${t}s frame ${Math.round(t * 30)}: PSNR ${db.toFixed(1)} dB`);
    assert.ok(db >= 40, `t=${t}s: PSNR ${db.toFixed(2)} dB`);
  }
  // The neighbouring frame is far off, so the comparison can fail.
  assert.ok(psnr(decodeRgbFrame(output, 46, RW, RH), shots[0].rgb) < 35);
});

preview('changing a colour in the variables panel changes the previewed pixels', async () => {
  const page = await openPreview(example.url);
  await sizePlayer(page, W, H);
  await seek(page, 3);
  const before = await screenShot(page, 'accent-default.png');
  // What the colour picker fires when the author picks a colour; the player redraws at once.
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const player = document.getElementById('player')!;
        player.addEventListener('timeupdate', () => resolve(), { once: true });
        const picker = document.querySelector<HTMLInputElement>('input[type=color][name=accent]')!;
        picker.value = '#00ff00';
        picker.dispatchEvent(new Event('input', { bubbles: true }));
      }),
  );
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const after = await screenShot(page, path.join(ARTIFACTS, 'preview-accent-00ff00.png'));
  console.log(`    screenshot: ${after.file}`);
  // The left panel is filled with the accent colour from 0.9 s.
  const [r0, g0, b0] = rgbAt(before.rgb, W, 20, 150);
  const [r1, g1, b1] = rgbAt(after.rgb, W, 20, 150);
  assert.ok(Math.abs(r0 - 0x7c) <= 12 && Math.abs(g0 - 0x5c) <= 12 && Math.abs(b0 - 0xff) <= 12, `default accent ${[r0, g0, b0]}`);
  assert.ok(r1 <= 12 && g1 >= 243 && b1 <= 12, `picked accent ${[r1, g1, b1]}`);
  const command = await page.$eval('#command', (e) => e.textContent);
  assert.is(command, `vidkit render . --variables '{"accent":"#00ff00"}'`);
  await page.close();
});

preview('saving the composition reloads the preview and its panel', async () => {
  const project = path.join(out, 'color-var');
  fs.cpSync(path.join(FIXTURES, 'color-var'), project, { recursive: true });
  const server = await vidkitServe(['preview', project, '--port', '0']);
  try {
    const page = await openPreview(server.url);
    // 320x180 fitted into 640x400: scaled by 2, centred with 20 px bands above and below.
    await sizePlayer(page, 640, 400);
    await seek(page, 0);
    const blue = await screenShot(page, 'before-save.png');
    assert.is(blue.width, 640);
    assert.equal(rgbAt(blue.rgb, 640, 10, 10), [0, 0, 0]);
    assert.equal(rgbAt(blue.rgb, 640, 10, 22), [0, 0, 255]);
    assert.equal(rgbAt(blue.rgb, 640, 630, 378), [0, 0, 255]);
    assert.equal(rgbAt(blue.rgb, 640, 630, 382), [0, 0, 0]);
    // Played to the end: `ended` fires on the last frame and the player pauses.
    const ended = await page.evaluate(
      () =>
        new Promise<{ frame: number; paused: boolean; updates: number }>((resolve) => {
          const p = document.getElementById('player') as unknown as HTMLElement & { frame: number; paused: boolean; play(): void };
          let updates = 0;
          p.addEventListener('timeupdate', () => updates++);
          p.addEventListener('ended', () => resolve({ frame: p.frame, paused: p.paused, updates }), { once: true });
          p.play();
        }),
    );
    assert.equal([ended.frame, ended.paused], [14, true]);
    assert.ok(ended.updates >= 2, `${ended.updates} timeupdate events`);
    const file = path.join(project, 'index.html');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"default":"#0000ff"', '"default":"#ff0000"'));
    await page.waitForFunction(() => document.querySelector<HTMLInputElement>('input[name="fill-text"]')?.value === '#ff0000', { timeout: 15_000 });
    let pixel: number[] = [];
    for (let i = 0; i < 50 && pixel[0] !== 255; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const shot = await screenShot(page, 'after-save.png');
      pixel = rgbAt(shot.rgb, shot.width, 320, 200);
    }
    assert.equal(pixel, [255, 0, 0]);
    assert.match(server.stderr(), /changed .*index\.html/);
    await page.close();
  } finally {
    assert.is(await server.stop(), 0);
  }
});

preview('a composition that throws shows the error in the player and fires an error event', async () => {
  const server = await vidkitServe(['preview', path.join(FIXTURES, 'throws-on-load'), '--port', '0']);
  try {
    const page = await browser.newPage();
    // Registered before any page script, so the first error event cannot be missed.
    await page.evaluateOnNewDocument(() => {
      document.addEventListener('error', (e) => ((window as unknown as { lastError: string }).lastError = (e as unknown as CustomEvent<{ message: string }>).detail.message), true);
    });
    await page.goto(server.url);
    await page.waitForFunction(() => (window as unknown as { lastError?: string }).lastError, { timeout: 30_000 });
    const shown = await page.evaluate(() => document.getElementById('player')!.shadowRoot!.querySelector('.message')!.textContent);
    assert.is(shown, 'a script in the composition threw: Uncaught Error: boom from the composition');
    await page.close();
  } finally {
    await server.stop();
  }
});

preview('a port in use and a bad project fail with one error line, exit 2', () => {
  const port = new URL(example.url).port;
  const busy = vidkit(['preview', EXAMPLE, '--port', port]);
  assert.is(busy.status, 2);
  assert.equal(errorLines(busy.stderr), [`vidkit: error: port ${port} on 127.0.0.1 is in use: pass another --port`]);
  const missing = vidkit(['preview', path.join(out, 'nope'), '--port', '0']);
  assert.is(missing.status, 2);
  assert.match(errorLines(missing.stderr)[0], /project directory not found/);
});

preview.run();
