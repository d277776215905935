import * as path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { findBrowser, launchBrowser } from '../render/browser/browser';
import { FIXTURES, ServingCli, vidkitServe } from '../test-support/cli';

// media-elements: 320x180, 2 s at 30 fps; an <audio>, a <video muted>, and a <video> its script
// adds at 0.3 s. Served by `vidkit preview`, whose page loads the player module.
const PROJECT = path.join(FIXTURES, 'media-elements');

interface PlayerElement extends HTMLElement {
  frame: number;
  paused: boolean;
  play(): void;
  pause(): void;
  seek(seconds: number): Promise<void>;
}

let browser: Browser;
let server: ServingCli;

/** The preview page of the fixture, its own player (`#player`, with controls) ready at frame 0. */
async function openPage(): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(server.url);
  await page.waitForFunction(() => (document.getElementById('player') as unknown as { duration: number }).duration > 0, { timeout: 30_000 });
  return page;
}

/** Adds `<vidkit-player id=… src=/index.html …attributes>` to the page, as any page would. */
async function addPlayer(page: Page, id: string, attributes: string[]): Promise<void> {
  await page.evaluate(
    (id, attributes) => {
      const p = document.createElement('vidkit-player');
      p.id = id;
      p.setAttribute('src', '/index.html');
      for (const a of attributes) p.setAttribute(a, '');
      document.body.append(p);
    },
    id,
    attributes,
  );
}

/** `muted` of each media element in the composition the player `id` shows. */
function mutedState(page: Page, id: string): Promise<Record<string, boolean>> {
  return page.evaluate((id) => {
    const frames = document.getElementById(id)!.shadowRoot!.querySelectorAll('iframe');
    const doc = frames[frames.length - 1].contentDocument!;
    return Object.fromEntries([...doc.querySelectorAll<HTMLMediaElement>('video, audio')].map((m) => [m.id, m.muted]));
  }, id);
}

const player = suite('<vidkit-player> attributes and preview keys');

player.before(async () => {
  browser = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' });
  server = await vidkitServe(['preview', PROJECT, '--port', '0']);
});

player.after(async () => {
  await browser?.close();
  await server?.stop();
});

player('autoplay plays once loaded, without a call; without it the player waits at frame 0', async () => {
  const page = await openPage();
  await addPlayer(page, 'auto', ['autoplay']);
  await addPlayer(page, 'still', []);
  await page.waitForFunction(() => (document.getElementById('auto') as unknown as PlayerElement).frame >= 6, { timeout: 20_000 });
  const state = await page.evaluate(() =>
    ['auto', 'still'].map((id) => {
      const p = document.getElementById(id) as unknown as PlayerElement & { duration: number };
      return { frame: p.frame, paused: p.paused, loaded: p.duration > 0 };
    }),
  );
  assert.is(state[0].paused, false);
  assert.equal(state[1], { frame: 0, paused: true, loaded: true });
  await page.close();
});

player('loop wraps past the last frame to frame 0 and plays on, without an ended event', async () => {
  const page = await openPage();
  await addPlayer(page, 'looping', ['loop']);
  await page.waitForFunction(() => (document.getElementById('looping') as unknown as { duration: number }).duration > 0, { timeout: 30_000 });
  const run = await page.evaluate(
    () =>
      new Promise<{ frames: number[]; ended: number; pausedAfterWrap: boolean }>((resolve) => {
        const p = document.getElementById('looping') as unknown as PlayerElement;
        const frames: number[] = [];
        let ended = 0;
        let wrappedAt = -1;
        p.addEventListener('ended', () => ended++);
        // One lap and a bit take about 2.2 s; a player that stopped at the end answers here.
        setTimeout(() => resolve({ frames, ended, pausedAfterWrap: p.paused }), 10_000);
        p.addEventListener('timeupdate', () => {
          frames.push(p.frame);
          const n = frames.length;
          if (wrappedAt < 0 && n > 1 && frames[n - 1] < frames[n - 2]) wrappedAt = n - 1;
          // Played on for a few frames past the wrap: the second lap is under way.
          if (wrappedAt >= 0 && p.frame >= 5) {
            const pausedAfterWrap = p.paused;
            p.pause();
            resolve({ frames, ended, pausedAfterWrap });
          }
        });
        p.play();
      }),
  );
  const wrap = run.frames.findIndex((f, i) => i > 0 && f < run.frames[i - 1]);
  assert.ok(wrap > 0, `no wrap in ${run.frames}`);
  // Playback skips frames it cannot keep up with, so the lap may end a little before frame 59.
  assert.ok(run.frames[wrap - 1] >= 50, `last frame before the wrap: ${run.frames}`);
  assert.is(run.frames[wrap], 0);
  assert.ok(run.frames[run.frames.length - 1] >= 5);
  assert.is(run.ended, 0);
  assert.is(run.pausedAfterWrap, false);
  await page.close();
});

player('muted mutes every media element of the composition, also one added later; unmuting restores their own', async () => {
  const page = await openPage();
  await addPlayer(page, 'loud', []);
  await addPlayer(page, 'hushed', ['muted']);
  await page.waitForFunction(() => ['loud', 'hushed'].every((id) => (document.getElementById(id) as unknown as { duration: number }).duration > 0), {
    timeout: 30_000,
  });
  // Past 0.3 s, where the composition adds its third media element.
  await page.evaluate(() => Promise.all(['loud', 'hushed'].map((id) => (document.getElementById(id) as unknown as PlayerElement).seek(0.5))));
  assert.equal(await mutedState(page, 'loud'), { sound: false, quiet: true, late: false });
  assert.equal(await mutedState(page, 'hushed'), { sound: true, quiet: true, late: true });
  await page.evaluate(() => {
    document.getElementById('loud')!.setAttribute('muted', '');
    document.getElementById('hushed')!.removeAttribute('muted');
  });
  assert.equal(await mutedState(page, 'loud'), { sound: true, quiet: true, late: true });
  assert.equal(await mutedState(page, 'hushed'), { sound: false, quiet: true, late: false });
  await page.close();
});

player('preview keys: space plays and pauses, the arrows step one frame, not while a field has the focus', async () => {
  const page = await openPage();
  const state = () =>
    page.evaluate(() => {
      const p = document.getElementById('player') as unknown as PlayerElement;
      return { frame: p.frame, paused: p.paused, readout: p.shadowRoot!.querySelector('.readout')!.textContent };
    });
  const frameIs = (n: number) => page.waitForFunction((n) => (document.getElementById('player') as unknown as PlayerElement).frame === n, { timeout: 10_000 }, n);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await frameIs(2);
  await page.keyboard.press('ArrowLeft');
  await frameIs(1);
  assert.equal(await state(), { frame: 1, paused: true, readout: '0:00.03 / 0:02.00 · frame 1' });

  await page.keyboard.press(' ');
  assert.is((await state()).paused, false);
  await page.waitForFunction(() => (document.getElementById('player') as unknown as PlayerElement).frame >= 4, { timeout: 10_000 });
  await page.keyboard.press(' ');
  const paused = await state();
  assert.is(paused.paused, true);
  // Paused means it stays on its frame.
  await new Promise((r) => setTimeout(r, 300));
  assert.is((await state()).frame, paused.frame);

  // In a text field the keys edit the text and leave the player alone.
  await page.focus('input[name=caption]');
  await page.$eval('input[name=caption]', (e) => (e as HTMLInputElement).setSelectionRange(0, 0));
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press(' ');
  await new Promise((r) => setTimeout(r, 300));
  const after = await state();
  assert.equal([after.frame, after.paused], [paused.frame, true]);
  assert.is(await page.$eval('input[name=caption]', (e) => (e as HTMLInputElement).value), 'h i');
  await page.close();
});

player.run();
