import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findBrowser, launchBrowser } from '../render/browser/browser';
import { serveProject } from '../render/serve/project-server';
import { tempDir, vidkit } from '../test-support/cli';
import { decodeRgbFrame } from '../test-support/media';

// A composition's body scripts run once its fonts have loaded (src/runtime/page/after-fonts.ts):
// text a script measures at load has the size it is drawn at, and the scripts still see what they
// would while parsing (their DOMContentLoaded and load listeners called, document.write in place,
// classic scripts before modules).
const out = tempDir('vidkit-after-fonts-test-');
const W = 640;
const H = 200;
const FONT = require.resolve('@fontsource-variable/open-sans/files/open-sans-latin-wdth-normal.woff2');

test.after(() => fs.rmSync(out, { recursive: true, force: true }));

function project(name: string, body: string): string {
  const dir = path.join(out, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(FONT, path.join(dir, 'probe.woff2'));
  fs.writeFileSync(path.join(dir, 'lib.js'), 'window.libReady = true;\n');
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html><head><meta charset="utf-8"><style>
  html, body { margin: 0; background: #000; }
  @font-face { font-family: "Probe"; src: url("probe.woff2"); font-stretch: 75% 100%; }
  #t { position: absolute; left: 20px; top: 10px; font: 30px "Probe"; font-stretch: 75%; color: #fff; white-space: nowrap; }
  #bar { position: absolute; left: 20px; top: 60px; height: 10px; background: #ff0; }
  .box { position: absolute; top: 120px; width: 20px; height: 20px; }
</style></head><body>
<div id="root" data-composition-id="probe" data-start="0" data-duration="0.2" data-width="${W}" data-height="${H}" data-no-timeline>
  <div id="t">Caption text</div><div id="bar"></div>
</div>
<script>
  function box(x, ok) {
    const b = document.createElement('div');
    b.className = 'box';
    b.style.left = x + 'px';
    b.style.background = ok ? '#0f0' : '#f00';
    document.getElementById('root').appendChild(b);
  }
</script>
${body}
</body></html>`,
  );
  return dir;
}

// Green at the box's place (x), red there, or nothing.
function boxAt(frame: Buffer, x: number): 'green' | 'red' | 'none' {
  const i = (130 * W + x + 10) * 3;
  const [r, g] = [frame[i], frame[i + 1]];
  return g > 200 && r < 60 ? 'green' : r > 200 && g < 60 ? 'red' : 'none';
}

test('a body script measures text in its web font: the bar it sizes is as wide as the text drawn; listeners, document.write and script order hold', () => {
  const dir = project(
    'render',
    `<script type="module">box(140, window.classicAfterModule === true);</script>
<script>
  const bar = document.getElementById('bar');
  bar.style.width = document.getElementById('t').getBoundingClientRect().width + 'px';
  document.addEventListener('DOMContentLoaded', function () { box(20, true); });
  window.addEventListener('load', function () { box(60, true); });
  document.write('<div class="box" style="left:180px;background:#0f0"></div>');
</script>
<script src="lib.js"></script>
<script>box(100, window.libReady === true); window.classicAfterModule = true;</script>`,
  );
  const output = path.join(out, 'render.mp4');
  const run = vidkit(['render', dir, '--output', output, '--quality', 'high']);
  assert.is(run.status, 0, run.stderr);
  const frame = decodeRgbFrame(output, 0, W, H);
  const span = (y0: number, y1: number, hit: (r: number, g: number, b: number) => boolean): [number, number] => {
    let lo = W;
    let hi = -1;
    for (let y = y0; y < y1; y++) {
      for (let x = 0; x < W; x++) {
        const i = (y * W + x) * 3;
        if (hit(frame[i], frame[i + 1], frame[i + 2])) [lo, hi] = [Math.min(lo, x), Math.max(hi, x)];
      }
    }
    return [lo, hi];
  };
  const ink = span(10, 55, (r, g, b) => r > 160 && g > 160 && b > 160);
  const bar = span(62, 68, (r, g, b) => r > 200 && g > 200 && b < 80);
  assert.ok(ink[1] > ink[0] && bar[1] > bar[0], `text ${ink}, bar ${bar}`);
  // Drawn in the fallback face the text measures about 40 px wider than in its own; ink sits inside the advance by its side bearings.
  assert.ok(Math.abs(bar[1] - bar[0] - (ink[1] - ink[0])) <= 6, `bar ${bar} against the text's ink ${ink}`);
  assert.equal(
    { domContentLoaded: boxAt(frame, 20), load: boxAt(frame, 60), scriptFile: boxAt(frame, 100), moduleLast: boxAt(frame, 140), written: boxAt(frame, 180) },
    { domContentLoaded: 'green', load: 'green', scriptFile: 'green', moduleLast: 'green', written: 'green' },
  );
});

test('a page whose one script is a module importing another file runs it before the first frame', () => {
  const dir = project('module', '<script type="module">import { ok } from "./m0.js"; box(20, ok);</script>');
  // A chain of imports, each fetched after the one before is parsed, and a megabyte to parse: a
  // module that runs well after an inline one would.
  for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(dir, `m${i}.js`), `export { ok } from './m${i + 1}.js';\n`);
  fs.writeFileSync(path.join(dir, 'm4.js'), `export const ok = true;\n/*${'x'.repeat(1 << 20)}*/\n`);
  const output = path.join(out, 'module.mp4');
  const run = vidkit(['render', dir, '--output', output, '--workers', '1']);
  assert.is(run.status, 0, run.stderr);
  assert.is(boxAt(decodeRgbFrame(output, 0, W, H), 20), 'green');
});

test('the served page opened in a browser without the vidkit runtime still runs its scripts, in order', async () => {
  const dir = project('plain', '<script src="lib.js"></script><script>box(100, window.libReady === true);</script>');
  const server = await serveProject(dir);
  const browser = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' });
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}index.html`, { waitUntil: 'load' });
    await page.waitForFunction(() => document.querySelector('.box') !== null, { timeout: 10_000 });
    assert.is(await page.evaluate(() => (document.querySelector('.box') as HTMLElement).style.background), 'rgb(0, 255, 0)');
  } finally {
    await browser.close();
    await server.close();
  }
});

test.run();
