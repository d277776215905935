import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, tempDir, vidkit } from '../../test-support/cli';
import { ffprobe } from '../../test-support/media';

// An mp4 render's screenshots leave the browser raw through shared memory (frame-channel.ts) and
// reach the encoder converted to yuv420p: at CRF 0 (lossless x264) the decoded planes are the page's
// pixels converted exactly, which a JPEG of them never is (1-pixel stripes ring). Where the channel
// cannot work (the preloaded library off), the browser's JPEG still makes the video. A still
// keeps the browser's own image.

const work = tempDir('vidkit-frame-channel-');
const [W, H] = [64, 32];
const FRAMES = 3;

/** Left half: 1-pixel black and white columns drawn on a canvas; right half: pure red. */
const project = path.join(work, 'stripes');
fs.mkdirSync(project);
fs.writeFileSync(
  path.join(project, 'index.html'),
  `<!doctype html><html><body style="margin:0">
<div data-composition-id="stripes" data-width="${W}" data-height="${H}" data-fps="30" data-duration="${FRAMES / 30}" style="position:relative;width:${W}px;height:${H}px;background:#f00">
<canvas id="c" width="${W / 2}" height="${H}" style="position:absolute;left:0;top:0"></canvas>
</div>
<script>
const g = document.getElementById('c').getContext('2d');
g.fillStyle = '#000'; g.fillRect(0, 0, ${W / 2}, ${H});
g.fillStyle = '#fff'; for (let x = 1; x < ${W / 2}; x += 2) g.fillRect(x, 0, 1, ${H});
</script></body></html>`,
);

/** Frame `index` of `file` as its three planes, exactly as decoded. */
function planes(file: string, index: number): { y: Buffer; cb: Buffer; cr: Buffer } {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-vf', `select=eq(n\\,${index})`, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-']);
  const luma = W * H;
  return { y: raw.subarray(0, luma), cb: raw.subarray(luma, luma * 1.25), cr: raw.subarray(luma * 1.25, luma * 1.5) };
}

/** Frame channel files in shared memory that the process `pid` made. */
const channelsOf = (pid: number) => (fs.existsSync('/dev/shm') ? fs.readdirSync('/dev/shm').filter((f) => f.startsWith(`vidkit-frames-${pid}.`)) : []);

test('an mp4 gets the page pixels converted exactly (BT.709 limited range), and no channel file stays behind', () => {
  const output = path.join(work, 'raw.mp4');
  // Spawned here rather than through vidkit(): the channel files are named by the process's pid.
  const run = spawnSync(process.execPath, [cli(), 'render', project, '--output', output, '--crf', '0', '--workers', '1'], { encoding: 'utf8' });
  assert.is(run.status, 0, run.stderr);
  assert.equal(channelsOf(run.pid), []);
  assert.is(ffprobe(output).streams[0].nb_frames, String(FRAMES));
  for (let frame = 0; frame < FRAMES; frame++) {
    const { y, cb, cr } = planes(output, frame);
    for (let row = 0; row < H; row++) {
      const line = [...y.subarray(row * W, (row + 1) * W)];
      assert.equal(line.slice(0, W / 2), Array.from({ length: W / 2 }, (_, x) => (x % 2 === 0 ? 16 : 235)), `frame ${frame} row ${row}: the stripes`);
      assert.ok(line.slice(W / 2).every((v) => v === 63), `frame ${frame} row ${row}: red's luma`);
    }
    // Each chroma sample is its 2x2 block's mean: grey over the stripes, red beside them.
    for (let row = 0; row < H / 2; row++) {
      const at = (plane: Buffer) => [...plane.subarray((row * W) / 2, ((row + 1) * W) / 2)];
      assert.equal(at(cb), [...Array(W / 4).fill(128), ...Array(W / 4).fill(102)]);
      assert.equal(at(cr), [...Array(W / 4).fill(128), ...Array(W / 4).fill(240)]);
    }
  }
});

test('without the preloaded library the browser JPEG makes the same video, less exactly', () => {
  const output = path.join(work, 'jpeg.mp4');
  const run = vidkit(['render', project, '--output', output, '--crf', '0', '--workers', '1'], { env: { VIDKIT_BROWSER_PRELOAD: '0' } });
  assert.is(run.status, 0, run.stderr);
  const { y } = planes(output, 0);
  const stripes = [...y.subarray(0, W / 2)];
  // A JPEG of 1-pixel stripes rings: the columns are no longer exactly black and white...
  assert.not.equal(stripes, Array.from({ length: W / 2 }, (_, x) => (x % 2 === 0 ? 16 : 235)));
  // ...but they still alternate dark and light.
  assert.ok(stripes.every((v, x) => (x % 2 === 0 ? v < 80 : v > 170)), stripes.join(' '));
});

test('a JPEG still is the browser image at full size, not a picture for the encoder', () => {
  const output = path.join(work, 'still.jpg');
  const run = vidkit(['still', project, '-o', output]);
  assert.is(run.status, 0, run.stderr);
  const [stream] = ffprobe(output).streams;
  assert.equal([stream.codec_name, stream.width, stream.height], ['mjpeg', W, H]);
});

test.run();
