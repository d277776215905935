import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Browser } from 'puppeteer-core';
import sirv from 'sirv';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { findBrowser, launchBrowser } from '../render/browser/browser';
import { ServingCli, built, fixtureCopy, tempDir, vidkit, vidkitServe } from '../test-support/cli';
import { brightFrom, decodeGray, decodePcm, decodeRgbFrame, decodeRgba, hfSubScenesProblems, psnr, readCode, writeCodeVideo, writeTone } from '../test-support/media';
import { addPlayer, playerFrame } from '../test-support/player';

// Sub-compositions (docs/guide/hyperframes.md): the fixtures hf-sub-* rendered by the
// CLI, their decoded frames and soundtrack checked; the preview's player showing the same frames.
const out = tempDir('vidkit-hf-sub-test-');
const W = 320;
const H = 180;

function render(project: string, file: string, args: string[] = []): string {
  const output = path.join(out, file);
  const run = vidkit(['render', project, '--output', output, ...args]);
  assert.is(run.status, 0, run.stderr);
  return output;
}

const files = suite('sub-compositions from files');

files.after(() => fs.rmSync(out, { recursive: true, force: true }));

files('a scene placed by data-composition-src plays its own timeline in host time for data-duration; two instances keep their own variables and #root styles', () => {
  const frames = decodeRgba(render(fixtureCopy('hf-sub-scenes', out, { gsap: true }), 'scenes.mp4', ['--workers', '2']), W, H);
  assert.is(frames.length, 30);
  assert.equal(frames.flatMap((f, i) => hfSubScenesProblems(f, i)), []);
});

files('a host a page script adds while the page loads is mounted before the first frame, at every worker\'s start; one naming a missing file is named in a warning and the render goes on', () => {
  const project = fixtureCopy('hf-sub-scenes', out, { gsap: true });
  const index = path.join(project, 'index.html');
  const page = fs.readFileSync(index, 'utf8');
  const markup = page.split('\n').find((line) => line.includes('id="scene-host"'));
  assert.ok(markup);
  const adds = `<script>
  const root = document.getElementById('root');
  const template = document.createElement('template');
  template.innerHTML = ${JSON.stringify(markup.trim())};
  root.appendChild(template.content.firstElementChild);
  const gone = document.createElement('div');
  gone.setAttribute('data-composition-src', 'compositions/missing.html');
  root.appendChild(gone);
</script>
</body>`;
  fs.writeFileSync(index, page.replace(markup, '').replace('</body>', adds));
  const output = path.join(out, 'late.mp4');
  const run = vidkit(['render', project, '--output', output, '--workers', '2']);
  assert.is(run.status, 0, run.stderr);
  assert.match(run.stderr, 'compositions/missing.html');
  const frames = decodeRgba(output, W, H);
  assert.is(frames.length, 30);
  assert.equal(frames.flatMap((f, i) => hfSubScenesProblems(f, i)), []);
});

files('nested 3 deep through hosts without ids, and an inline template, each from its host\'s start', () => {
  const frames = decodeGray(render(fixtureCopy('hf-sub-nested', out), 'nested.mp4', ['--workers', '1']), W, H);
  assert.is(frames.length, 30);
  const wrong: string[] = [];
  frames.forEach((f, i) => {
    const got = [40, 120, 200, 280].map((x) => f[90 * W + x] > 128);
    const want = [true, i >= 6, i >= 12, i >= 15];
    if (got.join() !== want.join()) wrong.push(`frame ${i}: squares ${got}, want ${want}`);
  });
  assert.equal(wrong, []);
});

files('without data-duration, a host with no data-composition-id stays to its composition\'s end, its timeline holding; a named host lasts its timeline (as HyperFrames renders them)', () => {
  const project = fixtureCopy('hf-sub-scenes', out, { gsap: true });
  // A 0.4 s scene timeline placed at 0.2 s in the 1 s root: it ends at 0.6 s (frame 18).
  const scene = path.join(project, 'compositions', 'scene.html');
  fs.writeFileSync(scene, fs.readFileSync(scene, 'utf8').replace("{ x: 240, duration: 1, ease: 'none' }", "{ x: 96, duration: 0.4, ease: 'none' }"));
  const index = path.join(project, 'index.html');
  const page = fs.readFileSync(index, 'utf8');
  const placed = 'data-composition-id="scene" data-composition-src="compositions/scene.html" data-start="0.5" data-duration="0.5"';
  assert.ok(page.includes(placed));
  // Frame i is at 8 (i - 6) px while the timeline plays, then holds at 96, or is gone.
  const bars = (name: string) => decodeGray(render(project, name, ['--workers', '1']), W, H).map((f) => brightFrom(f, W, 20));
  const playing = (i: number) => (i < 6 ? -1 : Math.min(96, 8 * (i - 6)));

  fs.writeFileSync(index, page.replace(placed, 'data-composition-src="compositions/scene.html" data-start="0.2"'));
  assert.equal(bars('unnamed-host.mp4'), Array.from({ length: 30 }, (_v, i) => playing(i)));
  fs.writeFileSync(index, page.replace(placed, 'data-composition-id="scene" data-composition-src="compositions/scene.html" data-start="0.2"'));
  assert.equal(bars('named-host.mp4'), Array.from({ length: 30 }, (_v, i) => (i < 18 ? playing(i) : -1)));
});

files('in a host without a data-composition-id, the composition root\'s own data-start counts in the page\'s time and its data-duration leaves the host\'s window alone, as HyperFrames reads them', () => {
  const frames = decodeGray(render(fixtureCopy('hf-sub-unnamed-root', out), 'unnamed-root.mp4', ['--workers', '2']), W, H);
  assert.is(frames.length, 30);
  assert.equal(frames.map((f, i) => [i, f[90 * W + 160] > 128]).filter(([, shown]) => shown).map(([i]) => i), Array.from({ length: 21 }, (_v, i) => 9 + i));
});

files('in a host without a data-composition-id, the timeline follows the composition root\'s data-playback-start, not the host\'s, and a video either one, as HyperFrames reads them', () => {
  const project = fixtureCopy('hf-sub-unnamed-offset', out, { gsap: true });
  writeCodeVideo(path.join(project, 'code30.mp4'), '30', 3);
  const frames = decodeGray(render(project, 'unnamed-offset.mp4', ['--workers', '2']), W, H);
  assert.is(frames.length, 30);
  // Each bar grows 300 px a second: its width is 300 × (offset + i / 30), at most 300.
  const width = (f: Buffer, y: number) => Array.from({ length: W }, (_v, x) => f[y * W + x]).filter((v) => v > 128).length;
  const wrong: string[] = [];
  frames.forEach((f, i) => {
    const got = [width(f, 50), width(f, 130)];
    const want = [300 * (i / 30), Math.min(300, 300 * (0.5 + i / 30))];
    if (got.some((w, k) => Math.abs(w - want[k]) > 2)) wrong.push(`frame ${i}: bars ${got.join('/')} px, want ${want.map(Math.round).join('/')}`);
    // Each video starts 0.2 s in, 0.5 s trimmed: at frame i it shows source frame i + 9.
    const codes = [readCode(f, 70), readCode(f, 150)];
    if (codes.some((c) => c !== i + 9)) wrong.push(`frame ${i}: videos show ${codes.join('/')}, want ${i + 9}`);
  });
  assert.equal(wrong, []);
});

files('a sub-composition\'s own audio is mixed from its host\'s start', () => {
  const project = fixtureCopy('hf-sub-audio', out);
  fs.mkdirSync(path.join(project, 'assets'));
  writeTone(path.join(project, 'assets', 'tone.wav'), 2);
  const pcm = decodePcm(render(project, 'audio.mp4', ['--workers', '1']));
  const amplitude = (w: number) => {
    let sum = 0;
    for (let n = w * 4800; n < (w + 1) * 4800; n++) sum += pcm[n] * pcm[n];
    return Math.sqrt((2 * sum) / 4800);
  };
  const wrong: string[] = [];
  // 100 ms windows, away from the edge at 1 s.
  for (const w of [0, 4, 8, 11, 15, 18]) {
    const want = w < 10 ? 0 : 0.5;
    if (Math.abs(amplitude(w) - want) > 0.03) wrong.push(`${w * 100} ms: amplitude ${amplitude(w).toFixed(3)}, want ${want}`);
  }
  assert.equal(wrong, []);
});

files('a scene\'s <script src> for a library the page loads already is not loaded again, mounted by the markup or late: one GSAP for the page, as in HyperFrames', () => {
  // Each case against the same page whose scenes do not load GSAP.
  const stripTags = (project: string) => {
    for (const scene of ['scene-a.html', 'scene-b.html']) {
      const file = path.join(project, 'compositions', scene);
      const html = fs.readFileSync(file, 'utf8');
      assert.ok(html.includes('<script src="../gsap.min.js"></script>'), `${scene} loads GSAP`);
      fs.writeFileSync(file, html.replace('<script src="../gsap.min.js"></script>', ''));
    }
    return project;
  };
  // Scene b's host added by a page script instead, mounted once the page has loaded.
  const mountLate = (project: string) => {
    const index = path.join(project, 'index.html');
    const page = fs.readFileSync(index, 'utf8');
    const host = page.split('\n').find((line) => line.includes('id="b"'));
    assert.ok(host, 'scene b\'s host line');
    const adds = `<script>document.getElementById('root').insertAdjacentHTML('beforeend', ${JSON.stringify(host.trim())});</script>\n</body>`;
    fs.writeFileSync(index, page.replace(host, '').replace('</body>', adds));
    return project;
  };
  const copy = () => fixtureCopy('hf-sub-shared-library', out, { gsap: true });
  const frames = (project: string, file: string) => decodeGray(render(project, file, ['--workers', '2']), W, H);
  const differing = (got: Buffer[], want: Buffer[]) => got.flatMap((f, i) => (f.equals(want[i]) ? [] : [i]));
  const inMarkup = frames(copy(), 'shared-library.mp4');
  assert.is(inMarkup.length, 30);
  assert.equal(differing(inMarkup, frames(stripTags(copy()), 'shared-library-once.mp4')), [], 'mounted by the markup');
  assert.equal(differing(frames(mountLate(copy()), 'shared-library-late.mp4'), frames(mountLate(stripTags(copy())), 'shared-library-late-once.mp4')), [], 'scene b mounted late');
  // Both chips move: the scenes' tweens are there, not failed.
  const chips = inMarkup.map((f) => [f[90 * W + 80], f[90 * W + 240]]);
  assert.ok(new Set(chips.map((c) => c.join())).size > 2, `the chips change: ${JSON.stringify(chips)}`);
});

files('vidkit render --composition renders a sub-composition file on its own; a missing data-composition-src is bad input', () => {
  const project = fixtureCopy('hf-sub-scenes', out, { gsap: true });
  const frames = decodeGray(render(project, 'standalone.mp4', ['--composition', 'compositions/scene.html']), W, 40);
  assert.is(frames.length, 30, 'no data-duration: 1 s from the scene timeline');
  assert.equal(frames.map((f) => brightFrom(f, W, 20)), frames.map((_f, i) => 8 * i));

  fs.writeFileSync(path.join(project, 'index.html'), fs.readFileSync(path.join(project, 'index.html'), 'utf8').replace('data-composition-src="compositions/scene.html"', 'data-composition-src="compositions/missing.html"'));
  const run = vidkit(['render', project, '--output', path.join(out, 'missing.mp4')]);
  assert.is(run.status, 2, run.stderr);
  assert.match(run.stderr, 'data-composition-src="compositions/missing.html" names no file in the project');
});

files('vidkit compositions lists the host page and its sub-composition files, with --json', () => {
  const project = fixtureCopy('hf-sub-scenes', out);
  const run = vidkit(['compositions', project, '--json']);
  assert.is(run.status, 0, run.stderr);
  const list = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
  assert.equal(
    list.map((c) => [c.file, c.id, c.width, c.height, c.durationSeconds, (c.variables as Array<{ id: string }>).map((v) => v.id)]),
    [
      ['index.html', 'hf-sub-scenes', 320, 180, 1, []],
      ['compositions/card.html', 'card', 120, 40, null, ['color']],
      ['compositions/scene.html', 'scene', 320, 40, null, []],
    ],
  );
  const text = vidkit(['compositions', project]);
  assert.is(text.status, 0, text.stderr);
  assert.match(text.stdout, /card\tcompositions\/card\.html\t120x40\tinferred\tcolor:color/);
});

files.run();

const player = suite('sub-compositions in the preview');
let browser: Browser;
const playerOut = tempDir('vidkit-hf-sub-player-');

player.before(async () => {
  browser = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' });
});

player.after(async () => {
  await browser?.close();
  fs.rmSync(playerOut, { recursive: true, force: true });
});

player('the preview serves the page with its sub-compositions mounted: the player shows the render\'s frames', async () => {
  const project = fixtureCopy('hf-sub-scenes', playerOut, { gsap: true });
  const rendered = path.join(playerOut, 'reference.mp4');
  const run = vidkit(['render', project, '--output', rendered, '--workers', '1']);
  assert.is(run.status, 0, run.stderr);
  let preview: ServingCli | undefined;
  try {
    preview = await vidkitServe(['preview', project, '--port', '0']);
    const page = await browser.newPage();
    await page.setViewport({ width: 800, height: 600 });
    await page.goto(preview.url);
    await addPlayer(page, 'hf', {}, W, H);
    for (const frame of [5, 20, 28]) {
      const shown = await playerFrame(page, 'hf', frame, 30, path.join(playerOut, `player-${frame}.png`));
      const reference = decodeRgbFrame(rendered, frame, W, H);
      assert.is(reference[(20 * W + 8 * (frame - 15) + 5) * 3] > 128, frame >= 15, `frame ${frame}: the scene's bar`);
      const db = psnr(shown, reference);
      assert.ok(db >= 35, `frame ${frame}: player against render ${db.toFixed(1)} dB`);
    }
    await page.close();
  } finally {
    await preview?.stop();
  }
});

player('a player on a plain static server (as in the web templates) mounts the sub-compositions itself', async () => {
  const site = fs.mkdtempSync(path.join(playerOut, 'site-'));
  fs.copyFileSync(built('player', 'vidkit-player.js'), path.join(site, 'vidkit-player.js'));
  fs.writeFileSync(path.join(site, 'index.html'), '<!doctype html><script type="module" src="/vidkit-player.js"></script><body></body>');
  fs.renameSync(fixtureCopy('hf-sub-scenes', playerOut, { gsap: true }), path.join(site, 'project'));
  const serve = sirv(site, { dev: true });
  const server = http.createServer((req, res) => serve(req, res, () => {
    res.statusCode = 404;
    res.end();
  }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 800, height: 600 });
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await addPlayer(page, 'hf', { src: 'project/index.html' }, W, H);
    const wrong: string[] = [];
    for (const frame of [5, 20, 28]) {
      const shown = await playerFrame(page, 'hf', frame, 30, path.join(playerOut, `static-${frame}.png`));
      const rgba = Buffer.alloc(W * H * 4);
      for (let i = 0; i < W * H; i++) shown.copy(rgba, i * 4, i * 3, i * 3 + 3);
      wrong.push(...hfSubScenesProblems(rgba, frame));
    }
    assert.equal(wrong, []);
    await page.close();
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

player.run();
