// tier: unit
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { PageReach } from '../runtime/protocol';
import { pageReach as reach } from '../test-support/page-reach';
import { cutFrames } from '../render/plan/cell-grid';
import { differingVariables, estimateReuse, rowSegments } from './reuse-plan';

test('differing variables: a value, or whether it is overridden at all, differs', () => {
  const ref = { variables: { name: 'Ann', tint: '#f00', size: 2 }, overrides: { name: 'Ann' } };
  assert.equal(differingVariables(ref, { variables: { name: 'Bob', tint: '#f00', size: 2 }, overrides: { name: 'Bob' } }), ['name']);
  assert.equal(differingVariables(ref, { variables: { name: 'Ann', tint: '#f00', size: 2 }, overrides: { name: 'Ann', tint: '#f00' } }), ['tint']);
  assert.equal(differingVariables(ref, ref), []);
  assert.equal(differingVariables(ref, { variables: { name: 'Ann', tint: '#f00', size: 2, extra: { a: 1 } }, overrides: { name: 'Ann' } }), ['extra']);
});

test('a row draws the segments its own differing variables reach, and nothing when none differs', () => {
  const segments = cutFrames(reach(), ['name', 'photo'], 100);
  const own = (differing: string[]) => {
    const d = rowSegments(reach(), differing, segments);
    return 'own' in d ? [...d.own].sort((a, b) => a - b).map((i) => [segments[i].startFrame, segments[i].endFrame]) : d.whole;
  };
  assert.equal(own(['name']), [[0, 5], [50, 60]]);
  assert.equal(own(['photo']), [[20, 30]]);
  assert.equal(own([]), []);
});

test('whatever cannot be bounded renders the row whole, with the reason', () => {
  const whole = (r: PageReach, id = 'name') => {
    const d = rowSegments(r, [id], cutFrames(r, [id], 100));
    return 'whole' in d ? d.whole : undefined;
  };
  assert.is(whole(reach({ reads: ['name'] })), 'a page script read the variable "name"');
  assert.is(whole(reach({ reads: ['photo'] })), undefined, 'a read of another variable leaves this one bounded');
  assert.match(whole(reach({ reads: ['*'] }))!, /render configuration/);
  assert.match(whole(reach({ reads: ['*overrides'] }))!, /__hfVariables/);
  assert.match(whole(reach({ css: ['name'] }))!, /custom property/);
  assert.match(whole(reach({ css: ['*'] }))!, /could not be read/);
  assert.is(whole(reach({ unbounded: 'the page runs scripts' })), 'the page runs scripts');
  assert.is(whole(reach({ unbounded: 'the page runs scripts' }), 'unused'), undefined, 'an unbound variable is not reached through bindings');
  assert.match(whole(reach({ whole: 'the page has an iframe' }), 'unused')!, /iframe/);
  assert.is(whole(reach({ bindings: [{ id: 'name', element: '<span>', frames: null, why: '<span> is in no clip' }] })), '<span> is in no clip');
  assert.equal(cutFrames(reach({ reads: ['name'] }), ['name'], 100).length, 1, 'an unbounded variable cuts nothing');
});

test('the estimate: each row draws what its differing variables reach, a row that cannot be bounded draws everything and mixes its own sound', () => {
  const boot = (variables: Record<string, string>) => ({ variables, overrides: variables });
  const rows = [
    { line: 1, boot: boot({ name: 'Ann', photo: 'a.png' }) },
    { line: 2, boot: boot({ name: 'Bob', photo: 'a.png' }) },
    { line: 4, boot: boot({ name: 'Ann', photo: 'b.png' }) },
    { line: 5, boot: boot({ name: 'Ann', photo: 'a.png' }), totalFrames: 90 },
  ];
  const estimate = estimateReuse(reach(), reach({ reads: ['photo'] }), rows, 100, { num: 30, den: 1 });
  // Cells every 15 frames (an eighth of 100, at least 15), and where the name and the photo begin and end.
  assert.is(estimate.segments, 10);
  assert.equal(estimate.rows.map((r) => [r.line, r.framesRendered, r.framesReused, r.audio.mixed]), [
    [1, 0, 100, 'once'],
    [2, 15, 85, 'once'],
    [4, 100, 0, 'row'],
    [5, 100, 0, 'row'],
  ]);
  assert.is(estimate.rows[2].whole, 'a page script read the variable "photo"');
  assert.is(estimate.rows[2].audio.why, 'the row renders whole: a page script read the variable "photo"');
  assert.match(estimate.rows[3].whole!, /length differs/);
  assert.is(estimate.framesDrawn, 100 + 15 + 100 + 100);
  assert.is(estimate.framesAlone, 400);
  assert.equal(estimateReuse(reach(), reach(), rows.slice(0, 2), 100, { num: 30, den: 1 }, true).rows.map((r) => r.audio.mixed), ['none', 'none']);
});

test.run();
