// tier: unit
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FIXTURES } from '../test-support/cli';
import type { BatchItem } from './batch-dispatch';
import { ReferenceGate, planBatchReuse, reuseField, reuseKey } from './batch-reuse';
import { validateConfig } from './render';
import type { RenderConfigInput } from './validate-config';
import { prepareSite } from './site';

const test = suite('a cloud batch: its reference, its varying variables and the content key of its shared segments');

const items = (rows: string[]): BatchItem[] => rows.map((variablesJson, i) => ({ line: i + 1, outputKey: `out/${i + 1}.mp4`, variablesJson }));
const parse = (entry: BatchItem) => JSON.parse(entry.variablesJson) as Record<string, unknown>;
const site = prepareSite(path.join(FIXTURES, 'frame-clock'));
const plan = (config: RenderConfigInput, outputKey = 'out/a.mp4') => validateConfig({ siteHandle: site, bucketName: 'bucket', outputKey, config });

test('the reference is the first line whose variables parse; a variable varies when a line sets another value, or sets it where the reference does not', () => {
  const reuse = planBatchReuse(items(['not json', '{"name":"Ann","tint":"#fff"}', '{"name":"Bob","tint":"#fff"}', '{"name":"Ann","tint":"#fff","extra":1}', '{"tint":"#fff","name":"Ann"}']), parse);
  assert.equal(reuse, { referenceLine: 2, referenceVariables: { name: 'Ann', tint: '#fff' }, varying: ['extra', 'name'] });
  assert.equal(reuseField(reuse!, 'k'.repeat(32), 2), { key: 'k'.repeat(32), reference: { varying: ['extra', 'name'] } });
  assert.equal(reuseField(reuse!, 'k'.repeat(32), 3), { key: 'k'.repeat(32) });
});

test('fewer than two lines that can render share nothing', () => {
  assert.is(planBatchReuse(items(['{"name":"Ann"}', '{bad']), parse), undefined);
  assert.is(planBatchReuse(items([]), parse), undefined);
});

test('the content key changes with whatever decides the pixels or their encoding, and not with the chunking, the output key or the render id', () => {
  const base = reuseKey(plan({ variables: { name: 'Ann' } }));
  assert.match(base, /^[0-9a-f]{32}$/);
  assert.is(reuseKey(plan({ variables: { name: 'Ann' } }, 'out/b.mp4')), base, 'another row of the same reference');
  assert.is(reuseKey(plan({ variables: { name: 'Ann' }, chunkSize: 7, maxParallelChunks: 3 })), base, 'chunking');
  const changed: RenderConfigInput[] = [
    { variables: { name: 'Bob' } },
    { variables: { name: 'Ann' }, fps: 24 },
    { variables: { name: 'Ann' }, width: 320, height: 180 },
    { variables: { name: 'Ann' }, seed: 'other' },
    { variables: { name: 'Ann' }, epoch: 1000 },
    { variables: { name: 'Ann' }, format: 'webm' },
  ];
  for (const config of changed) {
    const extension = config.format === 'webm' ? 'webm' : 'mp4';
    assert.is.not(reuseKey(plan(config, `out/a.${extension}`)), base, JSON.stringify(config));
  }
  const otherSite = { ...site, siteId: 'f'.repeat(site.siteId.length) };
  assert.is.not(reuseKey(validateConfig({ siteHandle: otherSite, bucketName: 'bucket', outputKey: 'out/a.mp4', config: { variables: { name: 'Ann' } } })), base, 'the site');
  const planned = plan({ variables: { name: 'Ann' } });
  assert.is.not(reuseKey({ ...planned, input: { ...planned.input, render: { ...planned.input.render, encode: { ...planned.input.render.encode, crf: 30 } } } }), base, 'the encoder settings');
});

test('the gate holds the other lines until the reference is ready, and opens at once when it did not start', async () => {
  const ready = [false, false, true];
  let asked = 0;
  const gate = new ReferenceGate(async () => ready[asked++], 5);
  let opened = false;
  const waiting = gate.wait().then(() => (opened = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.not.ok(opened, 'not before the reference started');
  gate.started({ renderId: 'r', executionArn: 'arn' });
  await waiting;
  assert.is(asked, 3, 'it looked until the reference was ready');
  const none = new ReferenceGate(async () => false, 5);
  none.started(undefined);
  await none.wait();
});

test.run();
