// tier: unit
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FrameScheduler } from './frame-scheduler';

const planned = [
  { index: 0, startFrame: 0, endFrame: 100 },
  { index: 1, startFrame: 100, endFrame: 200 },
];
const span = (p: { startFrame: number; endFrame: number } | undefined) => p && [p.startFrame, p.endFrame];

test('planned ranges come out in frame order, then nothing', () => {
  const s = new FrameScheduler([...planned].reverse(), 15);
  assert.equal(span(s.takePlanned()), [0, 100]);
  assert.equal(span(s.takePlanned()), [100, 200]);
  assert.is(s.takePlanned(), undefined);
});

test('a planned range taken while the part before is under way shares what the two have left evenly', () => {
  const s = new FrameScheduler(planned, 15);
  const a = s.takePlanned()!;
  a.next = 20; // drawn while the second worker's page loaded
  const b = s.takePlanned()!;
  assert.equal([span(a), span(b)], [
    [0, 110],
    [110, 200],
  ]);
  assert.is(b.next, 110);
  // A part already done keeps its end.
  const done = new FrameScheduler(planned, 15);
  const c = done.takePlanned()!;
  c.next = 100;
  assert.equal(span(done.takePlanned()), [100, 200]);
});

test('steal takes the second half of the largest remainder and shortens its owner', () => {
  const s = new FrameScheduler(planned, 15);
  const a = s.takePlanned()!;
  const b = s.takePlanned()!;
  a.next = 90; // 10 left
  b.next = 120; // 80 left
  const c = s.steal()!;
  assert.equal(span(c), [160, 200]);
  assert.is(b.endFrame, 160);
  assert.is(c.next, 160);
  assert.equal(
    s.inOrder().map((p) => span(p)),
    [
      [0, 100],
      [100, 160],
      [160, 200],
    ],
  );
});

test('a remainder shorter than two minimum halves is not split', () => {
  const s = new FrameScheduler(planned, 15);
  const a = s.takePlanned()!;
  const b = s.takePlanned()!;
  a.next = 100;
  b.next = 171; // 29 left: halves of 15 and 14
  assert.is(s.canSplit(), false);
  assert.is(s.steal(), undefined);
  b.next = 170; // 30 left
  assert.is(s.canSplit(), true);
  assert.equal(span(s.steal()), [185, 200]);
});

test('repeated steals keep the parts contiguous and cover every frame once', () => {
  const s = new FrameScheduler(planned, 5);
  const parts = [s.takePlanned()!, s.takePlanned()!];
  for (let i = 0; i < 6; i++) {
    for (const p of parts) p.next = Math.min(p.endFrame, p.next + 7);
    const stolen = s.steal();
    if (stolen) parts.push(stolen);
  }
  const ordered = s.inOrder();
  assert.is(ordered[0].startFrame, 0);
  assert.is(ordered[ordered.length - 1].endFrame, 200);
  for (let i = 1; i < ordered.length; i++) assert.is(ordered[i].startFrame, ordered[i - 1].endFrame);
  assert.ok(ordered.length > 2);
});

test('next: a planned range nobody took comes first, whole once its predecessor is done, then steals', () => {
  // `auto` let the first worker draw alone: it takes the second planned range itself.
  const s = new FrameScheduler(planned, 15);
  const a = s.takePlanned()!;
  a.next = 60;
  assert.is(s.canSplit(), true, 'the untaken range counts as frames to take');
  a.next = 100;
  const b = s.next()!;
  assert.equal(span(b), [100, 200]);
  assert.is(a.endFrame, 100);
  b.next = 120;
  assert.equal(span(s.next()), [160, 200]);
  assert.is(b.endFrame, 160);
});

test.run();
