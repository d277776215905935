import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir, vidkit } from '../test-support/cli';
import { decodeRgbFrame, rgbAt } from '../test-support/media';

const out = tempDir('vidkit-failed-loads-test-');
const env = { HOME: tempDir('vidkit-home-'), XDG_CACHE_HOME: tempDir('vidkit-cache-') };

/**
 * A page with decorations that cannot load: an SVG noise texture as a malformed `data:` URL in
 * its CSS, a web font whose file is not there, and (`others`) an image and a stylesheet that are
 * not there; and a red box that draws whatever happens to them.
 */
function brokenDecorations(name: string, others = true): string {
  const dir = path.join(out, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<html><head>${others ? '<link rel="stylesheet" href="missing.css">' : ''}
<style>
  @font-face { font-family: Gone; src: url(gone.woff2) format('woff2'); }
  body { margin: 0; }
  #noise { position: absolute; inset: 0; background-image: url("data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg'><filter"); }
  #box { position: absolute; left: 40px; top: 40px; width: 80px; height: 80px; background: #ff0000; font-family: Gone; }
</style></head>
<body><div data-composition-id="broken" data-width="320" data-height="180" data-duration="0.1">
  <div id="noise"></div>${others ? '<img src="missing.png" alt="">' : ''}<div id="box">x</div>
</div></body></html>`,
  );
  return dir;
}

test('what fails to load is a warning naming it, the page drawn as the browser shows it; --strict fails the render', () => {
  const dir = brokenDecorations('broken');
  const output = path.join(out, 'broken.mp4');
  const run = vidkit(['render', dir, '--output', output], { env });
  assert.is(run.status, 0, run.stderr);
  for (const named of ['image data:image/svg+xml,', 'image ', 'missing.png', 'stylesheet ', 'missing.css', 'font Gone']) {
    assert.ok(run.stderr.includes(named), `warning names ${named}: ${run.stderr}`);
  }
  const [r, g, b] = rgbAt(decodeRgbFrame(output, 2, 320, 180), 320, 80, 80);
  assert.ok(r > 200 && g < 60 && b < 60, `the box is drawn: ${r},${g},${b}`);

  // Only the data: URL, which lint (run first under --strict) does not see.
  const strictOutput = path.join(out, 'strict.mp4');
  const strict = vidkit(['render', brokenDecorations('data-url', false), '--output', strictOutput, '--strict'], { env });
  assert.is(strict.status, 2, strict.stderr);
  assert.match(strict.stderr, /--strict: the composition did not load whole: image data:image\/svg\+xml,.* failed to load/);
  assert.not.ok(fs.existsSync(strictOutput), 'no output under --strict');
});

test('an image a timer adds later that cannot load is a warning too (once, whatever the worker count), and --strict fails for it', () => {
  const dir = path.join(out, 'late');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<html><body style="margin:0;background:#0000ff"><div data-composition-id="late" data-width="160" data-height="90" data-duration="0.4">
<div id="box" style="position:absolute;left:20px;top:20px;width:40px;height:40px;background:#ff0000"></div></div>
<script>setTimeout(function () { var img = new Image(); img.src = 'later-missing.png'; document.body.appendChild(img); }, 200);</script></body></html>`,
  );
  const output = path.join(out, 'late.mp4');
  const run = vidkit(['render', dir, '--output', output, '--workers', '2'], { env });
  assert.is(run.status, 0, run.stderr);
  assert.is(run.stderr.split('later-missing.png').length - 1, 1, `one warning naming it: ${run.stderr}`);
  const [r, g, b] = rgbAt(decodeRgbFrame(output, 10, 160, 90), 160, 40, 40);
  assert.ok(r > 200 && g < 60 && b < 60, `the box is drawn after it: ${r},${g},${b}`);

  const strictOutput = path.join(out, 'late-strict.mp4');
  const strict = vidkit(['render', dir, '--output', strictOutput, '--strict'], { env });
  assert.is(strict.status, 2, strict.stderr);
  assert.match(strict.stderr, /--strict: the composition did not load whole: image \S*later-missing\.png failed to load/);
  assert.not.ok(fs.existsSync(strictOutput), 'no output under --strict');
});

test.run();
