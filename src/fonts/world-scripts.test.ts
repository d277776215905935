import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { findBrowser, launchBrowser } from '../render/browser/browser';
import { tempDir, vidkitAsync } from '../test-support/cli';
import { decodeImageRgb, decodeRgba, psnr } from '../test-support/media';
import { FALLBACK_PACKAGES } from './fallback-fonts';
import { SCRIPT_SAMPLES } from './script-samples';

// Names in the world's scripts, through real renders (docs/explanation/fonts.md): drawn by the
// bundled fallback faces, and text no face has is found by the glyph check.
const work = tempDir('vidkit-world-scripts-');
const test = suite('the world\'s scripts');

const WIDTH = 640;
const HEIGHT = 480;
const STYLE = 'html,body{margin:0;background:#fff}p{margin:0 0 6px 8px;font-size:22px;line-height:26px;color:#000}';
const NAMES = SCRIPT_SAMPLES.map((s) => `<p id="${s.id}">${s.text}</p>`).join('');

/** A one-frame project; `name` is a string variable whose default a script writes into p#name. */
function project(dir: string, body: string, name?: string): string {
  const root = path.join(work, dir);
  fs.mkdirSync(root, { recursive: true });
  const declarations = name === undefined ? '' : ` data-composition-variables='${JSON.stringify([{ id: 'name', type: 'string', label: 'Name', default: name }])}'`;
  const script = name === undefined ? '' : '<p id="name"></p><script>document.getElementById("name").textContent = window.__vidkit.getVariables().name;</script>';
  fs.writeFileSync(
    path.join(root, 'index.html'),
    `<!doctype html><html${declarations}><head><style>${STYLE}</style></head><body>` +
      `<div data-composition-id="${dir}" data-width="${WIDTH}" data-height="${HEIGHT}" data-duration="0.1" data-fps="10">${body}${script}</div></body></html>`,
  );
  return root;
}

/** Serves `files` (URL path to file) on 127.0.0.1 while `work` runs. */
async function serving<T>(files: Map<string, string>, work: (origin: string) => Promise<T>): Promise<T> {
  const types: Record<string, string> = { '.html': 'text/html', '.css': 'text/css', '.woff2': 'font/woff2' };
  const server = http.createServer((req, res) => {
    const file = files.get(new URL(req.url!, 'http://x').pathname);
    res.writeHead(file ? 200 : 404, { 'content-type': file ? types[path.extname(file)] ?? 'application/octet-stream' : 'text/plain' });
    res.end(file ? fs.readFileSync(file) : 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await work(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.close();
  }
}

/** RGBA over a white page, as RGB: a png-sequence frame is transparent where the page draws no background. */
function overWhite(rgba: Buffer): Buffer {
  const rgb = Buffer.alloc((rgba.length / 4) * 3);
  for (let i = 0, o = 0; i < rgba.length; i += 4) {
    const a = rgba[i + 3] / 255;
    for (let c = 0; c < 3; c++) rgb[o++] = Math.round(rgba[i + c] * a + 255 * (1 - a));
  }
  return rgb;
}

test('a name in each script is drawn as the browser draws the same faces named by a plain page, none of it by a face outside them', async () => {
  const out = path.join(work, 'names-out');
  const run = await vidkitAsync(['render', project('names', NAMES), '--format', 'png-sequence', '--output', out]);
  assert.is(run.status, 0, run.stderr);
  assert.not.match(run.stderr, /empty boxes/, 'no character is reported without a font');

  // The reference: a plain page (no vidkit) linking the packages' own stylesheets and naming their
  // families in the fallback order, behind the face a composition's text defaults to (Tinos, as
  // the browser's default serif).
  const files = new Map<string, string>();
  const links: string[] = [];
  const packages = [{ pkg: '@fontsource/tinos', family: 'Tinos', sheet: '400.css' }, ...FALLBACK_PACKAGES];
  for (const { pkg, sheet } of packages) {
    const dir = path.dirname(require.resolve(`${pkg}/package.json`));
    files.set(`/${pkg}/${sheet}`, path.join(dir, sheet));
    for (const file of fs.readdirSync(path.join(dir, 'files'))) files.set(`/${pkg}/files/${file}`, path.join(dir, 'files', file));
    links.push(`<link rel="stylesheet" href="/${pkg}/${sheet}">`);
  }
  const families = packages.map((p) => JSON.stringify(p.family)).join(', ');
  const page = path.join(work, 'reference.html');
  fs.writeFileSync(page, `<!doctype html><html><head><meta charset="utf-8">${links.join('')}<style>${STYLE} html{font-family:${families};text-rendering:geometricPrecision}</style></head><body>${NAMES}</body></html>`);
  files.set('/reference.html', page);

  const shot = path.join(work, 'reference.png');
  const used = await serving(files, async (origin) => {
    const browser = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' });
    try {
      const tab = await browser.newPage();
      await tab.setViewport({ width: WIDTH, height: HEIGHT });
      await tab.goto(`${origin}/reference.html`, { waitUntil: 'load' });
      await tab.evaluate('document.fonts.ready');
      await tab.screenshot({ path: shot, clip: { x: 0, y: 0, width: WIDTH, height: HEIGHT } });
      // The faces the browser drew each line with: a character no listed face has would show a
      // system face here (or that face's .notdef, counted among its glyphs).
      const cdp = await tab.createCDPSession();
      await cdp.send('DOM.enable');
      await cdp.send('CSS.enable');
      const { root } = await cdp.send('DOM.getDocument');
      const fonts: Record<string, Array<{ familyName: string; isCustomFont: boolean }>> = {};
      for (const { id } of SCRIPT_SAMPLES) {
        const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: `#${id}` });
        fonts[id] = (await cdp.send('CSS.getPlatformFontsForNode', { nodeId })).fonts;
      }
      return fonts;
    } finally {
      await browser.close();
    }
  });
  for (const { id, script } of SCRIPT_SAMPLES) {
    assert.ok(used[id].length > 0, `${script}: drawn`);
    for (const font of used[id]) assert.ok(font.isCustomFont, `${script} in the reference: drawn by ${font.familyName}, not a bundled face`);
  }
  const db = psnr(overWhite(decodeRgba(path.join(out, 'frame_000001.png'), WIDTH, HEIGHT)[0]), decodeImageRgb(shot));
  assert.ok(db >= 45, `the render against the browser's own drawing of the same faces: ${db.toFixed(1)} dB`);
});

const TOFU = '\uE000\u{10FFFD}';

test('a character no face has is a warning naming the element, the variable and the characters; --strict fails (exit 2) and writes nothing', async () => {
  const dir = project('tofu', '<p>Plain</p>', `Ann ${TOFU}`);
  const output = path.join(work, 'tofu.mp4');
  const warned = await vidkitAsync(['render', dir, '--output', output, '--json']);
  assert.is(warned.status, 0, warned.stderr);
  assert.match(warned.stderr, /warning: <p#name> \(variable "name"\) draws "\uE000" U\+E000, "\u{10FFFD}" U\+10FFFD as empty boxes/u);
  const result = JSON.parse(warned.stdout);
  assert.equal(result.missingGlyphs, [{ element: 'p#name', text: `Ann ${TOFU}`, characters: ['\uE000', '\u{10FFFD}'], variables: ['name'] }]);
  assert.ok(fs.existsSync(output));

  const strict = path.join(work, 'tofu-strict.mp4');
  const failed = await vidkitAsync(['render', dir, '--output', strict, '--strict']);
  assert.is(failed.status, 2, failed.stderr);
  assert.match(failed.stderr, /error: --strict: text no font can draw: <p#name> \(variable "name"\) draws "\uE000" U\+E000/u);
  assert.not.ok(fs.existsSync(strict), 'no output under --strict');
  assert.equal(fs.readdirSync(work).filter((f) => f.startsWith('.tofu-strict')), [], 'no partial output left');
});

test('vidkit lint reports text of the default variables that no face has (glyph-missing), and nothing for names in every script', async () => {
  const bad = await vidkitAsync(['lint', project('lint-tofu', '<p>Plain</p>', `Zoë ${TOFU}`), '--json']);
  assert.is(bad.status, 1, bad.stderr);
  const { findings } = JSON.parse(bad.stdout);
  const glyphs = findings.filter((f: { rule: string }) => f.rule === 'glyph-missing');
  assert.is(glyphs.length, 1, JSON.stringify(findings));
  assert.is(glyphs[0].severity, 'error');
  assert.match(glyphs[0].message, /^with the default variables, <p#name> \(variable "name"\) draws "\uE000" U\+E000, "\u{10FFFD}" U\+10FFFD as empty boxes/u);
  const clean = await vidkitAsync(['lint', project('lint-names', NAMES, '王小明 🎉')]);
  assert.is(clean.status, 0, clean.stdout + clean.stderr);
  assert.match(clean.stdout, /no findings/);
});

test('render --batch flags the row whose variables hold a character no face has, in the manifest and on stdout', async () => {
  const dir = project('batch', '<p>Plain</p>', 'nobody');
  const batch = path.join(work, 'viewers.jsonl');
  fs.writeFileSync(batch, [{ outputKey: 'a.mp4', variables: { name: '김민준 😀' } }, { outputKey: 'b.mp4', variables: { name: `Bob ${TOFU}` } }].map((l) => JSON.stringify(l)).join('\n'));
  const outDir = path.join(work, 'batch-out');
  const run = await vidkitAsync(['render', dir, '--batch', batch, '--output-dir', outDir, '--batch-concurrency', '1', '--json']);
  assert.is(run.status, 0, run.stderr);
  const rows = fs.readFileSync(path.join(outDir, 'viewers.manifest.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const byKey = Object.fromEntries(rows.filter((r) => r.outputKey).map((r) => [r.outputKey, r]));
  assert.is(byKey['a.mp4'].status, 'rendered');
  assert.is(byKey['a.mp4'].missingGlyphs, undefined);
  assert.is(byKey['b.mp4'].status, 'rendered');
  assert.equal(byKey['b.mp4'].missingGlyphs, [{ element: 'p#name', text: `Bob ${TOFU}`, characters: ['\uE000', '\u{10FFFD}'], variables: ['name'] }]);
  assert.match(run.stderr, /line 2 \(b\.mp4\): <p#name> \(variable "name"\) draws/);
  const printed = (JSON.parse(run.stdout) as Array<{ outputKey: string; missingGlyphs?: Array<{ characters: string[] }> }>).find((r) => r.outputKey === 'b.mp4');
  assert.equal(printed?.missingGlyphs?.[0].characters, ['\uE000', '\u{10FFFD}']);
});

test.run();
