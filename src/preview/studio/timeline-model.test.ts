// tier: unit
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { PlayerClip } from '../../player/vidkit-player';
import { clipLabel, draggedTiming, frameAtX, lanesOf, mediaWindow, placeClips, rulerTicks, scopeOf, trail } from './timeline-model';

const clip = (c: Partial<PlayerClip>): PlayerClip => ({
  tag: 'div',
  id: null,
  composition: null,
  compositionId: null,
  source: null,
  start: 0,
  end: null,
  track: null,
  src: null,
  playbackStart: 0,
  playbackRate: 1,
  sourceDuration: null,
  ...c,
});

// The page of studio-tracks as the runtime lists it: #title, #outro, the scene host and its two clips, the video.
const RUNTIME: PlayerClip[] = [
  clip({ id: 'title', start: 0, end: 1.5, track: 0 }),
  clip({ id: 'outro', start: 2.5, end: 4, track: 0 }),
  clip({ id: 'scene-host', compositionId: 'scene', start: 1, end: 3, track: 1 }),
  clip({ id: 'bar', composition: 2, source: 'compositions/scene.html', start: 1, end: 2 }),
  clip({ id: 'dot', composition: 2, source: 'compositions/scene.html', start: 1.5, end: 3 }),
  clip({ tag: 'video', id: 'clip', start: 0.5, end: 2.5, track: 2, src: 'http://x/pattern.mp4', playbackStart: 0.5, sourceDuration: 2 }),
];
const LINES = {
  'index.html': [
    { line: 22, tag: 'div' },
    { line: 23, tag: 'div' },
    { line: 24, tag: 'div' },
    { line: 25, tag: 'video' },
  ],
  'compositions/scene.html': [
    { line: 4, tag: 'div' },
    { line: 5, tag: 'div' },
  ],
};
const finding = { severity: 'warning' as const, rule: 'clip-duration-and-end', message: 'both', file: 'index.html', line: 23 };

test('each clip gets its line, part by part in order, and the lint findings on that line', () => {
  const placed = placeClips(RUNTIME, 'index.html', LINES, [finding]);
  assert.equal(
    placed.map((c) => [c.id, c.file, c.line, c.findings.length]),
    [
      ['title', 'index.html', 22, 0],
      ['outro', 'index.html', 23, 1],
      ['scene-host', 'index.html', 24, 0],
      ['bar', 'compositions/scene.html', 4, 0],
      ['dot', 'compositions/scene.html', 5, 0],
      ['clip', 'index.html', 25, 0],
    ],
  );
  // A tag that does not match is no line at all, rather than a wrong one.
  assert.is(placeClips([clip({ tag: 'img' })], 'index.html', LINES, [])[0].line, null);
});

test('lanes: one per track in index order, then one per clip without a track; a nested composition over its own window', () => {
  const placed = placeClips(RUNTIME, 'index.html', LINES, []);
  const root = scopeOf(placed, null, 4);
  assert.equal(root, { index: null, start: 0, end: 4 });
  assert.equal(
    lanesOf(placed, root).map((l) => [l.track, l.clips.map(clipLabel)]),
    [
      [0, ['#title', '#outro']],
      [1, ['#scene-host']],
      [2, ['#clip']],
    ],
  );
  const scene = scopeOf(placed, 2, 4);
  assert.equal(scene, { index: 2, start: 1, end: 3 });
  assert.equal(lanesOf(placed, scene).map((l) => l.clips.map(clipLabel)), [['#bar'], ['#dot']]);
  assert.equal(trail(placed, 2), [null, 2]);
  assert.equal(trail(placed, null), [null]);
});

test('a pixel is the nearest frame, within the composition; the ruler marks round steps', () => {
  const scope = { index: null, start: 0, end: 4 };
  assert.is(frameAtX(500, scope, 1000, 30, 120), 60);
  assert.is(frameAtX(504, scope, 1000, 30, 120), 60);
  assert.is(frameAtX(505, scope, 1000, 30, 120), 61);
  assert.is(frameAtX(-20, scope, 1000, 30, 120), 0);
  assert.is(frameAtX(1200, scope, 1000, 30, 120), 119);
  assert.is(frameAtX(500, { index: 2, start: 1, end: 3 }, 1000, 30, 120), 60);
  assert.equal(rulerTicks(scope, 1000), { step: 0.5, times: [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4] });
  assert.equal(rulerTicks({ index: null, start: 0, end: 600 }, 1000).step, 60);
});

test('a medium plays the part of its source its trim and window leave', () => {
  const video = RUNTIME[5];
  assert.equal(mediaWindow(video, 4), { from: 0.5, to: 2, of: 2 });
  assert.equal(mediaWindow({ ...video, playbackRate: 0.5, sourceDuration: 10 }, 4), { from: 0.5, to: 1.5, of: 10 });
  assert.is(mediaWindow({ ...video, sourceDuration: null }, 4), null);
});

test('draggedTiming: a move, a start edge and an end edge on whole frames, in the seconds of the composition around the clip', () => {
  const title = RUNTIME[0];
  assert.equal(draggedTiming(title, 'move', 0.51, 30, 0, 4, false), { 'data-start': '0.5' });
  assert.equal(draggedTiming(title, 'move', -2, 30, 0, 4, false), {}, 'a clip at 0 stays at 0');
  assert.equal(draggedTiming(title, 'start', 0.5, 30, 0, 4, true), { 'data-start': '0.5', 'data-duration': '1', 'data-end': null });
  assert.equal(draggedTiming(title, 'start', 3, 30, 0, 4, false), { 'data-start': '1.467', 'data-duration': '0.033' }, 'one frame is left');
  assert.equal(draggedTiming(title, 'end', 1 / 30, 30, 0, 4, false), { 'data-duration': '1.533' });
  // #dot plays in the scene that starts at 1 s: its data-start is 0.5 of the scene's time.
  assert.equal(draggedTiming(RUNTIME[4], 'move', 0.25, 30, 1, 3, false), { 'data-start': '0.767' });
  assert.equal(draggedTiming(clip({ start: 1, end: null }), 'end', -1, 30, 0, 4, false), { 'data-duration': '2' }, 'an open clip ends where the composition does');
});

test.run();
