import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'puppeteer-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { findBrowser, launchBrowser } from '../browser/browser';
import { ServingCli, tempDir, vidkit, vidkitServe } from '../../test-support/cli';
import { LATE_PAGE, writeLateProject } from '../../test-support/late-drawing';
import { decodeImageRgb, decodeRgbFrame, frameHashes, imageAsVideoRgb, psnr } from '../../test-support/media';
import { addPlayer, playerFrame } from '../../test-support/player';

// Frame i shows the page at time i/fps however the page got there: text in a web font that a
// timer shows or creates at 0.5 s, text a script first writes in its first animation frame (in the
// generic monospace face, drawn with a bundled web font), a canvas with an image a script loads, a
// video. Each frame waits for
// the fonts and images the page has asked for, so 1, 2 and 3 workers draw the same bytes.

const { width: W, height: H, frames: FRAMES, shown: SHOWN, text: TEXT, late: LATE, sprite: SPRITE, background: BACKGROUND } = LATE_PAGE;
const work = tempDir('vidkit-capture-loads-');

const BY_SCRIPT = writeLateProject(path.join(work, 'by-script'), 'by-script');
const IN_SOURCE = writeLateProject(path.join(work, 'in-source'), 'in-source');

/** Renders `project` as a PNG sequence into `name`; returns each frame's bytes. */
function sequence(project: string, name: string, args: string[], capture: string): Buffer[] {
  const dir = path.join(work, name);
  const run = vidkit(['render', project, '--format', 'png-sequence', '--output', dir, ...args]);
  assert.is(run.status, 0, run.stderr);
  assert.match(run.stderr, new RegExp(`capture ${capture}`));
  const files = fs.readdirSync(dir).sort();
  assert.is(files.length, FRAMES);
  return files.map((f) => fs.readFileSync(path.join(dir, f)));
}

function rgbOf(png: Buffer): Buffer {
  const file = path.join(work, 'frame.png');
  fs.writeFileSync(file, png);
  return decodeImageRgb(file);
}

/** Rows [top, bottom) of a packed RGB frame `W` wide. */
const band = (rgb: Buffer, [top, bottom]: readonly [number, number]) => rgb.subarray(top * W * 3, bottom * W * 3);
/** Every pixel white: nothing drawn there. */
const blank = (pixels: Buffer) => pixels.every((v) => v >= 250);
/** Some pixel dark: text drawn there. */
const inked = (pixels: Buffer) => pixels.some((v) => v < 80);

/** Pure red or blue at a point of a packed RGB frame `W` wide, else `other`. */
function colourAt(rgb: Buffer, { x, y }: { x: number; y: number }): 'red' | 'blue' | 'other' {
  const [r, g, b] = rgb.subarray((y * W + x) * 3, (y * W + x) * 3 + 3);
  if (g > 16) return 'other';
  if (r > 240 && b < 16) return 'red';
  return b > 240 && r < 16 ? 'blue' : 'other';
}

/** The frames whose bytes differ between two sequences. */
function differing(a: Buffer[], b: Buffer[]): number[] {
  return a.flatMap((frame, i) => (frame.equals(b[i]) ? [] : [i]));
}

/**
 * What every render of the composition must show: the text written on the first animation frame
 * from frame 0 on, in every frame the same as 10 frames away (the same text), whichever worker drew
 * it; the late texts absent before 0.5 s and present from then on; the sprite a script loads at
 * frame 9 drawn from frame 9 (its callbacks run once the image is in) and the CSS background image it sets from frame 9, whichever
 * worker's page stepped through frame 9.
 */
function drawnProblems(frames: Buffer[]): string[] {
  const rgb = frames.map(rgbOf);
  const problems: string[] = [];
  rgb.forEach((frame, i) => {
    const text = band(frame, TEXT);
    const same = i + 10 < FRAMES ? i + 10 : i - 10;
    if (!inked(text)) problems.push(`frame ${i}: no per-frame text`);
    else if (!text.equals(band(rgb[same], TEXT))) problems.push(`frame ${i}: the per-frame text differs from frame ${same}, which shows the same text`);
    const late = band(frame, LATE);
    if (i < SHOWN && !blank(late)) problems.push(`frame ${i}: late text before 0.5 s`);
    if (i >= SHOWN && !inked(late)) problems.push(`frame ${i}: no late text`);
    const blue = colourAt(frame, SPRITE) === 'blue';
    if (blue !== i >= SPRITE.from) problems.push(`frame ${i}: the sprite ${blue ? 'drawn before' : 'missing from'} frame ${SPRITE.from}`);
    const red = colourAt(frame, BACKGROUND) === 'red';
    if (red !== i >= BACKGROUND.from) problems.push(`frame ${i}: the background image ${red ? 'shown before' : 'missing from'} frame ${BACKGROUND.from}`);
  });
  return problems;
}

const beginFrame = suite('capture waits for fonts and images: begin-frame capture (a <video> a script adds)');

let reference: Buffer[] = [];

beginFrame('1, 2 and 3 workers write the same PNG bytes; text from its first frame; the late texts from frame 15, as if shown from the start', () => {
  reference = sequence(BY_SCRIPT, 'by-script-1', ['--workers', '1'], 'beginframe');
  assert.equal(drawnProblems(reference), []);
  for (const workers of ['2', '3']) {
    assert.equal(differing(sequence(BY_SCRIPT, `by-script-${workers}`, ['--workers', workers], 'beginframe'), reference), [], `${workers} workers against 1`);
  }
  // Shown at load, the fonts arrive before the first frame: from frame 15 on, the frames of both are one.
  const early = sequence(BY_SCRIPT, 'by-script-early', ['--workers', '1', '--variables', '{"early":true}'], 'beginframe');
  assert.ok(inked(band(rgbOf(early[0]), LATE)), 'the early variant shows the texts at frame 0');
  assert.equal(differing(reference.slice(SHOWN), early.slice(SHOWN)), [], 'from frame 15: the late texts drawn as if shown from the start');
});

beginFrame('vidkit still draws the late texts at frame 15, their first, as the render does', () => {
  const file = path.join(work, 'still.png');
  const run = vidkit(['still', BY_SCRIPT, '--frame', String(SHOWN), '--output', file]);
  assert.is(run.status, 0, run.stderr);
  assert.ok(decodeImageRgb(file).equals(rgbOf(reference[SHOWN])), 'still --frame 15 against the PNG sequence');
});

beginFrame('an MP4 with the default settings shows the late texts from frame 15', () => {
  const file = path.join(work, 'late.mp4');
  const run = vidkit(['render', BY_SCRIPT, '--output', file]);
  assert.is(run.status, 0, run.stderr);
  const png = path.join(work, 'reference.png');
  for (const frame of [SHOWN - 1, SHOWN, SHOWN + 1, FRAMES - 1]) {
    fs.writeFileSync(png, reference[frame]);
    const db = psnr(band(decodeRgbFrame(file, frame, W, H), LATE), band(imageAsVideoRgb(png), LATE));
    // Frame 15 starts the render's second cell, a keyframe: 39.8 dB there; the frame before the
    // texts (14) against frame 15's PNG reads 11.3 dB.
    assert.ok(db >= 35, `frame ${frame}: the late texts' rows at ${db.toFixed(1)} dB against the PNG sequence`);
  }
});

beginFrame('render --batch on a warm page (the second row resets it) draws every frame as a fresh render', () => {
  const rows = path.join(work, 'rows.jsonl');
  fs.writeFileSync(rows, ['first.mov', 'second.mov'].map((outputKey) => JSON.stringify({ outputKey, variables: {} })).join('\n'));
  const outDir = path.join(work, 'batch');
  const batch = vidkit(['render', BY_SCRIPT, '--batch', rows, '--output-dir', outDir, '--format', 'mov', '--batch-concurrency', '1']);
  assert.is(batch.status, 0, batch.stderr);
  const single = path.join(work, 'single.mov');
  const run = vidkit(['render', BY_SCRIPT, '--format', 'mov', '--workers', '1', '--output', single]);
  assert.is(run.status, 0, run.stderr);
  // ProRes codes every frame on its own: the same picture gives the same decoded frame.
  const want = frameHashes(single);
  assert.is(want.length, FRAMES);
  for (const key of ['first.mov', 'second.mov']) assert.equal(frameHashes(path.join(outDir, key)), want, key);
});

let browser: Browser | undefined;
let preview: ServingCli | undefined;

beginFrame.after(async () => {
  await browser?.close();
  await preview?.stop();
});

beginFrame('<vidkit-player> shows the late texts at frame 18 as the render does', async () => {
  browser = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' });
  preview = await vidkitServe(['preview', BY_SCRIPT, '--port', '0']);
  const page = await browser.newPage();
  await page.setViewport({ width: 800, height: 600 });
  await page.goto(preview.url);
  await addPlayer(page, 'late', {}, W, H);
  const shown = band(await playerFrame(page, 'late', 18, 30, path.join(work, 'player.png')), LATE);
  assert.ok(inked(shown), 'the player shows the late texts');
  const db = psnr(shown, band(rgbOf(reference[18]), LATE));
  assert.ok(db >= 40, `the late texts' rows at ${db.toFixed(1)} dB against the render`);
});

beginFrame.run();

const screenshots = suite('capture waits for fonts and images: screenshot capture (--capture screenshot, a <video> in the page source)');

screenshots('1, 2 and 3 workers write the same PNG bytes; text from its first frame; the late texts from frame 15', () => {
  const one = sequence(IN_SOURCE, 'in-source-1', ['--workers', '1', '--capture', 'screenshot'], 'screenshot');
  assert.equal(drawnProblems(one), []);
  for (const workers of ['2', '3']) {
    assert.equal(differing(sequence(IN_SOURCE, `in-source-${workers}`, ['--workers', workers, '--capture', 'screenshot'], 'screenshot'), one), [], `${workers} workers against 1`);
  }
});

screenshots.run();

/** A 64x64 red PNG, `red.png` in `dir`. */
function writeRedPng(dir: string): void {
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=red:s=64x64', '-frames:v', '1', path.join(dir, 'red.png')]);
}

/** Whether the pixel at the top left of a PNG frame is red. */
function redAtTopLeft(file: string): boolean {
  const [r, g, b] = decodeImageRgb(file);
  return r > 240 && g < 16 && b < 16;
}

const lazy = suite('lazy images');

lazy('a lazy <img> out of view, in the page and added by a timer, is loaded: the render does not wait for it in vain', () => {
  const dir = path.join(work, 'lazy');
  fs.mkdirSync(dir, { recursive: true });
  writeRedPng(dir);
  // Below the composition, so Chromium never loads them on its own, and a decode of either would
  // never settle; a timer then scrolls the added one into view.
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html><head><style>html,body{margin:0;background:#fff}img{display:block}</style></head>
<body><div id="root" data-composition-id="lazy" data-width="160" data-height="90" data-duration="0.5" data-fps="30" style="height:90px;overflow:hidden">
<div style="height:3000px"></div><img loading="lazy" src="red.png" width="64" height="64"></div>
<script>
setTimeout(function () {
  var root = document.getElementById('root');
  var img = document.createElement('img');
  img.loading = 'lazy';
  img.src = 'red.png?added';
  img.width = img.height = 90;
  root.appendChild(img);
  root.scrollTop = img.offsetTop;
}, 200);
</script></body></html>`,
  );
  const output = path.join(work, 'lazy-frames');
  const run = vidkit(['render', dir, '--format', 'png-sequence', '--output', output, '--workers', '1', '--load-timeout', '10', '--frame-timeout', '10']);
  assert.is(run.status, 0, run.stderr);
  assert.ok(redAtTopLeft(path.join(output, 'frame_000007.png')), 'frame 6 shows the image added then, decoded before its capture');
});

lazy.run();

const repeats = suite('a frame is repeated only when nothing could have changed it');

for (const capture of ['beginframe', 'screenshot']) {
  repeats(`--capture ${capture}: a canvas painted when an image arrives and a rule added when a fetch completes, outside the clock, show`, () => {
    const dir = path.join(work, `arrival-${capture}`);
    fs.mkdirSync(dir, { recursive: true });
    writeRedPng(dir);
    fs.writeFileSync(path.join(dir, 'rule.txt'), '#box { background: #f00 }');
    // A timer at 0.1 s starts both loads; the paint comes from the decode's promise and the rule
    // from the fetch's, at whatever real time each arrives, with no DOM change.
    fs.writeFileSync(
      path.join(dir, 'index.html'),
      `<!doctype html><html><head><style>html,body{margin:0;background:#fff}canvas,#box{position:absolute;top:0;width:80px;height:90px}#box{left:80px}</style></head>
<body><div data-composition-id="arrival" data-width="160" data-height="90" data-duration="0.5" data-fps="30"><canvas id="c" width="80" height="90"></canvas><div id="box"></div></div>
<script>
var ctx = document.getElementById('c').getContext('2d');
setTimeout(function () {
  var img = new Image();
  img.addEventListener('load', function () { img.decode().then(function () { ctx.drawImage(img, 0, 0, 80, 90); }); });
  img.src = 'red.png';
  fetch('rule.txt').then(function (r) { return r.text(); }).then(function (rule) { document.styleSheets[0].insertRule(rule, 0); });
}, 100);
</script></body></html>`,
    );
    const output = path.join(work, `arrival-${capture}-frames`);
    const run = vidkit(['render', dir, '--format', 'png-sequence', '--output', output, '--workers', '1', '--capture', capture]);
    assert.is(run.status, 0, run.stderr);
    const last = decodeImageRgb(path.join(output, 'frame_000015.png'));
    const at = (x: number) => [...last.subarray(x * 3, x * 3 + 3)];
    assert.equal([at(40), at(120)].map(([r, g, b]) => r > 240 && g < 16 && b < 16), [true, true], `the last frame: canvas ${at(40)}, box ${at(120)}`);
  });
}

repeats.after(() => fs.rmSync(work, { recursive: true, force: true }));

repeats.run();
