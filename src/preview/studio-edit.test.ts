import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { findBrowser, launchBrowser } from '../render/browser/browser';
import { REPO_ROOT, ServingCli, fixtureCopy, tempDir, vidkit, vidkitServe } from '../test-support/cli';
import { httpGet } from '../test-support/http';
import { decodeRgbFrame, rgbAt } from '../test-support/media';

// The studio's edits in Chromium, made as a person makes them (drags, clicks, keys, typing): each
// is read back from the file (only what was edited differs) and seen in a render's decoded frames.
const out = tempDir('vidkit-studio-edit-test-');
/** Screenshots kept for people to look at (gitignored, as out/ is). */
const ARTIFACTS = path.join(REPO_ROOT, 'out', 'test-artifacts', 'studio');
fs.mkdirSync(ARTIFACTS, { recursive: true });

let browser: Browser;
const consoleErrors: string[] = [];
const servers: ServingCli[] = [];
let project: string;
let file: string;
let original: string;
let server: ServingCli;

const edit = suite('vidkit preview: the studio edits the files');

edit.before(async () => {
  browser = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' });
  project = fixtureCopy('studio-edit', out);
  file = path.join(project, 'index.html');
  original = fs.readFileSync(file, 'utf8');
  server = await serve(project);
});

edit.after(async () => {
  await browser?.close();
  for (const s of servers) await s.stop();
});

async function serve(dir: string): Promise<ServingCli> {
  const s = await vidkitServe(['preview', dir, '--port', '0']);
  servers.push(s);
  return s;
}

/**
 * Resolves once the studio's event stream has opened: the server adds a page to the stream's
 * listeners as it answers, so the answer's headers mean the page hears saves. Call before the
 * studio loads.
 */
function eventStreamOpen(page: Page): Promise<unknown> {
  return page.waitForResponse((r) => new URL(r.url()).pathname === '/__vidkit/events', { timeout: 60_000 });
}

/**
 * Opens the studio at 1280x800 and waits until the player, the timeline and the variables panel
 * are drawn and its event stream is open: a file saved before the stream opens reloads nothing (a
 * loaded suite run pressed a key that saved the file before it had, and waited 20 s for a reload).
 */
async function openStudio(url: string, opts: { holdEvents?: boolean } = {}): Promise<Page> {
  const page = await browser.newPage();
  const streamOpen = eventStreamOpen(page);
  // The studio hears of a file saved elsewhere through its event stream and reads the file again;
  // a test of an edit that crosses such a save keeps the stream's handle to close it first.
  if (opts.holdEvents) {
    await page.evaluateOnNewDocument(() => {
      const Native = window.EventSource;
      window.EventSource = class extends Native {
        constructor(url: string | URL, init?: EventSourceInit) {
          super(url, init);
          (window as unknown as { studioEvents: EventSource }).studioEvents = this;
        }
      };
    });
  }
  page.on('console', (m) => {
    // Chromium logs every 4xx answer; the 409 of an edit refused on purpose (the conflict test) is the studio working.
    const refused = /status of 409/.test(m.text()) && /\/__vidkit\/studio\/(edit|undo)$/.test(m.location().url ?? '');
    if (m.type() === 'error' && m.location().url !== 'about:srcdoc' && !refused) consoleErrors.push(`${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => consoleErrors.push((e as Error).stack ?? String(e)));
  await page.setViewport({ width: 1280, height: 800 });
  await page.goto(url);
  await page.waitForFunction(
    () =>
      (document.getElementById('player') as unknown as { duration: number }).duration > 0 &&
      document.querySelectorAll('.tl-clip').length > 0 &&
      document.getElementById('variables')!.childElementCount > 0,
    { timeout: 60_000 },
  );
  await streamOpen;
  return page;
}

/** Resolves once the file has been saved by the studio and the player has loaded it again. */
async function armReload(page: Page): Promise<() => Promise<void>> {
  await page.evaluate(() => {
    const player = document.getElementById('player')!;
    (window as unknown as { reloaded: Promise<void> }).reloaded = new Promise((resolve) => player.addEventListener('ready', () => resolve(), { once: true }));
  });
  return async () => {
    await page.evaluate(() =>
      Promise.race([
        (window as unknown as { reloaded: Promise<void> }).reloaded,
        new Promise((_, reject) => setTimeout(() => reject(new Error(`no reload: ${document.getElementById('edit-status')!.textContent}`)), 20_000)),
      ]),
    );
    // The timeline reads the new clips once the frame is drawn.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
  };
}

async function box(page: Page, selector: string): Promise<{ x: number; y: number; width: number; height: number }> {
  return page.$eval(selector, (el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
}

/** Drags with the mouse from (x, y) by (dx, dy), in steps as a hand does. */
async function drag(page: Page, x: number, y: number, dx: number, dy: number): Promise<void> {
  await page.mouse.move(x, y);
  await page.mouse.down();
  for (let i = 1; i <= 5; i++) await page.mouse.move(x + (dx * i) / 5, y + (dy * i) / 5);
  await page.mouse.up();
}

/** Renders the project (its variables overridden by `variables`) and returns a decoder of its frames. */
function render(name: string, variables?: object): (frame: number) => Buffer {
  const output = path.join(out, `${name}.mp4`);
  const run = vidkit(['render', project, '--quality', 'draft', '--output', output, ...(variables ? ['--variables', JSON.stringify(variables)] : [])]);
  assert.is(run.status, 0, run.stderr);
  return (frame) => decodeRgbFrame(output, frame, 320, 180);
}

const near = (got: number[], want: number[], tolerance = 40) => got.every((c, i) => Math.abs(c - want[i]) <= tolerance);

/** The player's composition drawn at `scale` studio pixels a composition pixel, from the screen's left top. */
async function canvasPoint(page: Page, x: number, y: number): Promise<[number, number]> {
  return page.evaluate(
    (cx, cy) => {
      const frame = [...document.getElementById('player')!.shadowRoot!.querySelectorAll('iframe')].find((f) => f.style.visibility === 'visible')!;
      const r = frame.getBoundingClientRect();
      const scale = r.width / Number(frame.width);
      return [r.left + cx * scale, r.top + cy * scale] as [number, number];
    },
    x,
    y,
  );
}

async function canvasScale(page: Page): Promise<number> {
  const [a] = await canvasPoint(page, 0, 0);
  const [b] = await canvasPoint(page, 100, 0);
  return (b - a) / 100;
}

edit('timeline: a clip dragged later, an edge dragged, a clip dragged to another track; only those attributes change, and the render shows it', async () => {
  const page = await openStudio(server.url);
  const canvas = await box(page, '#tl-canvas');
  const secondsPx = canvas.width / 2;
  const red = await box(page, '.tl-clip[data-clip="0"]');
  let reloaded = await armReload(page);
  await drag(page, red.x + red.width / 2, red.y + red.height / 2, 0.5 * secondsPx, 0);
  await reloaded();
  let want = original.replace('<div id="red"    data-start="0"', '<div id="red"    data-start="0.5"');
  assert.is(fs.readFileSync(file, 'utf8'), want);

  // The start edge of #green half a second later: its start and its duration.
  const green = await box(page, '.tl-clip[data-clip="1"] .tl-edge.start');
  reloaded = await armReload(page);
  await drag(page, green.x + 2, green.y + green.height / 2, 0.5 * secondsPx, 0);
  await reloaded();
  want = want.replace(`<div id="green" data-track-index='1' data-start="1" data-duration="1">`, `<div id="green" data-track-index='1' data-start="1.5" data-duration="0.5">`);
  assert.is(fs.readFileSync(file, 'utf8'), want);

  // #red onto the lane of track 1.
  const lanes = await page.$$eval('.tl-lane', (els) => els.map((el) => el.getBoundingClientRect().top + el.getBoundingClientRect().height / 2));
  const moved = await box(page, '.tl-clip[data-clip="0"]');
  reloaded = await armReload(page);
  await drag(page, moved.x + moved.width / 2, moved.y + moved.height / 2, 0, lanes[1] - (moved.y + moved.height / 2));
  await reloaded();
  want = want.replace('data-duration="1" data-track-index="0"', 'data-duration="1" data-track-index="1"');
  assert.is(fs.readFileSync(file, 'utf8'), want);
  assert.equal(await page.$$eval('.tl-head', (els) => els.map((e) => e.textContent)), ['Track 1']);

  // The render: #red first drawn at frame 15, #green at frame 45.
  const frame = render('timeline');
  const redAt = (f: number) => rgbAt(frame(f), 320, 40, 30);
  const greenAt = (f: number) => rgbAt(frame(f), 320, 200, 30);
  assert.ok(near(redAt(14), [0, 0, 0]) && near(redAt(15), [255, 0, 0]), `red at 14 ${redAt(14)}, at 15 ${redAt(15)}`);
  assert.ok(near(greenAt(44), [0, 0, 0]) && near(greenAt(45), [0, 255, 0]), `green at 44 ${greenAt(44)}, at 45 ${greenAt(45)}`);
  await page.close();
});

edit('timeline from the keyboard: a focused clip moves a frame with Right, its end with Alt+Right; the focus is drawn', async () => {
  const page = await openStudio(server.url);
  const before = fs.readFileSync(file, 'utf8');
  await page.focus('.tl-clip[data-clip="1"]');
  const outline = await page.$eval('.tl-clip[data-clip="1"]', (el) => getComputedStyle(el).outlineStyle);
  assert.is.not(outline, 'none', 'a focused clip shows its focus');
  let reloaded = await armReload(page);
  await page.keyboard.press('ArrowRight');
  await reloaded();
  assert.is(fs.readFileSync(file, 'utf8'), before.replace('data-start="1.5" data-duration="0.5"', 'data-start="1.533" data-duration="0.5"'));
  reloaded = await armReload(page);
  await page.focus('.tl-clip[data-clip="1"]');
  await page.keyboard.down('Alt');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.up('Alt');
  await reloaded();
  assert.is(fs.readFileSync(file, 'utf8'), before.replace('data-start="1.5" data-duration="0.5"', 'data-start="1.533" data-duration="0.533"'));
  await page.close();
});

edit('canvas: a click picks an element (outlined, its line shown); a drag moves it, its handle resizes it, a double-click edits its text', async () => {
  const page = await openStudio(server.url);
  const before = fs.readFileSync(file, 'utf8');
  const scale = await canvasScale(page);
  const [bx, by] = await canvasPoint(page, 40, 120);
  await page.mouse.click(bx, by);
  await page.waitForFunction(() => document.querySelector('#selection-source')?.textContent === 'index.html:21', { timeout: 10_000 });
  const outline = await box(page, '.selection');
  assert.ok(Math.abs(outline.width - 40 * scale) < 2 && Math.abs(outline.height - 40 * scale) < 2, `outline ${outline.width}x${outline.height} at scale ${scale}`);

  let reloaded = await armReload(page);
  await drag(page, outline.x + outline.width / 2, outline.y + outline.height / 2, 100 * scale, -60 * scale);
  await reloaded();
  let want = before.replace('<div id="box"></div>', '<div id="box" style="left: 120px; top: 40px"></div>');
  assert.is(fs.readFileSync(file, 'utf8'), want);

  const handle = await box(page, '.resize-handle');
  reloaded = await armReload(page);
  await drag(page, handle.x + handle.width / 2, handle.y + handle.height / 2, 20 * scale, 10 * scale);
  await reloaded();
  want = want.replace('style="left: 120px; top: 40px"', 'style="left: 120px; top: 40px; width: 60px; height: 50px"');
  assert.is(fs.readFileSync(file, 'utf8'), want);

  // The yellow label: a double-click on its outline, new text typed, Enter.
  const [lx, ly] = await canvasPoint(page, 110, 120);
  await page.mouse.click(lx, ly);
  await page.waitForFunction(() => document.querySelector('#selection-source')?.textContent === 'index.html:22', { timeout: 10_000 });
  const label = await box(page, '.selection');
  await page.mouse.click(label.x + label.width / 2, label.y + label.height / 2, { clickCount: 2 });
  await page.waitForSelector('.text-edit');
  reloaded = await armReload(page);
  await page.keyboard.down('Control');
  await page.keyboard.press('a');
  await page.keyboard.up('Control');
  await page.keyboard.type('Hello & bye');
  await page.keyboard.press('Enter');
  await reloaded();
  want = want.replace('<p id="label">Hi</p>', '<p id="label">Hello &amp; bye</p>');
  assert.is(fs.readFileSync(file, 'utf8'), want);

  const frame = render('canvas')(0);
  assert.ok(near(rgbAt(frame, 320, 170, 85), [255, 255, 255]), `the box's new place: ${rgbAt(frame, 320, 170, 85)}`);
  assert.ok(near(rgbAt(frame, 320, 40, 120), [0, 0, 0]), `its old place: ${rgbAt(frame, 320, 40, 120)}`);
  // "Hi" ends before x = 150; "Hello & bye" in yellow runs past x = 220.
  const yellowRight = Math.max(...Array.from({ length: 320 }, (_, x) => x).filter((x) => near(rgbAt(frame, 320, x, 122), [255, 255, 0], 90)));
  assert.ok(yellowRight > 220, `the text's ink ends at x = ${yellowRight}`);
  await page.close();
});

edit('mark as variable: a text and a colour become typed variables; the panel, the rows editor and types generate see them; an override is drawn', async () => {
  const page = await openStudio(server.url);
  const before = fs.readFileSync(file, 'utf8');
  const [lx, ly] = await canvasPoint(page, 110, 120);
  await page.mouse.click(lx, ly);
  // A locator: the inspector may draw its panel again between finding the field and clicking it
  // (a clean-clone run under load clicked a detached field).
  await page.locator('#variable-id').click({ count: 3 });
  await page.keyboard.type('greeting');
  let reloaded = await armReload(page);
  await page.click('button[data-bind="text"]');
  await reloaded();
  await page.waitForSelector('#variables input[name="greeting"]', { timeout: 10_000 });
  await page.mouse.click(lx, ly);
  await page.locator('#variable-id').click({ count: 3 });
  await page.keyboard.type('ink');
  reloaded = await armReload(page);
  await page.click('button[data-bind="color"]');
  await reloaded();
  await page.waitForSelector('#variables input[name="ink-text"]', { timeout: 10_000 });
  assert.is(
    fs.readFileSync(file, 'utf8'),
    before
      .replace(
        'data-duration="2" data-fps="30">',
        'data-duration="2" data-fps="30" data-composition-variables="[{&quot;id&quot;:&quot;greeting&quot;,&quot;type&quot;:&quot;string&quot;,&quot;default&quot;:&quot;Hello &amp; bye&quot;}, {&quot;id&quot;:&quot;ink&quot;,&quot;type&quot;:&quot;color&quot;,&quot;default&quot;:&quot;#ffff00&quot;}]">',
      )
      .replace('<p id="label">', '<p id="label" data-var-text="greeting" style="color: var(--ink)">'),
  );
  assert.is(await page.$eval('#variables input[name="greeting"]', (el) => (el as HTMLInputElement).value), 'Hello & bye');

  // The rows editor types a new table's columns by the same declarations.
  await page.click('[data-tab="rows"]');
  await page.type('#rows-new-name', 'people');
  await page.click('#rows-new');
  await page.waitForFunction(() => [...document.querySelectorAll('#rows-table thead th')].some((th) => /greeting/.test(th.textContent ?? '')), { timeout: 10_000 });

  const types = vidkit(['types', 'generate', project]);
  assert.is(types.status, 0, types.stderr);
  assert.match(types.stdout, /greeting\??: string/);
  assert.match(types.stdout, /ink\??: /);

  const frame = render('variables', { greeting: 'Hey', ink: '#00ffff' })(0);
  const cyan = Array.from({ length: 320 }, (_, x) => x).filter((x) => near(rgbAt(frame, 320, x, 122), [0, 255, 255], 90));
  assert.ok(cyan.length > 0 && Math.max(...cyan) < 180, `cyan ink from x = ${cyan[0]} to ${cyan[cyan.length - 1]}: the short override, in the override's colour`);
  await page.close();
});

edit('undo and redo across a reload of the studio; the history is never served', async () => {
  const page = await openStudio(server.url);
  const before = fs.readFileSync(file, 'utf8');
  await page.waitForFunction(() => !(document.getElementById('undo') as HTMLButtonElement).disabled, { timeout: 10_000 });
  let reloaded = await armReload(page);
  await page.click('#undo');
  await reloaded();
  const undone = fs.readFileSync(file, 'utf8');
  assert.is(undone, before.replace(' style="color: var(--ink)"', '').replace(', {&quot;id&quot;:&quot;ink&quot;,&quot;type&quot;:&quot;color&quot;,&quot;default&quot;:&quot;#ffff00&quot;}', ''));
  // Reloaded, the studio opens its event stream again: the redo's save must come after.
  const streamOpen = eventStreamOpen(page);
  await page.reload();
  await page.waitForFunction(() => !(document.getElementById('redo') as HTMLButtonElement).disabled, { timeout: 30_000 });
  await streamOpen;
  assert.match(await page.$eval('#redo', (el) => el.getAttribute('title') ?? ''), /^Redo variable ink from #label/);
  reloaded = await armReload(page);
  await page.keyboard.down('Control');
  await page.keyboard.down('Shift');
  await page.keyboard.press('z');
  await page.keyboard.up('Shift');
  await page.keyboard.up('Control');
  await reloaded();
  assert.is(fs.readFileSync(file, 'utf8'), before);
  assert.ok(fs.existsSync(path.join(project, '.vidkit', 'studio-history.json')));
  assert.is((await httpGet(server.url, '/.vidkit/studio-history.json')).status, 404);
  await page.close();
});

edit('an edit of a file changed on disk meanwhile shows a conflict and writes nothing; undo then refuses too, the history kept', async () => {
  const page = await openStudio(server.url, { holdEvents: true });
  // The save below must cross the studio's edit, not reach the studio before it. The studio has
  // read the file's hash once its undo button is live (the history holds the edits above); the
  // watcher would tell it of the save as soon as the machine allows, so it is not told at all.
  await page.waitForFunction(() => !(document.getElementById('undo') as HTMLButtonElement).disabled, { timeout: 10_000 });
  await page.evaluate(() => (window as unknown as { studioEvents: EventSource }).studioEvents.close());
  await page.focus('.tl-clip[data-clip="1"]');
  const byEditor = fs.readFileSync(file, 'utf8').replace('#box {', '#box { border-radius: 4px;');
  fs.writeFileSync(file, byEditor);
  await page.keyboard.press('ArrowRight');
  // Once in a clean-clone suite the conflict did not show within 10 s: a failure says what did.
  await page.waitForFunction(() => document.getElementById('edit-status')!.dataset.kind === 'conflict', { timeout: 10_000 }).catch(async (err) => {
    const shown = await page.evaluate(() => {
      const status = document.getElementById('edit-status')!;
      return `status ${status.dataset.kind ?? '-'} "${status.textContent ?? ''}", focus on ${document.activeElement?.outerHTML.slice(0, 80) ?? '-'}`;
    });
    throw new Error(`${(err as Error).message}: ${shown}`);
  });
  assert.match(await page.$eval('#edit-status', (el) => el.textContent ?? ''), /changed on disk since the studio read it: nothing was written/);
  assert.is(fs.readFileSync(file, 'utf8'), byEditor);
  await page.click('#undo');
  await page.waitForFunction(() => /undoing it would overwrite that/.test(document.getElementById('edit-status')!.textContent ?? ''), { timeout: 10_000 });
  assert.is(fs.readFileSync(file, 'utf8'), byEditor);
  await page.close();
});

edit('canvas from the keyboard: Enter on the picture picks the elements in turn, with a visible focus; an arrow moves the one picked a pixel', async () => {
  const page = await openStudio(server.url);
  const before = fs.readFileSync(file, 'utf8');
  await page.focus('#canvas-layer');
  assert.is.not(await page.$eval('#canvas-layer', (el) => getComputedStyle(el).outlineStyle), 'none', 'the focused picture shows its focus');
  const picked: string[] = [];
  for (let i = 0; i < 6 && !picked.includes('#box'); i++) {
    await page.focus('#canvas-layer');
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => document.querySelector('#selection-bar strong')?.textContent !== n, { timeout: 10_000 }, picked[picked.length - 1] ?? '');
    picked.push(await page.$eval('#selection-bar strong', (el) => el.textContent ?? ''));
  }
  assert.ok(picked.includes('#box'), `picked ${picked.join(', ')}`);
  assert.is(await page.evaluate(() => document.activeElement?.className), 'selection');
  assert.is.not(await page.$eval('.selection', (el) => getComputedStyle(el).outlineStyle), 'none');
  const reloaded = await armReload(page);
  await page.keyboard.press('ArrowRight');
  await reloaded();
  assert.is(fs.readFileSync(file, 'utf8'), before.replace('style="left: 120px; top: 40px;', 'style="left: 121px; top: 40px;'));
  await page.close();
});

edit('vidkit init: the studio shows clips on tracks, the title variable in the panel and on the picture; screenshot', async () => {
  const parent = tempDir('vidkit-studio-init-');
  assert.is(vidkit(['init', 'first-video'], { cwd: parent }).status, 0);
  const s = await serve(path.join(parent, 'first-video'));
  const page = await openStudio(s.url);
  const heads = await page.$$eval('.tl-head', (els) => els.map((e) => e.textContent));
  assert.equal(heads, ['Track 0', 'Track 1', 'Track 2']);
  assert.equal(await page.$$eval('.tl-clip .name', (els) => els.map((e) => e.textContent)), ['#bars', '#title', '#subtitle', '#hint']);
  assert.is(await page.$eval('#variables input[name="title"]', (el) => (el as HTMLInputElement).value), 'Hello from first-video');
  // The title is picked on the picture, its variable ready to edit.
  await page.evaluate(() => (document.getElementById('player') as unknown as { seek(s: number): Promise<void> }).seek(3));
  await page.waitForFunction(() => (document.getElementById('player') as unknown as { frame: number }).frame === 90);
  const [tx, ty] = await canvasPoint(page, 200, 150);
  await page.mouse.click(tx, ty);
  await page.waitForFunction(() => document.querySelector('#selection-source')?.textContent === 'index.html:33', { timeout: 10_000 });
  const shot = path.join(ARTIFACTS, 'studio-init.png');
  await page.screenshot({ path: shot as `${string}.png` });
  console.log(`    screenshot: ${shot}`);
  await page.close();
});

edit('no studio page logged an error', () => {
  assert.equal(consoleErrors, []);
});

edit.run();
