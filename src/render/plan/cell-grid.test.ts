// tier: unit
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pageReach as reach } from '../../test-support/page-reach';
import { cellGrid, cutFrames, framesOf, variablesOf } from './cell-grid';

const spans = (ranges: Array<{ startFrame: number; endFrame: number }>) => ranges.map((r) => [r.startFrame, r.endFrame]);

test('cuts fall where a variable\'s frames begin and end; a variable the page never uses reaches no frame', () => {
  assert.equal(spans(cutFrames(reach(), ['name'], 100)), [[0, 5], [5, 50], [50, 60], [60, 100]]);
  assert.is(cutFrames(reach(), ['name', 'photo'], 100).length, 6);
  assert.equal(spans(cutFrames(reach(), ['unused'], 100)), [[0, 100]]);
  assert.equal(framesOf(reach(), 'unused'), []);
  assert.equal(spans(cutFrames(reach({ reads: ['name'] }), ['name'], 100)), [[0, 100]], 'an unbounded variable cuts nothing');
  assert.equal(spans(cutFrames(reach(), [], 100, 40)), [[0, 40], [40, 80], [80, 100]]);
});

test('cells: every 2 s, an eighth of a short render but at least 15 frames, and at every variable\'s bounds', () => {
  const fps = { num: 30, den: 1 };
  const none = reach({ bindings: [] });
  const noVariables = { variables: {}, overrides: {} };
  assert.equal(spans(cellGrid(none, noVariables, 450, fps)).slice(0, 2), [[0, 57], [57, 114]], 'an eighth of 450 frames is under 2 s');
  assert.equal(spans(cellGrid(none, noVariables, 900, fps)).slice(0, 2), [[0, 60], [60, 120]]);
  assert.equal(spans(cellGrid(none, noVariables, 60, fps)), [[0, 15], [15, 30], [30, 45], [45, 60]]);
  assert.equal(spans(cellGrid(none, noVariables, 10, fps)), [[0, 10]]);
  assert.equal(spans(cellGrid(reach(), { variables: { name: 'Ada' }, overrides: { photo: 'a.png' } }, 100, fps)), [[0, 5], [5, 15], [15, 20], [20, 30], [30, 45], [45, 50], [50, 60], [60, 75], [75, 90], [90, 100]]);
  assert.equal(spans(cellGrid(none, noVariables, 900, { num: 30000, den: 1001 })).slice(0, 1), [[0, 60]]);
});

test('a render\'s variables are those it holds a value for and those a row overrides', () => {
  assert.equal(variablesOf({ variables: { name: 'Ann', tint: '#f00' }, overrides: { extra: 1 } }), ['extra', 'name', 'tint']);
});

test.run();
