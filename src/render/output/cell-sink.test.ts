import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setImmediate as tick } from 'node:timers/promises';
import { CellEncoders } from './cell-sink';
import type { ChunkRange, FrameSink } from '../capture/chunk-renderer';

// The encoders here are recording stand-ins for the native encoder, which takes its frames the
// same way (push, pushRepeat, finish); the renders of range-starts.test.ts check the real one.
// Each push yields to the event loop first, as the native encoder's admission does.
function recorder() {
  const encoded = new Map<number, string[]>();
  const open = (start: number): FrameSink => {
    const frames: string[] = [];
    encoded.set(start, frames);
    return {
      push: async (image) => {
        await tick();
        frames.push(image.toString());
      },
      pushRepeat: async () => {
        await tick();
        frames.push('repeat');
      },
      finish: async () => ({ frames: frames.length, bytes: frames.length * 10 }),
      abort: () => void frames.push('aborted'),
    };
  };
  return { encoded, open };
}

const cells: ChunkRange[] = [
  { index: 0, startFrame: 0, endFrame: 10 },
  { index: 1, startFrame: 10, endFrame: 20 },
];
const part = (startFrame: number, endFrame: number): ChunkRange => ({ index: 0, startFrame, endFrame });
const image = (frame: number) => Buffer.from(`f${frame}`);
const inOrder = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `f${from + i}`);

test('two parts that split a cell: each encoder gets its cell\'s frames in order, whoever drew them first', async () => {
  const { encoded, open } = recorder();
  const encoders = new CellEncoders(cells, open);
  const first = encoders.sink(part(0, 5));
  const second = encoders.sink(part(5, 20));
  // The second part draws all its frames before the first draws any.
  for (let f = 5; f < 20; f++) await second.push(image(f));
  assert.equal([...encoded.keys()], [10], 'the second cell opens at its first frame; the first waits for frame 0');
  for (let f = 0; f < 5; f++) await first.push(image(f));
  assert.equal(await first.finish(), { frames: 5, bytes: 0 });
  assert.equal(await second.finish(), { frames: 15, bytes: 0 });
  assert.equal(await encoders.finish(), { frames: 20, bytes: 200 });
  assert.equal([...encoded.keys()].sort((a, b) => a - b), [0, 10]);
  assert.equal(encoded.get(0), inOrder(0, 10));
  assert.equal(encoded.get(10), inOrder(10, 20));
});

test('frames of two parts drawn at the same time, and repeats, reach the encoder in frame order', async () => {
  const { encoded, open } = recorder();
  const encoders = new CellEncoders(cells, open);
  const first = encoders.sink(part(0, 7));
  const second = encoders.sink(part(7, 20));
  // Frames 3-6 and 9, 12-19 repeat the frame before them: nothing changed on the page.
  const repeats = new Set([3, 4, 5, 6, 9, 12, 13, 14, 15, 16, 17, 18, 19]);
  const draw = async (sink: FrameSink, from: number, to: number) => {
    for (let f = from; f < to; f++) {
      await (repeats.has(f) ? sink.pushRepeat() : sink.push(image(f)));
      await tick();
    }
  };
  await Promise.all([draw(first, 0, 7), draw(second, 7, 20)]);
  await encoders.finish();
  const expected = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => (repeats.has(from + i) ? 'repeat' : `f${from + i}`));
  assert.equal(encoded.get(0), expected(0, 10));
  assert.equal(encoded.get(10), expected(10, 20));
});

test('a part drawing ahead waits once the frames held for the encoders pass the limit, and goes on when they are taken', async () => {
  const { encoded, open } = recorder();
  const encoders = new CellEncoders(cells, open, 6);
  const first = encoders.sink(part(0, 12));
  const second = encoders.sink(part(12, 20));
  await second.push(image(12));
  await second.push(image(13));
  let third = false;
  const waiting = second.push(image(14)).then(() => (third = true));
  await tick();
  await tick();
  assert.is(third, false, '9 bytes held against a limit of 6: the third frame waits');
  for (let f = 0; f < 12; f++) await first.push(image(f));
  await waiting;
  assert.is(third, true);
  assert.equal(encoded.get(10), inOrder(10, 15));
});

test('finishing before every frame of every cell was drawn is our own bug, named as such', async () => {
  const { open } = recorder();
  const encoders = new CellEncoders(cells, open);
  const sink = encoders.sink(part(0, 20));
  for (let f = 0; f < 12; f++) await sink.push(image(f));
  try {
    await encoders.finish();
    assert.unreachable('finished without frames 12-19');
  } catch (err) {
    assert.match((err as Error).message, 'internal error: the cell from frame 10 got its frames up to 12 only');
  }
});

test('abort stops the open encoders; a frame pushed after it is refused', async () => {
  const { encoded, open } = recorder();
  const encoders = new CellEncoders(cells, open);
  const sink = encoders.sink(part(0, 20));
  for (let f = 0; f < 3; f++) await sink.push(image(f));
  sink.abort();
  assert.equal(encoded.get(0), [...inOrder(0, 3), 'aborted']);
  try {
    await sink.push(image(3));
    assert.unreachable('pushed after abort');
  } catch (err) {
    assert.match((err as Error).message, 'the encoder of frame 3 was stopped');
  }
});

test.run();
