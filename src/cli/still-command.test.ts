import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FIXTURES, errorLines, tempDir, vidkit } from '../test-support/cli';
import { ffprobe, psnr } from '../test-support/media';

const out = tempDir('vidkit-still-test-');
const SQUARE = path.join(FIXTURES, 'transparent-square');

/** An image file as packed RGBA, decoded by ffmpeg. */
function rgba(file: string): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgba', '-'], { maxBuffer: 64 << 20 });
}

const still = suite('vidkit still');

still('--frame 7 and --time 0.25 give frame 7 as a PNG of the composition size, matching frame 7 of a png-sequence render', () => {
  const frames = path.join(out, 'frames');
  const render = vidkit(['render', SQUARE, '--format', 'png-sequence', '-o', frames, '--workers', '2']);
  assert.is(render.status, 0, render.stderr);
  const rendered = rgba(path.join(frames, 'frame_000008.png'));

  const byFrame = path.join(out, 'by-frame.png');
  const a = vidkit(['still', SQUARE, '--frame', '7', '-o', byFrame, '--json']);
  assert.is(a.status, 0, a.stderr);
  const result = JSON.parse(a.stdout);
  assert.equal(
    [result.output, result.frame, result.width, result.height, result.format, result.bytes],
    [byFrame, 7, 320, 180, 'png', fs.statSync(byFrame).size],
  );
  const v = ffprobe(byFrame).streams[0];
  assert.equal([v.codec_name, v.width, v.height, v.pix_fmt], ['png', 320, 180, 'rgba']);
  assert.ok(psnr(rgba(byFrame), rendered) >= 45, `PSNR ${psnr(rgba(byFrame), rendered)}`);

  // 0.25 s at 30 fps is frame 7.5: the frame showing it is 7.
  const byTime = path.join(out, 'by-time.png');
  const b = vidkit(['still', SQUARE, '--time', '0.25', '-o', byTime]);
  assert.is(b.status, 0, b.stderr);
  assert.is(b.stdout.trim(), byTime);
  assert.ok(psnr(rgba(byTime), rendered) >= 45, `PSNR ${psnr(rgba(byTime), rendered)}`);
  // Another frame does not match: the comparison sees the box move.
  assert.ok(psnr(rgba(path.join(frames, 'frame_000001.png')), rendered) < 45);
  assert.equal(fs.readdirSync(out).filter((f) => f.includes('partial')), []);
});

still('a .jpg is an opaque JPEG; --resolution 720p draws the 320x180 composition at 1280x720', () => {
  const file = path.join(out, 'poster.jpg');
  const r = vidkit(['still', SQUARE, '--frame', '3', '--resolution', '720p', '-o', file]);
  assert.is(r.status, 0, r.stderr);
  const v = ffprobe(file).streams[0];
  assert.equal([v.codec_name, v.width, v.height], ['mjpeg', 1280, 720]);
});

still('bad input: one error line, exit 2, nothing written', () => {
  const file = path.join(out, 'bad.png');
  for (const [args, message] of [
    [['--frame', '15'], 'frame 15 is past the end: the composition has 15 frames at 30 fps (0 to 14)'],
    [['--frame', '2', '--time', '0.1'], 'give --frame or --time, not both'],
    [['--frame=-1'], '--frame must be a whole number from 0, got "-1"'],
    [['--resolution', 'portrait-720p'], "--resolution portrait-720p (720x1280) does not keep the composition's 320x180 aspect ratio: use --resolution landscape-720p"],
    [['--resolution', '720p', '--width', '640'], '--resolution names the output size: give it or --width/--height, not both'],
  ] as const) {
    const r = vidkit(['still', SQUARE, ...args, '-o', file]);
    assert.is(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(errorLines(r.stderr), [`vidkit: error: ${message}`]);
  }
  const gif = vidkit(['still', SQUARE, '-o', path.join(out, 'still.gif')]);
  assert.is(gif.status, 2);
  assert.equal(errorLines(gif.stderr), [`vidkit: error: --output ${path.join(out, 'still.gif')}: a still is a .png or .jpg (.jpeg) file`]);
  assert.is(vidkit(['still', SQUARE, '--no-such-option', '-o', file]).status, 2);
  assert.not.ok(fs.existsSync(file));
});

still('--help names every placeholder and lists the exit codes', () => {
  const r = vidkit(['still', '--help']);
  assert.is(r.status, 0, r.stderr);
  assert.not.match(r.stdout, /#\d/);
  for (const text of ['--frame <frame>', '--time <time>', '--output,-o <output>', '--variables-file <variables-file>', '--resolution <resolution>', '2  bad input', '4  output not writable']) {
    assert.ok(r.stdout.includes(text), `no "${text}" in:\n${r.stdout}`);
  }
});

still.run();
