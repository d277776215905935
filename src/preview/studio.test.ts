import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fontsStylesheet } from '../fonts/bundled-fonts';
import { FALLBACK_FAMILY } from '../fonts/fallback-fonts';
import { findBrowser, launchBrowser } from '../render/browser/browser';
import { FIXTURES, REPO_ROOT, ServingCli, errorLines, fixtureCopy, tempDir, vidkit, vidkitServe } from '../test-support/cli';
import { httpGet, httpRequest } from '../test-support/http';
import { decodeImageRgb, decodeRgbFrame, ffprobe, psnr, rgbAt, writePatternVideo } from '../test-support/media';

// The studio of `vidkit preview` in Chromium, used as a person would: clicks, keys, typing.
const out = tempDir('vidkit-studio-test-');
/** Screenshots the tests keep for people to look at (gitignored, as out/ is). */
const ARTIFACTS = path.join(REPO_ROOT, 'out', 'test-artifacts', 'studio');
fs.mkdirSync(ARTIFACTS, { recursive: true });

let browser: Browser;
/** Every console error and uncaught exception of every studio page opened. */
const consoleErrors: string[] = [];
const servers: ServingCli[] = [];

async function serve(project: string): Promise<ServingCli> {
  const server = await vidkitServe(['preview', project, '--port', '0']);
  servers.push(server);
  return server;
}

/** Opens the studio at 1280x800 (or the size given) and waits for the player and the timeline. */
async function openStudio(url: string, opts: { width?: number; height?: number; theme?: 'light' | 'dark' } = {}): Promise<Page> {
  const page = await browser.newPage();
  // The studio's own errors; a composition's (in the player's srcdoc iframe) are its author's, shown in the player.
  page.on('console', (m) => {
    if (m.type() === 'error' && m.location().url !== 'about:srcdoc') consoleErrors.push(`${url}: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => {
    if (!/about:srcdoc/.test((e as Error).stack ?? '')) consoleErrors.push(`${url}: ${(e as Error).stack}`);
  });
  await page.setViewport({ width: opts.width ?? 1280, height: opts.height ?? 800 });
  await page.evaluateOnNewDocument((theme) => localStorage.setItem('vidkit-theme', theme), opts.theme ?? 'dark');
  await page.goto(url);
  // Loaded: the player has its composition, the timeline its clips, the page the composition's declarations.
  await page.waitForFunction(
    () =>
      (document.getElementById('player') as unknown as { duration: number }).duration > 0 &&
      document.querySelector('.tl-lanes')!.childElementCount > 0 &&
      document.getElementById('variables')!.childElementCount > 0,
    { timeout: 60_000 },
  );
  return page;
}

interface ClipBox {
  name: string;
  lane: number;
  left: number;
  width: number;
}

/** The timeline as drawn: the track area's width, the lanes' names, each clip's lane and box from the track area's left. */
async function timelineBoxes(page: Page): Promise<{ width: number; heads: string[]; clips: ClipBox[]; crumbs: string[] }> {
  return page.evaluate(() => {
    const canvas = document.getElementById('tl-canvas')!.getBoundingClientRect();
    const lanes = [...document.querySelectorAll('.tl-lane')];
    return {
      width: canvas.width,
      heads: [...document.querySelectorAll('.tl-head')].map((e) => e.textContent ?? ''),
      crumbs: [...document.querySelectorAll('.crumb')].map((e) => e.textContent ?? ''),
      clips: [...document.querySelectorAll<HTMLElement>('.tl-clip')].map((el) => {
        const r = el.getBoundingClientRect();
        return { name: el.querySelector('.name')!.textContent ?? '', lane: lanes.indexOf(el.parentElement!), left: r.left - canvas.left, width: r.width };
      }),
    };
  });
}

/** Clicks the ruler at `seconds` of the scope shown from `start` to `end`. */
async function clickRulerAt(page: Page, seconds: number, start: number, end: number): Promise<void> {
  const box = await page.$eval('#tl-ruler', (el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
  await page.mouse.click(box.x + ((seconds - start) / (end - start)) * box.width, box.y + box.height / 2);
}

/** Gives the player a width of its own, as a page embedding it would, and waits until it is laid out. */
async function sizePlayer(page: Page, width: number): Promise<void> {
  await page.evaluate(
    (w) =>
      new Promise((resolve) => {
        const player = document.getElementById('player')!;
        player.style.width = '';
        player.setAttribute('width', String(w));
        requestAnimationFrame(() => requestAnimationFrame(resolve));
      }),
    width,
  );
}

/** Waits until the player shows `frame`, painted. */
async function waitForFrame(page: Page, frame: number): Promise<void> {
  await page.waitForFunction((f) => (document.getElementById('player') as unknown as { frame: number }).frame === f, { timeout: 30_000 }, frame);
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}

/** The player's screen as a PNG and its RGB pixels. */
async function playerShot(page: Page, file: string): Promise<{ rgb: Buffer; width: number }> {
  const clip = await page.evaluate(() => {
    const r = document.getElementById('player')!.shadowRoot!.querySelector('.screen')!.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
  await page.screenshot({ path: file as `${string}.png`, clip });
  return { rgb: decodeImageRgb(file), width: clip.width };
}

/** The 8 bits the studio-tracks canvas draws on its top 40 rows: the frame it shows. */
function clockFrame(rgb: Buffer, width: number, scale: number): number {
  let frame = 0;
  for (let b = 0; b < 8; b++) if (rgbAt(rgb, width, Math.round((b * 40 + 20) * scale), Math.round(20 * scale))[0] > 128) frame |= 1 << b;
  return frame;
}

async function saveShot(page: Page, name: string): Promise<string> {
  const file = path.join(ARTIFACTS, name);
  await page.screenshot({ path: file as `${string}.png` });
  console.log(`    screenshot: ${file}`);
  return file;
}

/** A 20 s page, long enough to cancel while it renders. */
const LONG_PAGE = `<!doctype html>
<html><head><style>html, body { margin: 0; background: #102030; }</style></head><body>
<div data-composition-id="long" data-width="320" data-height="180" data-duration="20"></div>
</body></html>
`;

/** Screenshots the player until its centre has `want` (a new value redraws a moment later); returns the colour it ended on. */
async function centreColour(page: Page, name: string, want: number[]): Promise<number[]> {
  let colour: number[] = [];
  for (let i = 0; i < 100; i++) {
    const shot = await playerShot(page, path.join(out, name));
    colour = rgbAt(shot.rgb, shot.width, Math.round(shot.width / 2), Math.round((shot.width * 9) / 32));
    if (colour.every((c, k) => Math.abs(c - want[k]) <= 2)) return want;
    await new Promise((r) => setTimeout(r, 100));
  }
  return colour;
}

/** The Unicode ranges a family of the bundled fonts covers, from the fonts' own style sheet. */
function coverage(family: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const face of fontsStylesheet().match(/@font-face\s*{[^}]*}/g) ?? []) {
    if (!face.includes(`font-family: ${JSON.stringify(family)};`)) continue;
    for (const [, from, to] of face.matchAll(/U\+([0-9A-F]+)(?:-([0-9A-F]+))?/gi)) ranges.push([parseInt(from, 16), parseInt(to ?? from, 16)]);
  }
  return ranges;
}

/**
 * No character of the studio draws as a missing glyph: every element with text is drawn with the
 * bundled Inter or JetBrains Mono, or the bundled fallback faces (Chromium names the fonts it
 * used: a system font or a missing glyph would show another), and every character is in the
 * ranges those fonts cover. Returns the characters checked.
 */
async function checkFonts(page: Page, where: string): Promise<string> {
  const cdp = await page.createCDPSession();
  await cdp.send('DOM.enable');
  await cdp.send('CSS.enable');
  const { root } = await cdp.send('DOM.getDocument', { depth: -1, pierce: true });
  const families = new Set<string>();
  let text = '';
  type Node = (typeof root)['children'] extends (infer N)[] | undefined ? N : never;
  const walk = async (node: Node): Promise<void> => {
    if (['IFRAME', 'SCRIPT', 'STYLE', 'HEAD', 'TITLE', 'OPTION'].includes(node.nodeName)) return;
    const own = (node.children ?? []).filter((c) => c.nodeType === 3 && c.nodeValue.trim() !== '').map((c) => c.nodeValue);
    if (node.nodeType === 1 && own.length > 0) {
      const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId: node.nodeId });
      // An element that is not drawn (a hidden tab) uses no font.
      if (fonts.length > 0) text += own.join('');
      for (const f of fonts) families.add(`${f.familyName}${f.isCustomFont ? '' : ' (system)'}`);
    }
    for (const child of [...(node.children ?? []), ...(node.shadowRoots ?? [])]) await walk(child);
  };
  await walk(root as Node);
  await cdp.detach();
  const allowed = [...coverage('Inter'), ...coverage('JetBrains Mono'), ...coverage(FALLBACK_FAMILY)];
  const missing = [...new Set(text)].filter((ch) => !/\s/.test(ch) && !allowed.some(([a, b]) => ch.codePointAt(0)! >= a && ch.codePointAt(0)! <= b));
  assert.equal(missing, [], `${where}: characters outside the bundled fonts`);
  // The fallback faces are Noto's (fallback-fonts.ts); Chromium names a face by its file's own family name.
  const bundled = /^(Inter|JetBrains Mono|Noto Sans|Noto Color Emoji)\b/;
  assert.equal([...families].filter((f) => !bundled.test(f) || f.endsWith('(system)')), [], `${where}: fonts other than the bundled ones (${[...families].join(', ')})`);
  assert.ok(families.size > 0 && text.length > 100, `${where}: ${text.length} characters checked`);
  return text;
}

const studio = suite('vidkit preview: the studio');

let tracks: string;
let tracksServer: ServingCli;

studio.before(async () => {
  browser = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' });
  tracks = fixtureCopy('studio-tracks', out);
  writePatternVideo(path.join(tracks, 'pattern.mp4'));
  tracksServer = await serve(tracks);
});

studio.after(async () => {
  await browser?.close();
  for (const server of servers) await server.stop();
});

studio('the timeline draws the clips of three tracks and a sub-composition where their times fall, and enters the sub-composition', async () => {
  const page = await openStudio(tracksServer.url);
  const root = await timelineBoxes(page);
  assert.equal(root.heads, ['Track 0', 'Track 1', 'Track 2']);
  assert.equal(root.crumbs, ['studio-tracks']);
  const W = root.width;
  assert.ok(W > 900, `track area ${W} px wide`);
  // 4 s across the track area: each clip from start / 4 to end / 4 of it, on its track's lane.
  const expected = [
    { name: '#title', lane: 0, from: 0, to: 1.5 },
    { name: '#outro', lane: 0, from: 2.5, to: 4 },
    { name: '#scene-host', lane: 1, from: 1, to: 3 },
    { name: '#clip', lane: 2, from: 0.5, to: 2.5 },
  ];
  assert.equal(root.clips.map((c) => c.name).sort(), expected.map((e) => e.name).sort());
  for (const e of expected) {
    const c = root.clips.find((x) => x.name === e.name)!;
    assert.is(c.lane, e.lane, e.name);
    assert.ok(Math.abs(c.left - (e.from / 4) * W) < 0.6, `${e.name} left ${c.left}, wanted ${(e.from / 4) * W}`);
    assert.ok(Math.abs(c.width - ((e.to - e.from) / 4) * W) < 0.6, `${e.name} width ${c.width}, wanted ${((e.to - e.from) / 4) * W}`);
  }
  // The ruler's 2 s mark halfway; the video's trim: 0.5 s of its 2 s source skipped, so 1.5 s of it plays.
  const tick = await page.evaluate(() => {
    const canvas = document.getElementById('tl-canvas')!.getBoundingClientRect();
    const mark = [...document.querySelectorAll('.tick')].find((t) => t.textContent === '2 s')!;
    return mark.getBoundingClientRect().left - canvas.left;
  });
  assert.ok(Math.abs(tick - W / 2) < 0.6, `2 s mark at ${tick}`);
  assert.is(await page.$eval('.tl-clip.kind-video .trim', (e) => e.textContent), '0.50\u20132.00 s of 2.00');

  // The lint warning of #outro (data-duration and data-end) sits on its clip, and its line opens in the source view.
  // The findings come from their own request, which may answer after the clips are drawn.
  assert.ok(await page.waitForSelector('.tl-clip:has(.name) .finding.warning', { timeout: 10_000 }));
  const outro = await page.$$eval('.tl-clip', (els) => els.findIndex((e) => e.querySelector('.name')!.textContent === '#outro'));
  const outroLine = fs.readFileSync(path.join(tracks, 'index.html'), 'utf8').split('\n').findIndex((l) => l.includes('id="outro"')) + 1;
  const clipEls = await page.$$('.tl-clip');
  await clipEls[outro].click();
  await page.waitForFunction((line) => document.getElementById('tl-details')!.textContent!.includes(`index.html:${line}`), { timeout: 5000 }, outroLine);
  assert.match(await page.$eval('#tl-details', (e) => e.textContent ?? ''), /data-duration wins/);
  await page.click('#tl-details button.link');
  await page.waitForFunction(() => !document.getElementById('source-tab')!.hidden && document.querySelector('.source-line.current'), { timeout: 5000 });
  const current = await page.$eval('.source-line.current', (e) => ({ line: e.getAttribute('data-line'), text: e.querySelector('.code')!.textContent }));
  assert.is(Number(current.line), outroLine);
  assert.match(current.text ?? '', /id="outro"/);
  await page.click('[data-tab="timeline"]');

  // Entering the scene: its two clips over its own window (1 s to 3 s), the breadcrumb leading back.
  const hostIndex = await page.$$eval('.tl-clip', (els) => els.findIndex((e) => e.querySelector('.name')!.textContent === '#scene-host'));
  await (await page.$$('.tl-clip'))[hostIndex].click({ count: 2 });
  await page.waitForFunction(() => document.querySelectorAll('.crumb').length === 2, { timeout: 5000 });
  const scene = await timelineBoxes(page);
  assert.equal(scene.crumbs, ['studio-tracks', 'scene']);
  assert.equal(
    scene.clips.map((c) => [c.name, c.lane]),
    [
      ['#bar', 0],
      ['#dot', 1],
    ],
  );
  const bar = scene.clips[0];
  const dot = scene.clips[1];
  assert.ok(Math.abs(bar.left) < 0.6 && Math.abs(bar.width - W / 2) < 0.6, `#bar ${JSON.stringify(bar)}`);
  assert.ok(Math.abs(dot.left - W / 4) < 0.6 && Math.abs(dot.width - (3 * W) / 4) < 0.6, `#dot ${JSON.stringify(dot)}`);
  // Inside the scene a click seeks on the scene's scale: 2 s of the root is halfway.
  await clickRulerAt(page, 2, 1, 3);
  await page.waitForFunction(() => (document.getElementById('player') as unknown as { frame: number }).frame === 60, { timeout: 30_000 });
  await page.click('.crumb');
  await page.waitForFunction(() => document.querySelectorAll('.tl-lane').length === 3, { timeout: 5000 });
  await page.close();
});

studio('a click at 2.0 s shows frame 60, the frame vidkit still draws; the keys step frames and seconds', async () => {
  const still = path.join(out, 'still-60.png');
  const run = vidkit(['still', tracks, '--frame', '60', '--output', still]);
  assert.is(run.status, 0, run.stderr);
  const page = await openStudio(tracksServer.url);
  // One composition pixel a screen pixel, as the still is drawn: a width of its own, which the studio keeps.
  await sizePlayer(page, 320);
  await clickRulerAt(page, 2.0, 0, 4);
  await waitForFrame(page, 60);
  const shot = await playerShot(page, path.join(out, 'player-60.png'));
  assert.is(shot.width, 320);
  assert.is(clockFrame(shot.rgb, 320, 1), 60);
  const reference = decodeImageRgb(still);
  const db = psnr(reference, shot.rgb);
  assert.ok(db >= 40, `PSNR against vidkit still --frame 60: ${db.toFixed(1)} dB`);
  assert.is(await page.$eval('.readout', (e) => e.textContent), '0:02.00 / 0:04.00  frame 60');

  const press = async (key: Parameters<Page['keyboard']['press']>[0], frame: number, shift = false) => {
    if (shift) await page.keyboard.down('Shift');
    await page.keyboard.press(key);
    if (shift) await page.keyboard.up('Shift');
    await page.waitForFunction((f) => (document.getElementById('player') as unknown as { frame: number }).frame === f, { timeout: 30_000 }, frame);
  };
  // A drag seeks all the way: pressed at 1 s, let go at 3 s.
  const ruler = await page.$eval('#tl-ruler', (el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x, y: r.y + r.height / 2, width: r.width };
  });
  await page.mouse.move(ruler.x + ruler.width / 4, ruler.y);
  await page.mouse.down();
  for (let t = 1.25; t <= 3; t += 0.25) await page.mouse.move(ruler.x + (ruler.width * t) / 4, ruler.y);
  await page.mouse.up();
  await waitForFrame(page, 90);
  await clickRulerAt(page, 2.0, 0, 4);
  await waitForFrame(page, 60);
  await press('ArrowRight', 61);
  await press('ArrowRight', 91, true);
  await press('ArrowLeft', 90);
  await press('ArrowLeft', 60, true);
  await press('j', 30);
  await press('End', 119);
  await press('Home', 0);
  // L plays, K pauses.
  await page.keyboard.press('l');
  await page.waitForFunction(() => (document.getElementById('player') as unknown as { frame: number }).frame > 3, { timeout: 30_000 });
  await page.keyboard.press('k');
  assert.is(await page.evaluate(() => (document.getElementById('player') as unknown as { paused: boolean }).paused), true);
  // The playhead follows: at the frame shown, on the track area's scale.
  await page.waitForFunction(
    () => {
      const x = new DOMMatrix(getComputedStyle(document.getElementById('tl-playhead')!).transform).m41;
      const frame = (document.getElementById('player') as unknown as { frame: number }).frame;
      return Math.abs(x - (frame / 30 / 4) * document.getElementById('tl-canvas')!.clientWidth) < 0.6;
    },
    { timeout: 5000 },
  );
  await page.close();
});

studio('the render button renders with the format and quality picked; the video plays in the page; cancel leaves no file; a failure shows the CLI message', async () => {
  const project = fixtureCopy('color-var', out);
  fs.writeFileSync(path.join(project, 'long.html'), LONG_PAGE);
  fs.copyFileSync(path.join(FIXTURES, 'throws-on-load', 'index.html'), path.join(project, 'broken.html'));
  const server = await serve(project);
  const page = await openStudio(server.url);
  await page.select('#quality', 'draft');
  await page.click('#render');
  await page.waitForSelector('#jobs li.job[data-state="done"]', { timeout: 120_000 });
  const card = await page.$eval('#jobs li.job[data-state="done"]', (el) => ({
    text: el.textContent ?? '',
    src: el.querySelector('video')!.getAttribute('src')!,
    href: el.querySelector('a[download]')!.getAttribute('href')!,
    download: el.querySelector('a[download]')!.getAttribute('download')!,
  }));
  assert.match(card.text, /index\.html/);
  assert.match(card.text, /mp4 · draft/);
  assert.match(card.src, /^\/out\/color-var-\d{8}-\d{6}\.mp4$/);
  assert.is(card.href, card.src);
  const file = path.join(project, decodeURIComponent(card.src));
  const probe = ffprobe(file);
  assert.is(probe.streams[0].codec_name, 'h264');
  assert.is(Number(probe.streams[0].nb_read_frames), 15);
  // Played in the page: the browser decodes it from the preview server.
  await page.waitForFunction(() => document.querySelector<HTMLVideoElement>('#jobs video')!.readyState >= 2, { timeout: 30_000 });
  assert.is(await page.$eval('#jobs video', (v) => (v as HTMLVideoElement).videoWidth), 320);

  // Cancelled while it renders: the job says so and nothing of it is left in out/.
  await page.click('button.composition[data-file="long.html"]');
  await page.waitForFunction(() => (document.getElementById('player') as unknown as { duration: number }).duration === 20, { timeout: 60_000 });
  await page.click('#render');
  // Its progress: frames, speed, time left.
  await page.waitForFunction(() => /frame [1-9]\d* of 600 · \d+\.\d fps · \d+:\d\d left/.test(document.querySelector('#jobs li.job[data-state="rendering"]')?.textContent ?? ''), {
    timeout: 120_000,
  });
  // Found and clicked in one step: each progress event redraws the job list, so a button found
  // by one call may be gone by the next (puppeteer's click: "Node is detached from document").
  await page.waitForFunction(() => {
    const cancel = document.querySelector<HTMLButtonElement>('#jobs li.job[data-state="rendering"] [data-cancel]');
    cancel?.click();
    return cancel !== null;
  }, { timeout: 30_000 });
  await page.waitForSelector('#jobs li.job[data-state="cancelled"]', { timeout: 60_000 });
  assert.equal(
    fs.readdirSync(path.join(project, 'out')).filter((f) => !f.startsWith('color-var-')),
    [],
  );

  // A render that fails shows what `vidkit render` prints for it.
  const cli = vidkit(['render', project, '--composition', 'broken.html', '--output', path.join(out, 'broken.mp4')]);
  assert.is(cli.status, 1);
  await page.click('button.composition[data-file="broken.html"]');
  await page.waitForFunction(() => document.getElementById('title-file')!.textContent === 'broken.html', { timeout: 30_000 });
  await page.click('#render');
  await page.waitForSelector('#jobs li.job[data-state="failed"] pre.error', { timeout: 120_000 });
  assert.is(await page.$eval('#jobs li.job[data-state="failed"] pre.error', (e) => e.textContent), errorLines(cli.stderr)[0]);
  await page.close();
});

/** Opens a rows file of three rows in the Rows tab: the table has the declared variables as columns. */
async function openRows(page: Page, file: string): Promise<void> {
  await page.click('[data-tab="rows"]');
  await page.waitForFunction((f) => [...document.querySelectorAll<HTMLOptionElement>('#rows-file option')].some((o) => o.value === f), { timeout: 10_000 }, file);
  await page.select('#rows-file', file);
  await page.waitForFunction(() => document.querySelectorAll('#rows-table tbody tr').length === 3, { timeout: 10_000 });
  const headers = await page.$$eval('#rows-table th', (ths) => ths.map((th) => th.firstChild!.textContent));
  assert.equal(headers, ['#', 'outputKey', 'Fill', 'Caption', 'render']);
}

/** Row 2 picked: the player shows its green, and the variables panel edits it. */
async function previewRow2(page: Page, name: string): Promise<void> {
  await page.click('#rows-table tbody tr[data-row="1"] td.num');
  assert.equal(await centreColour(page, `${name}-row-2.png`, [0, 255, 0]), [0, 255, 0]);
  assert.match(await page.$eval('#bound-row', (e) => e.textContent ?? ''), /row 2: green\.mp4/);
}

/**
 * Row 3's colour typed in its cell (the player follows) and saved: the file then reads `saved`.
 * Rendering the rows writes out/<file name>/red.mp4, green.mp4 and blue.mp4 in their colours.
 */
async function editSaveAndRender(page: Page, project: string, file: string, saved: string): Promise<void> {
  const cell = await page.$('#rows-table tbody tr[data-row="2"] input[name="fill-text"]');
  await cell!.click({ count: 3 });
  await cell!.type('#ffff00');
  await page.waitForFunction(() => document.getElementById('rows-status')!.textContent!.includes('not saved'), { timeout: 5000 });
  assert.equal(await centreColour(page, `${file}-row-3.png`, [255, 255, 0]), [255, 255, 0]);
  await page.click('#rows-save');
  await page.waitForFunction(() => document.getElementById('rows-status')!.textContent!.endsWith('saved') && !document.getElementById('rows-status')!.textContent!.includes('not'), { timeout: 10_000 });
  assert.is(fs.readFileSync(path.join(project, file), 'utf8'), saved);

  // Every row rendered on warm browsers, each with its own colour.
  await page.select('#quality', 'draft');
  await page.click('#rows-render');
  await page.waitForSelector('#jobs li.job[data-state="done"]', { timeout: 180_000 });
  const states = await page.$$eval('#rows-table tbody td.row-render', (tds) => tds.map((td) => td.textContent));
  assert.equal(states, ['rendered', 'rendered', 'rendered']);
  for (const [key, colour] of [
    ['red.mp4', [255, 0, 0]],
    ['green.mp4', [0, 255, 0]],
    ['blue.mp4', [255, 255, 0]],
  ] as const) {
    const video = path.join(project, 'out', path.parse(file).name, key);
    assert.is(ffprobe(video).streams[0].codec_name, 'h264', key);
    const [r, g, b] = rgbAt(decodeRgbFrame(video, 0, 320, 180), 320, 160, 90);
    assert.ok(Math.abs(r - colour[0]) <= 16 && Math.abs(g - colour[1]) <= 16 && Math.abs(b - colour[2]) <= 16, `${key}: ${[r, g, b]}`);
  }
}

/** Starts a new rows file of the type picked from the table: it opens at once, without rows. */
async function newRowsFile(page: Page, name: string, type: string): Promise<void> {
  await page.type('#rows-new-name', name);
  await page.select('#rows-new-type', type);
  await page.click('#rows-new');
  await page.waitForFunction((file) => document.getElementById('rows-status')!.textContent === `${file}: 0 rows`, { timeout: 10_000 }, `${name}${type}`);
  await page.waitForFunction((file) => document.querySelector<HTMLSelectElement>('#rows-file')!.value === file, { timeout: 10_000 }, `${name}${type}`);
}

studio('a CSV of 3 rows opens in the rows table, row 2 previews with its colour, a cell edit is saved to the file, and rendering the rows writes 3 MP4s with their colours', async () => {
  const project = fixtureCopy('color-var', out);
  // A caption in scripts the bundled Inter lacks: the studio draws it with the bundled fallback faces.
  const caption = 'こんにちは · مرحبا · नमस्ते';
  fs.writeFileSync(path.join(project, 'viewers.csv'), `outputKey,fill,caption\r\nred.mp4,#ff0000,\r\ngreen.mp4,#00ff00,"${caption}"\r\nblue.mp4,#0000ff,\r\n`);
  const server = await serve(project);
  const page = await openStudio(server.url);
  await sizePlayer(page, 320);
  await openRows(page, 'viewers.csv');
  await previewRow2(page, 'csv');
  assert.is(await page.$eval('#rows-table tbody tr[data-row="1"] input[name="caption"]', (e) => (e as HTMLInputElement).value), caption);
  const drawn = await checkFonts(page, 'rows table with a CSV');
  assert.ok([...caption.replace(/[ ·]/g, '')].every((ch) => drawn.includes(ch)), `the caption's characters were not among those checked: ${drawn}`);

  await editSaveAndRender(page, project, 'viewers.csv', `outputKey,fill,caption\nred.mp4,#ff0000,\ngreen.mp4,#00ff00,${caption}\nblue.mp4,#ffff00,\n`);
  await saveShot(page, 'studio-rows.png');

  await newRowsFile(page, 'more', '.csv');
  assert.is(fs.readFileSync(path.join(project, 'more.csv'), 'utf8'), 'outputKey,fill,caption\n');
  assert.equal(await page.$$eval('#rows-file option:not([disabled])', (os) => os.map((o) => (o as HTMLOptionElement).value)), ['more.csv', 'viewers.csv']);
  await page.close();
});

studio('a JSONL rows file: rows added, duplicated and deleted, an edit saved, every row rendered; a new one started', async () => {
  const project = fixtureCopy('color-var', out);
  const line = (outputKey: string, variables: Record<string, string>) => `${JSON.stringify({ outputKey, variables })}\n`;
  fs.writeFileSync(path.join(project, 'viewers.jsonl'), line('red.mp4', { fill: '#ff0000' }) + line('green.mp4', { fill: '#00ff00', caption: 'two' }) + line('blue.mp4', { fill: '#0000ff' }));
  const server = await serve(project);
  const page = await openStudio(server.url);
  await sizePlayer(page, 320);
  await openRows(page, 'viewers.jsonl');
  await previewRow2(page, 'jsonl');

  const keys = () => page.$$eval('#rows-table tbody input[name="outputKey"]', (els) => els.map((e) => (e as HTMLInputElement).value));
  await page.click('#rows-add');
  assert.equal(await keys(), ['red.mp4', 'green.mp4', 'blue.mp4', 'row-4.mp4']);
  await page.click('#rows-duplicate');
  assert.equal(await keys(), ['red.mp4', 'green.mp4', 'blue.mp4', 'row-4.mp4', 'row-4-2.mp4']);
  await page.click('#rows-delete');
  await page.click('#rows-delete');
  assert.equal(await keys(), ['red.mp4', 'green.mp4', 'blue.mp4']);

  await editSaveAndRender(page, project, 'viewers.jsonl', line('red.mp4', { fill: '#ff0000' }) + line('green.mp4', { fill: '#00ff00', caption: 'two' }) + line('blue.mp4', { fill: '#ffff00' }));

  await newRowsFile(page, 'more', '.jsonl');
  assert.is(fs.readFileSync(path.join(project, 'more.jsonl'), 'utf8'), '');
  assert.equal(await page.$$eval('#rows-file option:not([disabled])', (os) => os.map((o) => (o as HTMLOptionElement).value)), ['more.jsonl', 'viewers.jsonl']);
  await page.close();
});

studio('screenshots of a new project and a HyperFrames project, light and dark, from 1024 px wide: every character in the bundled fonts', async () => {
  const parent = tempDir('vidkit-studio-init-');
  const init = vidkit(['init', 'demo'], { cwd: parent });
  assert.is(init.status, 0, init.stderr);
  const fresh = await serve(path.join(parent, 'demo'));
  const page = await openStudio(fresh.url, { theme: 'dark' });
  await clickRulerAt(page, 2, 0, 4);
  await waitForFrame(page, 60);
  await saveShot(page, 'studio-new-project-dark.png');
  await checkFonts(page, 'new project, dark');
  await page.click('#theme');
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
  await saveShot(page, 'studio-new-project-light.png');
  // 1024 px wide: nothing overflows the window, and every panel keeps its place.
  await page.setViewport({ width: 1024, height: 700 });
  await page.waitForFunction(() => document.getElementById('tl-canvas')!.clientWidth <= 1024 - 168);
  const layout = await page.evaluate(() => ({
    scroll: document.scrollingElement!.scrollWidth,
    render: document.getElementById('render')!.getBoundingClientRect().right,
    inspector: document.querySelector('.inspector')!.getBoundingClientRect().right,
    timeline: document.querySelector('.tl-toolbar')!.getBoundingClientRect().right,
    stage: document.getElementById('stage')!.clientWidth,
  }));
  assert.ok(layout.scroll <= 1024 && layout.render <= 1024 && layout.inspector <= 1024 && layout.timeline <= 1024, JSON.stringify(layout));
  assert.ok(layout.stage >= 400, `stage ${layout.stage} px wide`);
  await saveShot(page, 'studio-1024-light.png');
  await checkFonts(page, 'new project at 1024 px, light');
  await page.close();

  // A HyperFrames project of several files: the scene entered from the timeline, its file in the source view.
  const hf = fixtureCopy('hf-sub-scenes', out, { gsap: true });
  const server = await serve(hf);
  const hfPage = await openStudio(server.url, { theme: 'dark' });
  assert.equal((await timelineBoxes(hfPage)).clips.map((c) => c.name).sort(), ['#scene-host', 'card-blue', 'card-red']);
  assert.equal(await hfPage.$$eval('button.composition', (els) => els.map((e) => e.getAttribute('data-file'))), ['index.html', 'compositions/card.html', 'compositions/scene.html']);
  await clickRulerAt(hfPage, 0.7, 0, 1);
  await waitForFrame(hfPage, 21);
  // A clip picked: where it is written.
  const names = await hfPage.$$eval('.tl-clip .name', (els) => els.map((e) => e.textContent));
  await (await hfPage.$$('.tl-clip'))[names.indexOf('card-red')].click();
  await hfPage.waitForFunction(() => document.getElementById('tl-details')!.textContent!.includes('index.html:21'), { timeout: 5000 });
  await saveShot(hfPage, 'studio-hyperframes-dark.png');
  // Its enter button opens the scene: the breadcrumb leads back.
  await (await (await hfPage.$$('.tl-clip'))[names.indexOf('#scene-host')].$('.enter'))!.click();
  await hfPage.waitForFunction(() => [...document.querySelectorAll('.crumb')].map((c) => c.textContent).join(' / ') === 'hf-sub-scenes / scene', { timeout: 5000 });
  await checkFonts(hfPage, 'HyperFrames project, dark');
  await hfPage.close();
});

studio('the routes that render or write answer the studio page only (Host and Origin), and serve nothing from outside the project', async () => {
  const project = fixtureCopy('color-var', out);
  const outside = fs.mkdtempSync(path.join(out, 'outside-'));
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'SECRET');
  fs.writeFileSync(path.join(outside, 'rows.jsonl'), '{"outputKey":"a.mp4","variables":{}}\n');
  fs.writeFileSync(path.join(project, '.env'), 'TOKEN=1');
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(project, 'escape.txt'));
  fs.symlinkSync(outside, path.join(project, 'linked'));
  fs.symlinkSync(path.join(outside, 'rows.jsonl'), path.join(project, 'rows.jsonl'));
  const server = await serve(project);
  const own = new URL(server.url);
  const post = (route: string, body: unknown, headers: Record<string, string>) =>
    httpRequest(server.url, `/__vidkit/studio/${route}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const json = { 'content-type': 'application/json' };
  const job = { kind: 'video', composition: 'index.html', variables: {}, format: 'mp4', quality: 'draft' };
  // Another name for this machine (DNS rebinding), another site's page, no Origin, a form's content type: all refused.
  const refused = [
    { ...json, host: `attacker.example:${own.port}`, origin: `http://attacker.example:${own.port}` },
    { ...json, origin: 'http://attacker.example' },
    { ...json, origin: `http://localhost:${Number(own.port) + 1}` },
    { ...json },
    { 'content-type': 'text/plain', origin: own.origin },
  ];
  for (const headers of refused) {
    const res = await post('jobs', job, headers);
    assert.is(res.status, 403, JSON.stringify(headers));
    assert.is((await post('rows/new', { file: 'fresh.jsonl', composition: 'index.html' }, headers)).status, 403);
  }
  assert.equal(JSON.parse((await httpGet(server.url, '/__vidkit/studio/jobs')).body), []);
  assert.not.ok(fs.existsSync(path.join(project, 'fresh.jsonl')));
  // The studio's own origin is answered.
  const created = await post('rows/new', { file: 'fresh.jsonl', composition: 'index.html' }, { ...json, origin: own.origin });
  assert.is(created.status, 200, created.body);
  assert.ok(fs.existsSync(path.join(project, 'fresh.jsonl')));
  assert.is((await httpGet(server.url, '/__vidkit/studio/jobs', `attacker.example:${own.port}`)).status, 403);

  // Files: dotfiles, climbing out and symlinks out of the project are neither read nor written.
  for (const file of ['.env', '../outside.txt', 'escape.txt', 'linked/secret.txt']) {
    const res = await httpGet(server.url, `/__vidkit/studio/source?file=${encodeURIComponent(file)}`);
    assert.is(res.status, 400, file);
    assert.not.match(res.body, /SECRET|TOKEN/);
  }
  for (const file of ['linked/rows.jsonl', 'rows.jsonl']) {
    const res = await httpGet(server.url, `/__vidkit/studio/rows?file=${encodeURIComponent(file)}&composition=index.html`);
    assert.is(res.status, 400, file);
    assert.match(res.body, /no such file in the project/);
  }
  for (const [route, body] of [
    ['rows/new', { file: 'linked/new.jsonl' }],
    ['rows/new', { file: '../new.jsonl' }],
    ['rows/save', { file: 'rows.jsonl', rows: [] }],
    ['rows/save', { file: 'linked/rows.jsonl', rows: [] }],
  ] as const) {
    const res = await post(route, { ...body, composition: 'index.html' }, { ...json, origin: own.origin });
    assert.is(res.status, 400, `${route} ${JSON.stringify(body)}: ${res.body}`);
  }
  assert.equal(fs.readdirSync(outside).sort(), ['rows.jsonl', 'secret.txt']);
  assert.is(fs.readFileSync(path.join(outside, 'rows.jsonl'), 'utf8'), '{"outputKey":"a.mp4","variables":{}}\n');
  assert.equal(JSON.parse((await httpGet(server.url, '/__vidkit/studio/rows-files')).body), ['fresh.jsonl']);
});

studio('the queue holds the running render and 8 waiting: the 9th waiting is answered 429 with Retry-After, the Renders tab says the limit, and the preview serves on', async () => {
  const project = fixtureCopy('color-var', out);
  fs.writeFileSync(path.join(project, 'long.html'), LONG_PAGE.replace('data-duration="20"', 'data-duration="120"'));
  const server = await serve(project);
  const origin = new URL(server.url).origin;
  const post = (route: string, body: unknown = {}) =>
    httpRequest(server.url, `/__vidkit/studio/${route}`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify(body) });
  const job = { kind: 'video', composition: 'long.html', variables: {}, format: 'mp4', quality: 'draft' };
  const ids: number[] = [];
  for (let i = 0; i < 9; i++) {
    const res = await post('jobs', job);
    assert.is(res.status, 200, res.body);
    ids.push((JSON.parse(res.body) as { id: number }).id);
  }
  const full = await post('jobs', job);
  assert.is(full.status, 429, full.body);
  assert.is(full.headers['retry-after'], '30');
  assert.equal(JSON.parse(full.body), { error: 'the render queue is full (8 waiting, RENDER_MAX_WAITING); retry after 30 s' });
  const listed = JSON.parse((await httpGet(server.url, '/__vidkit/studio/jobs')).body) as { state: string }[];
  assert.equal(listed.map((j) => j.state), ['rendering', ...Array(8).fill('queued')]);

  // It serves on: the page, with the limit in its Renders tab; a place freed by a cancel is taken again.
  const page = await openStudio(server.url);
  await page.click('[data-tab="renders"]');
  await page.waitForFunction(() => /up to 8 more wait/.test(document.getElementById('queue-limit')!.textContent ?? ''), { timeout: 10_000 });
  assert.is(await page.$$eval('#jobs li.job[data-state="queued"]', (els) => els.length), 8);
  assert.is((await post(`jobs/${ids[1]}/cancel`)).status, 200);
  assert.is((await post('jobs', job)).status, 200);
  assert.is((await post('jobs', job)).status, 429);
  await page.close();
  for (const id of ids) await post(`jobs/${id}/cancel`);
  await server.stop();
  const outDir = path.join(project, 'out');
  assert.equal(fs.existsSync(outDir) ? fs.readdirSync(outDir) : [], [], 'a cancelled render left a file');
});

studio('a name no font can draw (Tibetan) typed in the variables panel warns there, naming its characters as the render warns them', async () => {
  const project = path.join(out, 'glyphs');
  fs.mkdirSync(project, { recursive: true });
  fs.writeFileSync(
    path.join(project, 'index.html'),
    `<!doctype html><html data-composition-variables='[{"id":"name","type":"string","label":"Name","default":"Ada"}]'>
<head><style>html,body{margin:0;background:#fff}</style></head><body>
<div data-composition-id="glyphs" data-width="320" data-height="180" data-duration="0.2"><h1 id="name"></h1></div>
<script>document.getElementById('name').textContent = window.__vidkit.getVariables().name;</script>
</body></html>
`,
  );
  const name = 'བཀྲ་ཤིས';
  const cli = vidkit(['render', project, '--output', path.join(out, 'glyphs.mp4'), '--variables', JSON.stringify({ name })]);
  assert.is(cli.status, 0, cli.stderr);
  const rendered = cli.stderr.split('\n').filter((l) => l.startsWith('vidkit: warning: ') && l.includes('empty boxes'));
  assert.is(rendered.length, 1, cli.stderr);
  assert.match(rendered[0], 'U+0F56');

  const server = await serve(project);
  const page = await browser.newPage();
  await page.goto(server.url);
  await page.waitForSelector('#variables input[name="name"]', { timeout: 60_000 });
  assert.is(await page.$eval('#glyph-warnings', (el) => el.childElementCount), 0);
  await page.click('#variables input[name="name"]', { count: 3 });
  await page.keyboard.type(name);
  await page.waitForFunction(() => document.querySelectorAll('#glyph-warnings li').length > 0, { timeout: 60_000 });
  const shown = await page.$$eval('#glyph-warnings li', (els) => els.map((e) => e.textContent ?? ''));
  assert.equal(shown, [rendered[0].slice('vidkit: warning: '.length)]);

  // A name the fonts draw clears the warning.
  await page.click('#variables input[name="name"]', { count: 3 });
  await page.keyboard.type('Grace');
  await page.waitForFunction(() => document.querySelectorAll('#glyph-warnings li').length === 0, { timeout: 60_000 });
  await page.close();
});

studio('saving the composition reloads it at the frame shown, the playhead where it was', async () => {
  const page = await openStudio(tracksServer.url);
  await clickRulerAt(page, 1.5, 0, 4);
  await waitForFrame(page, 45);
  const before = await page.evaluate(() => new DOMMatrix(getComputedStyle(document.getElementById('tl-playhead')!).transform).m41);
  await page.evaluate(() => {
    const player = document.getElementById('player')!;
    (window as unknown as { reloaded: Promise<void> }).reloaded = new Promise((resolve) => player.addEventListener('ready', () => resolve(), { once: true }));
  });
  const file = path.join(tracks, 'index.html');
  const original = fs.readFileSync(file, 'utf8');
  try {
    fs.writeFileSync(file, original.replace('"default":"#0000ff"', '"default":"#ff0000"'));
    await page.evaluate(() => (window as unknown as { reloaded: Promise<void> }).reloaded);
    await page.waitForFunction(() => document.querySelector<HTMLInputElement>('input[name="color-text"]')?.value === '#ff0000', { timeout: 15_000 });
    await waitForFrame(page, 45);
    const after = await page.evaluate(() => new DOMMatrix(getComputedStyle(document.getElementById('tl-playhead')!).transform).m41);
    assert.is(after, before);
    assert.is((await timelineBoxes(page)).clips.length, 4);
    assert.match(tracksServer.stderr(), /changed .*index\.html/);
  } finally {
    fs.writeFileSync(file, original);
  }
  await page.close();
});

studio('no studio page logged an error', () => {
  assert.equal(consoleErrors, []);
});

studio.run();
