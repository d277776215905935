import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'puppeteer-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { findBrowser, launchBrowser } from '../render/browser/browser';
import { ServingCli, fixtureCopy, tempDir, vidkit, vidkitServe } from '../test-support/cli';
import {
  brightFrom,
  decodeGray,
  decodePcm,
  decodeRgbFrame,
  decodeRgba,
  hfTimelinesProblems,
  psnr,
  readPatternCode,
  writePatternVideo,
  writeTone,
} from '../test-support/media';
import { addPlayer, playerFrame } from '../test-support/player';

// HyperFrames compositions (docs/guide/hyperframes.md): the fixtures hf-* rendered by the
// CLI, their decoded frames and soundtrack checked frame by frame.
const out = tempDir('vidkit-hf-test-');
const W = 320;
const H = 180;

/** Renders `project` with `args`, asserting success; the output file. */
function render(project: string, file: string, args: string[] = []): string {
  const output = path.join(out, file);
  const run = vidkit(['render', project, '--output', output, ...args]);
  assert.is(run.status, 0, run.stderr);
  return output;
}

function rgbaAt(frame: Buffer, x: number, y: number): number[] {
  const i = (y * W + x) * 4;
  return [...frame.subarray(i, i + 4)];
}

const clips = suite('clips, relative starts and timelines');

clips('each clip shows exactly in its frames: data-duration, data-end, relative starts, a clip ending hides the clips inside it and what it holds, even an element visible by its own CSS', () => {
  const frames = decodeRgba(render(fixtureCopy('hf-clips', out), 'clips.mp4', ['--workers', '1']), W, H);
  assert.is(frames.length, 30);
  const expected: Array<[string, number, number, number, number, number]> = [
    // name, x, y, colour channel, first frame, last frame + 1
    ['a (data-start 0.2, data-duration 0.3)', 40, 50, 0, 6, 15],
    ['b (data-start "a + 0.1")', 120, 50, 1, 18, 24],
    ['c (data-start "b - 0.1", data-end 1)', 200, 50, 2, 21, 30],
    ['inner (1 s inside a 0.5 s clip)', 280, 150, 0, 0, 15],
    ['button (visibility: visible inside a 0.5 s clip)', 40, 150, 1, 0, 15],
  ];
  const wrong: string[] = [];
  frames.forEach((f, i) => {
    for (const [name, x, y, channel, from, to] of expected) {
      const shown = rgbaAt(f, x, y)[channel] > 128;
      if (shown !== (i >= from && i < to)) wrong.push(`frame ${i}: ${name} ${shown ? 'shown' : 'absent'}`);
    }
  });
  assert.equal(wrong, []);
});

for (const workers of ['1', '3']) {
  clips(`root and nested GSAP timelines and clips are exact across chunk seams, length from the timeline, --workers ${workers}`, () => {
    const output = render(fixtureCopy('hf-timelines', out, { gsap: true }), `timelines-${workers}.mp4`, ['--workers', workers]);
    const frames = decodeGray(output, W, H);
    assert.is(frames.length, 60, 'no data-duration: 2 s from the root timeline');
    assert.equal(frames.flatMap((f, i) => hfTimelinesProblems(f, i)), []);
  });
}

clips('clips in the page\'s flow: length from the last clip, a CSS animation starts with its clip, a hidden clip leaves the layout; __hfTypegpuTime', () => {
  const frames = decodeGray(render(fixtureCopy('hf-layout', out), 'layout.mp4', ['--workers', '2']), W, H);
  assert.is(frames.length, 30, 'no data-duration: 1 s from the last clip');
  const wrong: string[] = [];
  frames.forEach((f, i) => {
    const got = [brightFrom(f, W, 20), f[70 * W + 220] > 128, brightFrom(f, W, 140)];
    const want = [i < 15 ? -1 : 4 * (i - 15), i >= 15, 4 * i];
    if (got.join() !== want.join()) wrong.push(`frame ${i}: got ${got}, want ${want}`);
  });
  assert.equal(wrong, []);
});

clips('a CSS animation in a clip sampled exactly on an iteration boundary shows the iteration HyperFrames shows there', () => {
  const frames = decodeGray(render(fixtureCopy('hf-iteration-boundaries', out), 'boundaries.mp4', ['--workers', '2']), W, H);
  assert.is(frames.length, 60);
  const boxes: Array<[string, number, number, number, number, number, number]> = [
    // name, centre x, clip start, delay, iteration (thirds of a ms: frame i is at 100 i exactly),
    // the boundary frame, what HyperFrames 0.8.170 draws there (compat rows fuzz-s2-c43, fuzz-s2-c137)
    ['#a', 40, 2850, 150, 2400, 54, 255],
    ['#b', 160, 900, 0, 2700, 36, 0],
  ];
  const wrong: string[] = [];
  frames.forEach((f, i) => {
    for (const [name, x, start, delay, iteration, boundary, drawn] of boxes) {
      const t = 100 * i;
      const active = t - start - delay;
      const exact = t < start ? 0 : active < 0 ? 255 : Math.round(255 * (1 - (active % iteration) / iteration));
      const want = i === boundary ? drawn : exact;
      const got = f[80 * W + x];
      if (Math.abs(got - want) > 12) wrong.push(`frame ${i}: ${name} ${got}, want ${want}`);
    }
  });
  assert.equal(wrong, []);
});

for (const workers of ['1', '3']) {
  clips(`timelines the page registers from timers are there on the first frame, as HyperFrames waits for them; a later timer keeps its time (--workers ${workers})`, () => {
    const frames = decodeGray(render(fixtureCopy('hf-timer-timelines', out, { gsap: true }), `timer-timelines-${workers}.mp4`, ['--workers', workers]), W, H);
    assert.is(frames.length, 60);
    const wrong: string[] = [];
    frames.forEach((f, i) => {
      const got = [brightFrom(f, W, 20), brightFrom(f, W, 60), brightFrom(f, W, 100), brightFrom(f, W, 150)];
      const want = [4 * i, 4 * i, 4 * i, i >= 51 ? 0 : -1];
      if (got.join() !== want.join()) wrong.push(`frame ${i}: got ${got}, want ${want}`);
    });
    assert.equal(wrong, []);
  });
}

clips('window.__hf is there before page scripts; its duration and seek are the renderer\'s, replacing the page\'s own', () => {
  const frames = decodeGray(render(fixtureCopy('hf-protocol', out), 'protocol.mp4'), W, H);
  assert.is(frames.length, 15);
  assert.equal(frames.map((f) => brightFrom(f, W, 80)), frames.map((_, i) => 4 * i), 'the bar follows time / __hf.duration = 0.5');
  assert.equal(frames.map((f) => brightFrom(f, W, 140)), frames.map(() => -1), 'the page\'s own seek is never called');
});

clips.run();

const adapters = suite('adapters, Web Animations and iframes');

adapters('hf-seek with waitUntil, __hfThreeTime, __hfAnime, __hfLottie and a paused Web Animation follow the clock, --workers 2', () => {
  const frames = decodeGray(render(fixtureCopy('hf-adapters', out), 'adapters.mp4', ['--workers', '2']), W, H);
  assert.is(frames.length, 30);
  const rows: Array<[string, number]> = [
    ['hf-seek canvas', 20],
    ['__hfThreeTime canvas', 50],
    ['__hfAnime', 80],
    ['__hfLottie', 110],
    ['paused Web Animation', 140],
  ];
  const wrong: string[] = [];
  frames.forEach((f, i) => {
    for (const [name, y] of rows) {
      const x = brightFrom(f, W, y);
      if (Math.abs(x - 4 * i) > 1) wrong.push(`frame ${i}: ${name} at ${x}, want ${4 * i}`);
    }
  });
  assert.equal(wrong, []);
});

for (const workers of ['1', '3']) {
  adapters(`a same-origin iframe's requestAnimationFrame loop follows the clock, --workers ${workers}`, () => {
    const frames = decodeGray(render(fixtureCopy('hf-iframe', out), `iframe-${workers}.mp4`, ['--workers', workers]), W, H);
    assert.is(frames.length, 30);
    assert.equal(frames.map((f) => brightFrom(f, W, 80)), frames.map((_, i) => 4 * i));
  });
}

adapters.run();

const output = suite('alpha, media and variables');

output('--format webm: html and body are transparent though the page paints them; the root keeps its own background', () => {
  const file = render(fixtureCopy('hf-alpha', out), 'alpha.webm', ['--format', 'webm']);
  const frames = decodeRgba(file, W, H, 'libvpx-vp9');
  assert.is(frames.length, 6);
  for (const [i, f] of frames.entries()) {
    const box = rgbaAt(f, 80, 80);
    assert.ok(box[3] === 255 && box[0] > 240 && box[1] < 15 && box[2] < 15, `frame ${i}: box ${box}`);
    for (const [x, y] of [[5, 5], [200, 100], [300, 170]]) {
      const root = rgbaAt(f, x, y);
      assert.ok(Math.abs(root[3] - 128) <= 3 && root[2] > 240 && root[0] < 15, `frame ${i}: root at ${x},${y} is ${root}, want half-transparent blue`);
    }
  }
});

output('video: relative data-start, data-media-start, data-playback-start, data-playback-rate, trimmed by data-duration, hidden outside its window; length from the media', () => {
  const project = fixtureCopy('hf-media', out);
  writePatternVideo(path.join(project, 'pattern.mp4'));
  const frames = decodeGray(render(project, 'media.mp4'), W, H);
  assert.is(frames.length, 60, 'no data-duration: 2 s, where the last video ends');
  const wrong: string[] = [];
  frames.forEach((f, i) => {
    const got = [readPatternCode(f, 0), readPatternCode(f, 96)];
    const want = [i >= 15 && i < 30 ? 15 + 2 * (i - 15) : 0, i >= 30 ? i : 0];
    if (got.join() !== want.join()) wrong.push(`frame ${i}: got ${got}, want ${want}`);
  });
  assert.equal(wrong, []);
});

output('the root\'s clips are layers over each other, sized by data-width/height or the root; a video in a flex row fills its box from the first frame of every range', () => {
  const project = fixtureCopy('hf-root-layers', out);
  writePatternVideo(path.join(project, 'pattern.mp4'));
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', path.join(project, 'pattern.mp4'), '-vf', 'scale=160:32', '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '30', path.join(project, 'small.mp4')]);
  const frames = decodeGray(render(project, 'root-layers.mp4', ['--workers', '2']), W, H);
  assert.is(frames.length, 30);
  const wrong: string[] = [];
  frames.forEach((f, i) => {
    const at = (x: number, y: number) => f[y * W + x];
    const got = { under: Math.abs(at(10, 40) - 64) < 12, code: readPatternCode(f, 100), sized: at(90, 40) > 200, beside: at(70, 40) < 100, full: at(310, 175) > 200 };
    const want = { under: true, code: 30 + i, sized: true, beside: true, full: true };
    if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push(`frame ${i}: got ${JSON.stringify(got)}`);
  });
  assert.equal(wrong, []);
});

output('timelines sharing targets: a scene\'s timeline plays past its clip, and a running stagger shows its members that have not started in their from-state', () => {
  const frames = decodeGray(render(fixtureCopy('hf-shared-targets', out, { gsap: true }), 'shared-targets.mp4', ['--workers', '2']), W, H);
  assert.is(frames.length, 60);
  // From 1 s the chips drawn are scene c's, members 3 and 4 of both scenes' staggers (0.2 s each,
  // 0.3 s apart): scene a's from 0.1 s, so its last member fades c's right chip in at 1.0-1.2 s,
  // after scene a's clip; scene c's from 1.4 s, so its members 3 and 4 start after the video and
  // show the from-state (hidden) from the first frame the stagger runs (HyperFrames re-renders the
  // timeline 1 ms back each frame, which renders them).
  const state = (f: Buffer, x: number) => (f[90 * W + x] > 200 ? 'shown' : f[90 * W + x] < 30 ? 'hidden' : 'between');
  const staggerRuns = (i: number) => i / 30 > 1.4 + 1e-9;
  const left = (i: number) => (staggerRuns(i) ? 'hidden' : 'shown');
  const right = (i: number) => (staggerRuns(i) || i === 30 ? 'hidden' : i <= 34 ? 'between' : 'shown');
  const wrong: string[] = [];
  for (let i = 30; i < 60; i++) {
    const got = [state(frames[i], 80), state(frames[i], 240)].join('/');
    const want = [left(i), right(i)].join('/');
    if (got !== want) wrong.push(`frame ${i}: ${got}, want ${want}`);
  }
  assert.equal(wrong, []);
});

output('the mix follows a timeline tweening volume, data-volume and trims by data-duration, across 3 chunks', () => {
  const project = fixtureCopy('hf-volume', out, { gsap: true });
  writeTone(path.join(project, 'tone.wav'), 2);
  const pcm = decodePcm(render(project, 'volume.mp4', ['--workers', '3']));
  // The tone's amplitude over each 100 ms from its RMS: 0.5 × volume.
  const amplitude = (from: number) => {
    let sum = 0;
    for (let n = from * 4800; n < (from + 1) * 4800; n++) sum += pcm[n] * pcm[n];
    return Math.sqrt((2 * sum) / 4800);
  };
  const wrong: string[] = [];
  for (let w = 0; w < 20; w++) {
    const want = w < 10 ? 0.5 * (1 - (w + 0.5) / 10) : w < 15 ? 0.25 : 0;
    const got = amplitude(w);
    if (Math.abs(got - want) > 0.02) wrong.push(`${w * 100}-${w * 100 + 100} ms: amplitude ${got.toFixed(3)}, want ${want.toFixed(3)}`);
  }
  assert.equal(wrong, []);
});

output('variables of <html> and of the root, font and image types, CSS --id, data-var-src, data-var-text, __hyperframes and __hfVariables', () => {
  const overrides = { accent: '#00ff00', logo: 'blue.svg', size: 80, label: 'Hello', family: 'Noto Serif' };
  const file = render(fixtureCopy('hf-variables', out), 'variables.mp4', ['--variables', JSON.stringify(overrides), '--strict-variables']);
  const frame = decodeRgbFrame(file, 0, W, H);
  const at = (x: number, y: number) => [...frame.subarray((y * W + x) * 3, (y * W + x) * 3 + 3)];
  const [swatch, logo, scripted, beyond, check] = [at(40, 40), at(120, 40), at(240, 40), at(260, 40), at(90, 150)];
  assert.ok(swatch[1] > 200 && swatch[0] < 50, `var(--accent) overridden to green: ${swatch}`);
  assert.ok(logo[2] > 200 && logo[0] < 50, `data-var-src shows blue.svg: ${logo}`);
  assert.ok(scripted.every((c) => c > 200) && beyond.every((c) => c < 50), `getVariables() gave size 80: ${scripted} then ${beyond}`);
  assert.ok(check[1] > 200 && check[0] < 50, `data-var-text and __hfVariables read the override, __hfVariables holds only the overrides: ${check}`);
});

output.run();

const player = suite('the player');

let browser: Browser;

player.before(async () => {
  browser = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' });
});

player.after(async () => {
  await browser?.close();
  fs.rmSync(out, { recursive: true, force: true });
});

player('shows the render\'s frames of a composition whose length only its timelines give', async () => {
  const project = fixtureCopy('hf-timelines', out, { gsap: true });
  const rendered = render(project, 'player-reference.mp4', ['--workers', '1']);
  let preview: ServingCli | undefined;
  try {
    preview = await vidkitServe(['preview', project, '--port', '0']);
    const page = await browser.newPage();
    await page.setViewport({ width: 800, height: 600 });
    await page.goto(preview.url);
    await addPlayer(page, 'hf', {}, W, H);
    assert.is(await page.evaluate(() => (document.getElementById('hf') as unknown as { duration: number }).duration), 2);
    for (const frame of [10, 20, 40]) {
      const shown = await playerFrame(page, 'hf', frame, 30, path.join(out, `player-${frame}.png`));
      const db = psnr(shown, decodeRgbFrame(rendered, frame, W, H));
      assert.ok(db >= 35, `frame ${frame}: player against render ${db.toFixed(1)} dB`);
    }
    await page.close();
  } finally {
    await preview?.stop();
  }
});

player.run();
