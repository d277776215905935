import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT, tempDir, vidkit } from '../test-support/cli';
import { decodeRgbFrame, ffprobe, rgbAt } from '../test-support/media';

const EXAMPLE = path.join(REPO_ROOT, 'examples', 'ui-3d-reveal');

test('ui-3d-reveal renders as H.264 with the duration and frame count of its root, at its aspect ratio at --width 640', () => {
  const output = path.join(tempDir(), 'reveal.mp4');
  // Every variable type overridden; the accent fills the panel at x 13-213, y 43-99 from 0.9 s
  // (x 40-639, y 128-299 of its 1920x1080 root). The page is laid out at its root's size and drawn
  // at a third of it: what is checked here does not need 1080p frames, which took this test twice
  // as long (the root's own size as the default is render.test.ts's check).
  const variables = { headline: 'Rendered by the test', accent: '#ff3366', cards: 4, showBadge: false, theme: 'light' };
  const run = vidkit(['render', EXAMPLE, '--output', output, '--width', '640', '--variables', JSON.stringify(variables), '--strict-variables']);
  assert.is(run.status, 0, run.stderr);
  const probe = ffprobe(output);
  const v = probe.streams.find((s) => s.codec_type === 'video')!;
  assert.equal([v.codec_name, v.pix_fmt, v.width, v.height, v.nb_read_frames], ['h264', 'yuv420p', 640, 360, '180']);
  assert.is(Number(probe.format.duration), 6);
  const [r, g, b] = rgbAt(decodeRgbFrame(output, 150, 640, 360), 640, 113, 71);
  assert.ok(Math.abs(r - 0xff) <= 6 && Math.abs(g - 0x33) <= 6 && Math.abs(b - 0x66) <= 6, `accent pixel ${[r, g, b]}`);
});

test.run();
