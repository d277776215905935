import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findBrowser, launchBrowser } from '../render/browser/browser';
import { tempDir, vidkitAsync } from '../test-support/cli';
import { decodeGray } from '../test-support/media';
import { PEER_FAMILIES } from './static-fonts';

// A caption wraps at the same word in vidkit as in HyperFrames, in each of HyperFrames' families:
// vidkit's still against the same boxes drawn by plain Chromium with the @fontsource files
// HyperFrames bundles (given as data: URLs under names no machine has), compared by the pixel
// column where each line ends.
const work = tempDir('vidkit-caption-wrap-test-');

const CAPTION = 'Every word lands on time when the story moves fast and keeps up';
const [CELL_W, CELL_H, LINE, COLUMNS] = [640, 160, 32, 2];
const ROWS = Math.ceil(PEER_FAMILIES.length / COLUMNS);
const [W, H] = [CELL_W * COLUMNS, CELL_H * ROWS];

function cells(familyOf: (family: string) => string): string {
  return PEER_FAMILIES.map(({ family }, i) => {
    const [x, y] = [(i % COLUMNS) * CELL_W, Math.floor(i / COLUMNS) * CELL_H];
    return `<div style="position:absolute;left:${x + 8}px;top:${y}px;width:300px;font-weight:400;font-size:24px;line-height:${LINE}px;font-family:'${familyOf(family)}';color:#000">${CAPTION}</div>`;
  }).join('');
}

/** Per family, per line band of its cell: the rightmost column drawn (-1 for an empty band). */
function lineEnds(gray: Buffer): number[][] {
  return PEER_FAMILIES.map((_f, i) => {
    const [x0, y0] = [(i % COLUMNS) * CELL_W, Math.floor(i / COLUMNS) * CELL_H];
    return Array.from({ length: CELL_H / LINE }, (_l, line) => {
      let end = -1;
      for (let y = y0 + line * LINE; y < y0 + (line + 1) * LINE; y++) {
        for (let x = x0 + CELL_W - 1; x > end && x >= x0; x--) if (gray[y * W + x] < 128) end = Math.max(end, x - x0);
      }
      return end;
    });
  });
}

test('a caption wraps at the same word as with the @fontsource files HyperFrames draws it with, in each of its families', async () => {
  const dir = path.join(work, 'project');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html><head><style>html,body{margin:0;background:#fff}</style></head><body>` +
      `<div data-composition-id="wrap" data-width="${W}" data-height="${H}" data-duration="0.1" style="position:relative;width:${W}px;height:${H}px;background:#fff">${cells((f) => f)}</div></body></html>`,
  );
  const still = path.join(work, 'vidkit.png');
  const run = await vidkitAsync(['still', dir, '--time', '0', '--output', still]);
  assert.is(run.status, 0, run.stderr);

  const faces = PEER_FAMILIES.map(({ family, pkg }) => {
    const file = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'files', `${pkg.split('/')[1]}-latin-400-normal.woff2`);
    return `@font-face{font-family:'Reference ${family}';src:url(data:font/woff2;base64,${fs.readFileSync(file).toString('base64')}) format('woff2')}`;
  }).join('');
  const browser = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' });
  const reference = path.join(work, 'reference.png');
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: W, height: H });
    await page.setContent(`<!doctype html><html><head><style>html,body{margin:0;background:#fff}${faces}</style></head><body>${cells((f) => `Reference ${f}`)}</body></html>`);
    const loaded = await page.evaluate(async () => {
      await document.fonts.ready;
      return [...document.fonts].filter((f) => f.status === 'loaded').length;
    });
    assert.is(loaded, PEER_FAMILIES.length, 'reference faces loaded');
    await page.screenshot({ path: reference });
  } finally {
    await browser.close();
  }

  const [got, want] = [lineEnds(decodeGray(still, W, H)[0]), lineEnds(decodeGray(reference, W, H)[0])];
  const wrong = PEER_FAMILIES.flatMap(({ family }, i) =>
    got[i].some((end, line) => Math.abs(end - want[i][line]) > 1) ? [`${family}: line ends ${got[i].join(',')}, want ${want[i].join(',')}`] : [],
  );
  assert.equal(wrong, []);
  assert.ok(want.every((ends) => ends.filter((e) => e >= 0).length >= 2), `every caption wraps: ${JSON.stringify(want)}`);
});

test.after(() => fs.rmSync(work, { recursive: true, force: true }));

test.run();
