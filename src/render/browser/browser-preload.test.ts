import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, tempDir } from '../../test-support/cli';
import { frameHashes } from '../../test-support/media';
import { findBrowser, launchBrowser, openControlledPage } from './browser';

const out = tempDir('vidkit-preload-test-');
const project = path.join(out, 'moving-canvas');

// A full 1920x1080 canvas redrawn every frame: each capture frees and takes again the
// multi-megabyte buffers the preloaded library keeps.
fs.mkdirSync(project, { recursive: true });
fs.writeFileSync(
  path.join(project, 'index.html'),
  `<!doctype html><html><head><style>html,body{margin:0}#root{position:relative;width:1920px;height:1080px}canvas{position:absolute;inset:0}</style></head>
<body><div id="root" data-composition-id="moving-canvas" data-width="1920" data-height="1080" data-duration="2" data-fps="30">
<canvas id="c" width="1920" height="1080"></canvas></div>
<script>
const ctx = document.getElementById('c').getContext('2d');
function draw(now) {
  const t = now / 1000;
  const g = ctx.createLinearGradient(0, 0, 1920, 1080);
  g.addColorStop(0, 'hsl(' + Math.round(t * 90) + ', 70%, 40%)');
  g.addColorStop(1, 'hsl(' + Math.round(200 + t * 60) + ', 70%, 60%)');
  ctx.fillStyle = g;
  ctx.fillRect(0, 0, 1920, 1080);
  for (let i = 0; i < 40; i++) {
    ctx.fillStyle = 'hsla(' + i * 9 + ', 80%, 50%, 0.6)';
    ctx.fillRect((i * 173 + t * 400) % 1920, (i * 97) % 1000, 120, 80);
  }
  requestAnimationFrame(draw);
}
requestAnimationFrame(draw);
</script></body></html>`,
);

/**
 * Renders the project as a PNG sequence and reports the minor page faults of the render and every
 * process it waited for (python's RUSAGE_CHILDREN). PNG frames leave the browser the same way with
 * the library or without; an mp4's JPEG frames go raw through the library
 * (render/capture/frame-channel.ts), so its frames would differ by the JPEG's loss.
 */
function renderCountingFaults(output: string, preload: '0' | '1'): { status: number; stderr: string; faults: number } {
  const count = 'import resource, subprocess, sys\nr = subprocess.run(sys.argv[1:])\nprint(resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt)\nsys.exit(r.returncode)';
  const r = spawnSync('python3', ['-c', count, process.execPath, cli(), 'render', project, '--workers', '1', '--format', 'png-sequence', '-o', output], {
    env: { ...process.env, VIDKIT_BROWSER_PRELOAD: preload },
    encoding: 'utf8',
    timeout: 300_000,
  });
  return { status: r.status ?? -1, stderr: r.stderr, faults: Number(r.stdout.trim().split('\n').pop()) };
}

/** The MD5 of each frame file of a PNG sequence, in frame order. */
const pngHashes = (dir: string) =>
  fs
    .readdirSync(dir)
    .sort()
    .map((name) => createHash('md5').update(fs.readFileSync(path.join(dir, name))).digest('hex'));

const test = suite('the library preloaded into Chromium');

test('keeps the pages a full-frame capture frees and takes again: far fewer page faults, the same frames', () => {
  const kept = renderCountingFaults(path.join(out, 'kept'), '1');
  assert.is(kept.status, 0, kept.stderr);
  const plain = renderCountingFaults(path.join(out, 'plain'), '0');
  assert.is(plain.status, 0, plain.stderr);
  assert.ok(kept.faults > 0 && plain.faults > 0, `faults counted: ${kept.faults} and ${plain.faults}`);
  // Measured: about 61 000 against 150 000. What stays is mostly the shared memory the browser's
  // processes hand each other a frame, which the library leaves alone.
  assert.ok(kept.faults < plain.faults * 0.75, `page faults with the library ${kept.faults}, without ${plain.faults}`);
  const frames = pngHashes(path.join(out, 'kept'));
  assert.is(frames.length, 60);
  assert.equal(frames, pngHashes(path.join(out, 'plain')));
});

/** The Huffman tables of a JPEG: each DHT segment's class, id and 16 code counts, as hex. */
function huffmanTables(jpeg: Buffer): string[] {
  const tables: string[] = [];
  for (let at = 2; at + 4 <= jpeg.length && jpeg[at] === 0xff; ) {
    const marker = jpeg[at + 1];
    const length = jpeg.readUInt16BE(at + 2);
    if (marker === 0xc4) {
      for (let t = at + 4; t < at + 2 + length; ) {
        const counts = jpeg.subarray(t + 1, t + 17);
        tables.push(`${jpeg[t].toString(16)}:${counts.toString('hex')}`);
        t += 17 + counts.reduce((a, b) => a + b, 0);
      }
    }
    if (marker === 0xda) break;
    at += 2 + length;
  }
  return tables;
}

/** A begin-frame JPEG screenshot of a noisy 640x360 canvas, from a browser launched with or without the library. */
async function screenshot(preload: '0' | '1'): Promise<Buffer> {
  const before = process.env.VIDKIT_BROWSER_PRELOAD;
  process.env.VIDKIT_BROWSER_PRELOAD = preload;
  const browser = await launchBrowser({ executablePath: findBrowser(), capture: 'beginframe', gl: 'software' }).finally(() => {
    // Assigning undefined would leave the string "undefined" behind.
    if (before === undefined) delete process.env.VIDKIT_BROWSER_PRELOAD;
    else process.env.VIDKIT_BROWSER_PRELOAD = before;
  });
  try {
    const page = await openControlledPage(browser);
    const client = await page.createCDPSession();
    await client.send('Emulation.setDeviceMetricsOverride', { width: 640, height: 360, deviceScaleFactor: 1, mobile: false });
    await page.setContent('<canvas width="640" height="360" style="display:block"></canvas>').catch(() => undefined);
    await client.send('Runtime.evaluate', {
      expression: `(() => { const c = document.querySelector('canvas').getContext('2d'); let s = 7;
        for (let y = 0; y < 360; y += 4) for (let x = 0; x < 640; x += 4) { s = (s * 1103515245 + 12345) % 2147483648; c.fillStyle = '#' + (s % 16777216).toString(16).padStart(6, '0'); c.fillRect(x, y, 4, 4); } })()`,
    });
    let ticks = 0;
    for (let attempt = 0; attempt < 20; attempt++) {
      const frame = await client.send('HeadlessExperimental.beginFrame', { frameTimeTicks: (ticks += 33), interval: 33, screenshot: { format: 'jpeg', quality: 90 } });
      if (frame.screenshotData) return Buffer.from(frame.screenshotData, 'base64');
    }
    throw new Error('the browser drew no screenshot');
  } finally {
    await browser.close();
  }
}

// Standard tables: libjpeg's defaults (ITU T.81 annex K), whose code counts these are.
const STANDARD_TABLES = [
  '0:00010501010101010100000000000000',
  '10:0002010303020403050504040000017d',
  '1:00030101010101010101010000000000',
  '11:00020102040403040705040400010277',
];

test('has Chromium write its JPEG screenshots with the standard Huffman tables, in one pass: the same pixels as optimised tables', async () => {
  const plain = await screenshot('0');
  const onePass = await screenshot('1');
  assert.not.equal(huffmanTables(plain).sort(), [...STANDARD_TABLES].sort(), 'without the library Chromium optimises its tables');
  assert.equal(huffmanTables(onePass).sort(), [...STANDARD_TABLES].sort());
  assert.ok(onePass.length > plain.length, `one pass: ${onePass.length} bytes, optimised: ${plain.length}`);
  const pixels = (jpeg: Buffer) => {
    const file = path.join(out, `shot-${jpeg.length}.jpg`);
    fs.writeFileSync(file, jpeg);
    return frameHashes(file);
  };
  assert.equal(pixels(onePass), pixels(plain));
});

test('is written once into the cache directory, under the hash of its bytes', () => {
  const cache = path.join(process.env.XDG_CACHE_HOME || path.join(process.env.HOME ?? '', '.cache'), 'vidkit');
  const dirs = fs.readdirSync(cache).filter((name) => /^preload-[0-9a-f]{16}$/.test(name));
  assert.equal(dirs.length, 1, dirs.join(' '));
  const file = path.join(cache, dirs[0], 'libvidkit_preload.so');
  assert.is((fs.statSync(file).mode & 0o777).toString(8), '644');
  assert.is(fs.readFileSync(file).subarray(0, 4).toString('latin1'), '\x7fELF');
  assert.equal(fs.readdirSync(path.join(cache, dirs[0])), ['libvidkit_preload.so']);
});

test.run();
