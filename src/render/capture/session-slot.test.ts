// tier: unit
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setImmediate as tick } from 'node:timers/promises';
import type { CaptureSession } from './capture-session';
import { SessionSlot } from './chunk-renderer';

// The sessions here are stand-ins that record their close; a browser that starts slowly is an open
// the test resolves by hand.
function launcher() {
  const launches: Array<{ resolve: () => void; reject: (err: Error) => void; closed: boolean }> = [];
  const open = () =>
    new Promise<CaptureSession>((resolve, reject) => {
      const launch = { closed: false, resolve: () => resolve(session), reject };
      const session = { close: async () => void (launch.closed = true) } as unknown as CaptureSession;
      launches.push(launch);
    });
  return { launches, open };
}

test('a slot stopped while its browser starts closes that browser once it has started, and opens no other', async () => {
  const { launches, open } = launcher();
  const slot = new SessionSlot(open);
  const current = slot.current();
  await tick();
  let stopped = false;
  const stopping = slot.stop().then(() => (stopped = true));
  await tick();
  assert.not.ok(stopped, 'stop returned before the starting browser was closed');
  launches[0].resolve();
  await stopping;
  assert.ok(launches[0].closed, 'the browser that started after the stop was left open');
  await current.then(
    () => assert.unreachable('the stopped slot handed out a session'),
    (err: Error) => assert.match(err.message, /the render stopped/),
  );
  assert.is(launches.length, 1);
  assert.not.ok(slot.isOpen);
});

test('a slot closed while its browser starts closes it, and the waiting caller gets a new one', async () => {
  const { launches, open } = launcher();
  const slot = new SessionSlot(open);
  const current = slot.current();
  await tick();
  const closing = slot.close();
  launches[0].resolve();
  await closing;
  assert.ok(launches[0].closed);
  await tick();
  assert.is(launches.length, 2, 'the caller was not given a new browser');
  launches[1].resolve();
  await current;
  assert.ok(slot.isOpen);
  assert.not.ok(launches[1].closed);
});

test('callers that ask while the browser starts share it; a failed start is tried again by the next call', async () => {
  const { launches, open } = launcher();
  const slot = new SessionSlot(open);
  const [first, second] = [slot.current(), slot.current()];
  await tick();
  assert.is(launches.length, 1, 'two browsers started for one slot');
  launches[0].reject(new Error('no browser'));
  for (const call of [first, second]) await call.then(() => assert.unreachable('a failed start gave a session'), (err: Error) => assert.is(err.message, 'no browser'));
  const third = slot.current();
  await tick();
  assert.is(launches.length, 2);
  launches[1].resolve();
  await third;
  assert.ok(slot.isOpen);
});

test.run();
