// tier: unit
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REDRAW_DELAYS_MS, drawUntilImage } from './redraw';

const image = Buffer.from('jpeg bytes');

/** A begin-frame that returns no image `empty` times, then `image`; it counts its calls. */
function compositor(empty: number) {
  const calls: number[] = [];
  const waits: number[] = [];
  return {
    calls,
    waits,
    beginFrame: async () => {
      calls.push(waits.length);
      return calls.length > empty ? { screenshotData: image.toString('base64') } : {};
    },
    wait: async (ms: number) => void waits.push(ms),
  };
}

test('a begin-frame with an image is used at once, with no wait', async () => {
  const c = compositor(0);
  assert.equal(await drawUntilImage(0, c.beginFrame, c.wait), image);
  assert.equal([c.calls.length, c.waits], [1, []]);
});

test('one that comes back without an image is asked again after a growing wait', async () => {
  const c = compositor(3);
  assert.equal(await drawUntilImage(7, c.beginFrame, c.wait), image);
  assert.is(c.calls.length, 4);
  assert.equal(c.waits, REDRAW_DELAYS_MS.slice(1, 4));
});

test('a frame that never draws fails naming it, after every delay', async () => {
  const c = compositor(Infinity);
  try {
    await drawUntilImage(12, c.beginFrame, c.wait);
    assert.unreachable('it returned an image');
  } catch (err) {
    assert.match(String(err), /the browser drew nothing for frame 12 in 6 begin-frames over 1\.55 s/);
  }
  assert.is(c.calls.length, REDRAW_DELAYS_MS.length);
  assert.equal(c.waits, REDRAW_DELAYS_MS.slice(1));
});

test('the waits are real time by default', async () => {
  const c = compositor(1);
  const started = performance.now();
  await drawUntilImage(0, c.beginFrame);
  assert.ok(performance.now() - started >= REDRAW_DELAYS_MS[1] - 5);
});

test.run();
