import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT, fixtureCopy, tempDir, vidkit } from '../test-support/cli';
import { decodeRgbFrame, rgbAt } from '../test-support/media';

// @hyperframes/shader-transitions (docs/guide/hyperframes.md): the renderer gives the
// library the hooks HyperFrames' renderer gives it, and composites each transition frame.
const out = tempDir('vidkit-shader-test-');
const W = 320;
const H = 180;
const env = { HOME: tempDir('vidkit-home-'), XDG_CACHE_HOME: tempDir('vidkit-cache-') };

const reddish = ([r, g, b]: number[]) => r > 180 && g < 80 && b < 80;
const bluish = ([r, g, b]: number[]) => b > 180 && r < 80 && g < 80;

test('a shader transition renders: the first scene, an iris of the second mid-way, then the second', () => {
  const project = fixtureCopy('hf-shader', out, { gsap: true });
  const library = path.join(REPO_ROOT, 'node_modules', '@hyperframes', 'shader-transitions', 'dist', 'index.global.js');
  fs.copyFileSync(library, path.join(project, 'shader-transitions.js'));
  const output = path.join(out, 'shader.mp4');
  const run = vidkit(['render', project, '--output', output], { env });
  assert.is(run.status, 0, run.stderr);
  const at = (frame: number, x: number, y: number) => rgbAt(decodeRgbFrame(output, frame, W, H), W, x, y);
  // Frame 0: the second scene is hidden from the start (no loading overlay, no blue on top).
  for (const [x, y] of [[160, 90], [10, 10]]) assert.ok(reddish(at(0, x, y)), `frame 0 at ${x},${y}: ${at(0, x, y)}`);
  // Mid-way (0.5 s): the iris has opened on the second scene in the middle; the corners are still the first.
  assert.ok(bluish(at(15, 160, 90)), `frame 15 middle: ${at(15, 160, 90)}`);
  assert.ok(reddish(at(15, 4, 4)), `frame 15 corner: ${at(15, 4, 4)}`);
  // After it: the second scene.
  for (const [x, y] of [[160, 90], [4, 4]]) assert.ok(bluish(at(29, x, y)), `frame 29 at ${x},${y}: ${at(29, x, y)}`);
});

test('a scene that plays a video is drawn with its picture during the transition, not black', () => {
  const project = fixtureCopy('hf-shader', out, { gsap: true });
  fs.copyFileSync(path.join(REPO_ROOT, 'node_modules', '@hyperframes', 'shader-transitions', 'dist', 'index.global.js'), path.join(project, 'shader-transitions.js'));
  // The first scene is a green video at a quarter of the frame's area, stretched over the scene.
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=0x00ff00:s=160x90:r=30:d=2', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', path.join(project, 'green.mp4')]);
  const html = fs.readFileSync(path.join(project, 'index.html'), 'utf8');
  const withVideo = html.replace('<div id="red" class="scene"></div>', '<div id="red" class="scene"><video src="green.mp4" data-start="0" data-duration="1" muted style="width:100%;height:100%;object-fit:cover"></video></div>');
  assert.is.not(withVideo, html);
  fs.writeFileSync(path.join(project, 'index.html'), withVideo);
  const output = path.join(out, 'shader-video.mp4');
  const run = vidkit(['render', project, '--output', output], { env });
  assert.is(run.status, 0, run.stderr);
  const greenish = ([r, g, b]: number[]) => g > 180 && r < 80 && b < 80;
  const at = (frame: number, x: number, y: number) => rgbAt(decodeRgbFrame(output, frame, W, H), W, x, y);
  assert.ok(greenish(at(5, 4, 4)), `frame 5 corner, before the transition: ${at(5, 4, 4)}`);
  // Mid-way: the iris shows the second scene in the middle; the corners, the video, in its full size.
  assert.ok(bluish(at(15, 160, 90)), `frame 15 middle: ${at(15, 160, 90)}`);
  for (const [x, y] of [[4, 4], [315, 175], [315, 4]]) assert.ok(greenish(at(15, x, y)), `frame 15 at ${x},${y}: ${at(15, x, y)}`);
});

test.run();
