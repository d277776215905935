import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { findBrowser, launchBrowser } from '../render/browser/browser';
import { serveProject } from '../render/serve/project-server';
import { tempDir, vidkitAsync, vidkitServe } from '../test-support/cli';
import { httpGet } from '../test-support/http';
import { decodeGray, decodeRgbFrame, imageAsVideoRgb, psnr, psnrPerFrame } from '../test-support/media';
import { addPlayer, playerFrame } from '../test-support/player';

// Deterministic fonts (docs/explanation/fonts.md), through real renders and a real server.
const work = tempDir('vidkit-fonts-test-');

/** A fontconfig configuration that lists no font at all: a machine with its fonts removed. */
const EMPTY_FONTCONFIG = path.join(work, 'empty-fonts.conf');
fs.writeFileSync(EMPTY_FONTCONFIG, '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n<fontconfig></fontconfig>\n');

/** A 320x180, 0.5 s project at 10 fps holding `body`; its text slides a little so frames differ. */
function project(name: string, body: string, head = ''): string {
  const dir = path.join(work, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html><head>${head}<style>html,body{margin:0;background:#fff}p{margin:0 0 4px 8px;font-size:16px;color:#000;line-height:20px}
#text{animation:slide 0.5s linear both}@keyframes slide{to{transform:translateX(20px)}}</style></head>
<body><div data-composition-id="${name}" data-width="320" data-height="180" data-duration="0.5" data-fps="10"><div id="text">${body}</div></div></body></html>`,
  );
  return dir;
}

async function render(dir: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const output = path.join(work, `${path.basename(dir)}-${Object.keys(env).join('-') || 'default'}.mp4`);
  const run = await vidkitAsync(['render', dir, '--output', output, ...args], { env });
  assert.is(run.status, 0, run.stderr);
  return output;
}

/** Whether every frame draws text: some pixels dark, as a blank page has none. */
function drawsText(file: string): boolean {
  return decodeGray(file, 320, 180).every((frame) => frame.some((v) => v < 64));
}

function assertSame(file: string, reference: string, what: string): void {
  const values = psnrPerFrame(file, reference);
  assert.is(values.length, 5, `${what}: frames compared`);
  values.forEach((db, i) => assert.ok(db >= 50, `${what}: frame ${i} at ${db.toFixed(1)} dB`));
}

const fonts = suite('deterministic fonts');

fonts('a text composition renders the same pixels with the machine fonts hidden from fontconfig as with them', async () => {
  const dir = project(
    'machine',
    '<p>Plain text, default font</p><p style="font-family: Helvetica, Arial">Helvetica 123</p>' +
      '<p style="font-family: system-ui; font-weight: 700">Bold system-ui</p><p style="font-family: monospace">mono()</p>',
  );
  const withFonts = await render(dir);
  const withoutFonts = await render(dir, [], { FONTCONFIG_FILE: EMPTY_FONTCONFIG });
  assert.ok(drawsText(withFonts), 'text drawn with the machine fonts');
  assert.ok(drawsText(withoutFonts), 'text drawn without them');
  assertSame(withoutFonts, withFonts, 'without machine fonts');
});

/**
 * Text in system and generic families, and the same text in the bundled families they map to, as
 * HyperFrames maps them: a list starting with a generic draws Inter.
 */
function namedAndBundled(): { named: string; bundled: string } {
  const named = project(
    'named',
    '<p style="font-family: Helvetica">Helvetica Wag</p><p style="font-family: \'Segoe UI\'">Segoe Wag</p>' +
      '<p style="font-family: \'Times New Roman\', serif">Times Wag</p><p><span style="font-family: \'Courier New\'">Courier Wag</span> <span style="font-family: Futura">Futura</span> <span style="font-family: \'Bebas Neue\'">Bebas</span></p>' +
      '<p class="g">Generic Wag</p><p style="font-style: italic; font-family: system-ui, \'No Such Font\'">System Wag</p><p class="v">Var Wag</p>',
    '<style>.g{font-family: monospace} :root{--sans: system-ui, sans-serif} .v{font-family: var(--sans)}</style>',
  );
  const bundled = project(
    'bundled',
    '<p style="font-family: Inter">Helvetica Wag</p><p style="font-family: Roboto">Segoe Wag</p>' +
      '<p style="font-family: \'EB Garamond\'">Times Wag</p><p><span style="font-family: \'JetBrains Mono\'">Courier Wag</span> <span style="font-family: Montserrat">Futura</span> <span style="font-family: \'League Gothic\'">Bebas</span></p>' +
      '<p style="font-family: Inter">Generic Wag</p><p style="font: italic 16px Inter">System Wag</p><p style="font-family: Inter">Var Wag</p>',
  );
  return { named, bundled };
}

fonts('Helvetica, Segoe UI, Times New Roman, Courier New, Futura, Bebas Neue and the generic families draw with the bundled families', async () => {
  const { named, bundled } = namedAndBundled();
  const namedOut = await render(named);
  const bundledOut = await render(bundled);
  assert.ok(drawsText(bundledOut));
  assertSame(namedOut, bundledOut, 'system names against bundled families');
});

fonts('a serif, sans-serif or monospace after an unknown family or in a font shorthand, and text without a font-family, draw the faces HyperFrames draws there', async () => {
  // HyperFrames leaves those to Chromium, which draws Liberation Serif, Sans and Mono on Debian:
  // the bundled Tinos, Arimo and Cousine are their metric-compatible twins.
  const fallbacks = project(
    'fallbacks',
    '<p style="font-family: \'Fraunces\', serif; font-size: 28px">Serif Wag 42</p><p style="font-family: \'Nope\', sans-serif">Sans Wag</p>' +
      '<p style="font-family: \'Unknown Mono\', ui-monospace, monospace">mono_wag(7);</p><p>Default Wag</p><p style="font-family: \'Nothing Here\'">Unknown Wag</p>' +
      // A `font` shorthand's generic is not put behind Inter (HyperFrames rewrites font-family declarations only).
      '<p style="font: bold 16px/20px sans-serif">Short Wag</p><p class="short">Rule Wag</p>' +
      // A family only a shorthand names has no face in HyperFrames: the machine's Arial, no Roboto.
      '<p style="font: 16px/20px Arial">Arial Wag</p><p style="font: 16px/20px Roboto, serif">Roboto Wag</p>',
    '<style>.short{font: 16px/20px serif}</style>',
  );
  const faces = project(
    'faces',
    '<p style="font-family: Tinos; font-size: 28px">Serif Wag 42</p><p style="font-family: Arimo">Sans Wag</p>' +
      '<p style="font-family: Cousine">mono_wag(7);</p><p style="font-family: Tinos">Default Wag</p><p style="font-family: Tinos">Unknown Wag</p>' +
      '<p style="font-family: Arimo; font-weight: bold">Short Wag</p><p style="font-family: Tinos">Rule Wag</p>' +
      '<p style="font-family: Arimo">Arial Wag</p><p style="font-family: Tinos">Roboto Wag</p>',
  );
  const facesOut = await render(faces);
  assert.ok(drawsText(facesOut));
  assertSame(await render(fallbacks), facesOut, 'generic fallbacks against the faces standing in for them');
});

fonts('the player in vidkit preview draws those names with the bundled families too', async () => {
  const { named, bundled } = namedAndBundled();
  const reference = await render(bundled);
  const preview = await vidkitServe(['preview', named, '--port', '0']);
  const browser = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' });
  try {
    const page = await browser.newPage();
    await page.goto(preview.url);
    await addPlayer(page, 'fonts', {}, 320, 180);
    const shot = path.join(work, 'player-named.png');
    await playerFrame(page, 'fonts', 0, 10, shot);
    const db = psnr(decodeRgbFrame(reference, 0, 320, 180), imageAsVideoRgb(shot));
    assert.ok(db >= 40, `player frame 0 against the render of the bundled families: ${db.toFixed(1)} dB`);
  } finally {
    await browser.close();
    await preview.stop();
  }
});

fonts('a Google Fonts stylesheet is fetched once for a 2-worker render and its face draws the text', async () => {
  const counts = new Map<string, number>();
  const fontFile = path.join(path.dirname(require.resolve('@fontsource-variable/jetbrains-mono/package.json')), 'files', 'jetbrains-mono-latin-wght-normal.woff2');
  // Stands in for fonts.googleapis.com and fonts.gstatic.com, which answer as this does.
  const server = http.createServer((req, res) => {
    const route = new URL(req.url!, 'http://x').pathname;
    counts.set(route, (counts.get(route) ?? 0) + 1);
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (route === '/css2') {
      res.writeHead(200, { 'content-type': 'text/css; charset=utf-8', 'access-control-allow-origin': '*' });
      res.end(`@font-face { font-family: 'Test Mono'; font-style: normal; font-weight: 400; src: url(${origin}/s/testmono.woff2) format('woff2'); }`);
    } else {
      res.writeHead(200, { 'content-type': 'font/woff2', 'access-control-allow-origin': '*' });
      res.end(fs.readFileSync(fontFile));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const dir = project(
      'google',
      '<p style="font-family: \'Test Mono\'">Google Wag</p>',
      `<link rel="stylesheet" href="http://127.0.0.1:${port}/css2?family=Test+Mono&display=swap">`,
    );
    const reference = await render(project('google-reference', '<p style="font-family: \'JetBrains Mono\'">Google Wag</p>'));
    const output = await render(dir, ['--workers', '2', '--allow-private-network']);
    assert.equal(Object.fromEntries(counts), { '/css2': 1, '/s/testmono.woff2': 1 });
    assertSame(output, reference, 'Google Fonts face against the same file bundled');
  } finally {
    server.close();
  }
});

fonts('a frame of another origin draws its families as the machine has them, with the bundled faces, asking that origin for nothing of them', async () => {
  const requests: string[] = [];
  const page = '<!doctype html><body style="margin:0"><p style="font-family:Helvetica;font-size:20px">Other origin Wag</p>';
  const other = http.createServer((req, res) => {
    requests.push(req.url!);
    res.writeHead(req.url === '/page.html' ? 200 : 404, { 'content-type': 'text/html' });
    res.end(req.url === '/page.html' ? page : 'not found');
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  try {
    const frame = (src: string) => `<iframe src="${src}" style="border:0;width:300px;height:60px"></iframe>`;
    const dir = project('cross-origin', frame(`http://127.0.0.1:${(other.address() as AddressInfo).port}/page.html`));
    const reference = project('same-origin', frame('page.html'));
    // Helvetica is the machine's Liberation Sans there, drawn by its twin Arimo.
    fs.writeFileSync(path.join(reference, 'page.html'), page.replace('Helvetica', 'Arimo'));
    const output = await render(dir, ['--allow-private-network']);
    assert.equal(requests, ['/page.html']);
    assert.ok(drawsText(output));
    assertSame(output, await render(reference), "the other origin's Helvetica against Arimo");
  } finally {
    other.close();
  }
});

fonts('an iframe\'s document is not the composition: its font-family lists draw as the machine has them (no Inter in front of system-ui, no face for Roboto), as HyperFrames draws them', async () => {
  const style = '<style>html,body{margin:0;background:#fff}p{margin:0 0 4px 8px;font-size:16px;color:#000;line-height:20px}</style>';
  const framed = project('framed', '<iframe src="inner.html" style="border:0;position:absolute;left:0;top:0;width:320px;height:180px"></iframe>');
  fs.writeFileSync(
    path.join(framed, 'inner.html'),
    `<!doctype html><html><head>${style}</head><body><p style="font-family: system-ui, sans-serif; font-weight: 800">Framed Wag 42</p>` +
      '<p style="font-family: Roboto">Roboto Wag</p><p style="font-family: Arial, sans-serif">Arial Wag</p></body></html>',
  );
  // In the composition's own document, only a font shorthand's list is drawn as the machine has it.
  const machine = project(
    'machine-lists',
    '<p style="font: 800 16px/20px system-ui, sans-serif">Framed Wag 42</p><p style="font: 16px/20px Roboto">Roboto Wag</p>' +
      '<p style="font: 16px/20px Arial, sans-serif">Arial Wag</p>',
  );
  const output = await render(framed);
  assert.ok(drawsText(output));
  assertSame(output, await render(machine), 'the iframe\'s declarations against shorthands in the page');
});

fonts('Open Sans Variable and Roboto Variable have their width axis: font-stretch 75% draws their text condensed', async () => {
  const lines = ['Open Sans Variable', 'Roboto Variable'].flatMap((family) =>
    ['100%', '75%'].map((stretch) => `<p style="font-family:'${family}';font-stretch:${stretch}">Wide headline WWW mmm</p>`),
  );
  const [frame] = decodeGray(await render(project('widths', lines.join(''))), 320, 180);
  // Each paragraph's text spans 20 rows, 24 apart: how wide its ink is.
  const inkWidth = (line: number) => {
    const xs: number[] = [];
    for (let y = line * 24; y < line * 24 + 20; y++) for (let x = 0; x < 320; x++) if (frame[y * 320 + x] < 128) xs.push(x);
    return xs.length === 0 ? 0 : Math.max(...xs) - Math.min(...xs);
  };
  const [openSans, openSansCondensed, roboto, robotoCondensed] = [0, 1, 2, 3].map(inkWidth);
  assert.ok(openSans > 100 && roboto > 100, `the text is drawn: ${openSans}, ${roboto} px`);
  assert.ok(openSansCondensed < openSans * 0.85, `Open Sans Variable at 75%: ${openSansCondensed} px against ${openSans} at 100%`);
  assert.ok(robotoCondensed < roboto * 0.9, `Roboto Variable at 75%: ${robotoCondensed} px against ${roboto} at 100%`);
});

fonts('the project server serves fonts.css and the font files it names, and nothing else under its path', async () => {
  const server = await serveProject(project('served', '<p>x</p>'));
  try {
    const css = await httpGet(server.url, '/__vidkit-fonts/fonts.css');
    assert.is(css.status, 200);
    assert.match(css.headers['content-type'] ?? '', /^text\/css/);
    const file = /url\((inter\/inter-latin-wght-normal\.woff2)\)/.exec(css.body)?.[1];
    assert.ok(file, 'Inter named in fonts.css');
    assert.match(css.body, /font-family: "helvetica"/);
    const font = await httpGet(server.url, `/__vidkit-fonts/${file}`);
    assert.is(font.status, 200);
    assert.is(font.headers['content-type'], 'font/woff2');
    assert.is((await httpGet(server.url, '/__vidkit-fonts/inter/LICENSE')).status, 404);
    assert.is((await httpGet(server.url, '/__vidkit-fonts/../package.json')).status, 404);
  } finally {
    await server.close();
  }
});

fonts.run();
