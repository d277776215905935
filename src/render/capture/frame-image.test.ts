// tier: unit
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadNative } from '../../native';
import type { FrameChannel, Picture } from '../../native-addon';
import { tempDir } from '../../test-support/cli';
import { decodeGray, ffprobe } from '../../test-support/media';
import { discardingSink, segmentEncoder } from './chunk-renderer';

// A converted picture (frame-channel.ts) is a native handle, not a Buffer: a push moves its pixels
// to the encoder without a copy and leaves the handle empty, a shared handle keeps them for a
// second push (an unchanged page's frame that opens the next cell), and a release frees them.
// The browser's preloaded library is stood in for by writing the channel file as it does
// (crates/vidkit-preload/src/frames.rs: a header of u32 words at the word indices it names, then
// BGRA pixels).

const [W, H] = [64, 32];
const HEADER_BYTES = 64;
const [SEQUENCE, WIDTH, HEIGHT, COLOUR_SPACE, STARTED] = [0, 1, 2, 3, 4];
const JCS_EXT_BGRA = 13;

const work = tempDir('vidkit-frame-image-');

/** Writes screenshot number `sequence`, every pixel `bgra`, into the channel's file and takes it. */
function screenshot(channel: FrameChannel, sequence: number, bgra: [number, number, number, number]): Picture {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(W, WIDTH * 4);
  header.writeUInt32LE(H, HEIGHT * 4);
  header.writeUInt32LE(JCS_EXT_BGRA, COLOUR_SPACE * 4);
  header.writeUInt32LE(sequence, STARTED * 4);
  header.writeUInt32LE(sequence, SEQUENCE * 4);
  const pixels = Buffer.alloc(W * H * 4);
  for (let i = 0; i < pixels.length; i += 4) pixels.set(bgra, i);
  const fd = fs.openSync(channel.path, 'r+');
  fs.writeSync(fd, Buffer.concat([header, pixels]), 0, HEADER_BYTES + pixels.length, 0);
  fs.closeSync(fd);
  const picture = channel.take();
  if (!picture) throw new Error('the channel held no new screenshot');
  return picture;
}

function openChannel(name: string): FrameChannel {
  return new (loadNative().FrameChannel)(path.join(work, name), W, H);
}

test('a pushed picture is the encoder’s; a shared handle pushes the same pixels again; a released one is empty', async () => {
  const channel = openChannel('push');
  const output = path.join(work, 'pictures.mp4');
  const encoder = segmentEncoder(
    { format: 'mp4', width: W, height: H, fps: { num: 30, den: 1 }, crf: 0, preset: 'ultrafast', frameFormat: { type: 'jpeg', quality: 90 } },
    output,
  );
  try {
    const red = screenshot(channel, 1, [0, 0, 255, 255]);
    const planes = W * H * 1.5;
    assert.ok(red.byteLength >= planes, `a picture holds its planes: ${red.byteLength} bytes`);
    const kept = red.share();
    await encoder.push(red);
    assert.is(red.byteLength, 0, 'the pushed handle is empty');
    assert.is(kept.byteLength >= planes, true, 'the shared handle still holds the pixels');
    try {
      await encoder.push(red);
      assert.unreachable('pushed an empty handle');
    } catch (err) {
      assert.match((err as Error).message, /a picture was pushed after it had been pushed or released/);
    }
    await encoder.push(kept);
    const white = screenshot(channel, 2, [255, 255, 255, 255]);
    await encoder.push(white);
    const blue = screenshot(channel, 3, [255, 0, 0, 255]);
    blue.release();
    assert.is(blue.byteLength, 0);
    const done = await encoder.finish();
    assert.is(done.frames, 3);
  } finally {
    channel.close();
  }
  assert.is(ffprobe(output).streams[0].nb_frames, '3');
  // Lossless x264 at CRF 0, read back as full-range grey: red's BT.709 luma (63 of 16-235) twice,
  // the second from the shared handle, then white's.
  const lumas = decodeGray(output, W, H).map((frame) => [...new Set(frame)]);
  assert.equal(lumas, [[55], [55], [255]]);
});

test('the capture-only sink frees each picture as it counts it', async () => {
  const channel = openChannel('discard');
  try {
    const sink = discardingSink();
    const picture = screenshot(channel, 1, [0, 255, 0, 255]);
    await sink.push(picture);
    assert.is(picture.byteLength, 0);
    assert.equal(await sink.finish(), { frames: 1, bytes: 0 });
  } finally {
    channel.close();
  }
});

test.run();
