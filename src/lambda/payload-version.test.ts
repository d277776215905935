// tier: unit
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateConfig } from '../sdk/render';
import { PAYLOAD_VERSION, RenderJob } from '../sdk/render-input';
import { prepareSite } from '../sdk/site';
import { FIXTURES, REPO_ROOT } from '../test-support/cli';
import { handler } from './handler';
import { PayloadShapeError, PayloadVersionError, RenderEvent, readRenderEvent } from '../sdk/render-event';

const test = suite('the render function refuses a payload of another version, naming both');

/** What the SDK sends for a render of the frame-clock fixture: the plan's execution input and its body. */
function sdkPlan() {
  return validateConfig({ siteHandle: prepareSite(path.join(FIXTURES, 'frame-clock')), bucketName: 'no-such-bucket', outputKey: 'renders/out.mp4' });
}

/** The handler's failure for `event`; it must fail before any request (the bucket does not exist). */
async function refusal(event: unknown): Promise<Error> {
  try {
    await handler(event);
  } catch (err) {
    return err as Error;
  }
  throw new Error('the handler took the event');
}

test('the SDK sends its version in the execution input it starts the state machine with', () => {
  const plan = sdkPlan();
  assert.is(plan.input.version, PAYLOAD_VERSION);
  assert.is(JSON.parse(plan.body).version, PAYLOAD_VERSION, 'the StartExecution input');
});

test('a newer SDK: the function names both versions and says to redeploy', async () => {
  const render: RenderJob = sdkPlan().input.render;
  const err = await refusal({ version: PAYLOAD_VERSION + 1, mode: 'plan', render });
  assert.instance(err, PayloadVersionError);
  assert.is(err.name, 'PayloadVersionError');
  assert.is(err.message, `this function speaks version ${PAYLOAD_VERSION}, the SDK sent version ${PAYLOAD_VERSION + 1}: redeploy with vidkit cloudfn deploy`);
});

test('an older SDK, or one from before versions (no version field), is told to upgrade vidkit', async () => {
  const render = sdkPlan().input.render;
  const older = await refusal({ version: PAYLOAD_VERSION - 1, mode: 'chunk', render, chunk: { index: 0, startFrame: 0, endFrame: 2 } });
  assert.is(older.message, `this function speaks version ${PAYLOAD_VERSION}, the SDK sent version ${PAYLOAD_VERSION - 1}: upgrade vidkit, or redeploy with its vidkit cloudfn deploy`);
  const unversioned = await refusal({ mode: 'batch-webhook', bucket: 'no-such-bucket', batchId: 'b1' });
  assert.instance(unversioned, PayloadVersionError);
  assert.match(unversioned.message, /^this function speaks version \d+, the SDK sent no version .*: upgrade vidkit/);
});

test('each event the SDK and the state machine build for a render is read as it is', () => {
  const { version, render } = sdkPlan().input;
  const events: RenderEvent[] = [
    { version, mode: 'plan', render },
    { version, mode: 'chunk', render, chunk: { index: 1, startFrame: 50, endFrame: 100, totalFrames: 150 } },
    { version, mode: 'assemble', render, totalFrames: 150, segments: [{ index: 0, frames: 150, segmentKey: 'renders/r/segments/chunk-0000.mp4' }] },
    { version, mode: 'webhook', render, executionArn: 'arn:aws:states:us-east-1:000000000000:execution:vidkit:r', output: { bucket: 'b', outputKey: 'renders/out.mp4', frames: 150, bytes: 9000 } },
    { version, mode: 'webhook', render, executionArn: 'arn:x', failure: { Error: 'Error', Cause: '{"errorMessage":"boom"}' } },
    { version, mode: 'direct', render },
    { version, mode: 'batch-webhook', bucket: 'b', batchId: 'batch-1' },
    { version, mode: 'plan', render: { ...render, reuse: { key: 'a'.repeat(32), reference: { varying: ['name'] } } } },
    { version, mode: 'chunk', render: { ...render, reuse: { key: 'b'.repeat(32) } }, chunk: { index: 2, startFrame: 10, endFrame: 20, totalFrames: 60 } },
  ];
  for (const event of events) assert.is(readRenderEvent(event), event, event.mode);
});

test('an event of this version in the wrong shape fails before any request, naming each wrong field', async () => {
  const render = sdkPlan().input.render;
  const err = await refusal({ version: PAYLOAD_VERSION, mode: 'chunk', render: { ...render, site: undefined }, chunk: { index: 0, startFrame: '0', endFrame: 2 } });
  assert.instance(err, PayloadShapeError);
  assert.match(err.message, /^the chunk event does not match its schema \(docs\/reference\/schemas\/render-event\.schema\.json\): /);
  assert.match(err.message, /\/render\/site: /);
  assert.match(err.message, /\/chunk\/startFrame: Expected integer/);
  const reuse = await refusal({ version: PAYLOAD_VERSION, mode: 'plan', render: { ...render, reuse: { key: '../sites/x', reference: { varying: [''] } } } });
  assert.instance(reuse, PayloadShapeError);
  assert.match(reuse.message, /\/render\/reuse\/key: Expected string to match/);
  assert.match(reuse.message, /\/render\/reuse\/reference\/varying\/0: Expected string length greater or equal to 1/);
  const unknown = await refusal({ version: PAYLOAD_VERSION, mode: 'render-everything', render });
  assert.instance(unknown, PayloadShapeError);
  assert.is(unknown.message, 'unknown mode "render-everything": expected plan, chunk, assemble, webhook, direct, batch-webhook');
});

test('the state machine hands the input\'s version to every invocation of the function', () => {
  const asl = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'cloud', 'state-machine.asl.json'), 'utf8'));
  const events: Array<Record<string, unknown>> = [];
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if ('mode' in node) events.push(node as Record<string, unknown>);
    Object.values(node).forEach(walk);
  };
  walk(asl);
  assert.equal(events.map((e) => e.mode), ['plan', 'chunk', 'assemble', 'webhook', 'webhook']);
  for (const e of events) assert.is(e['version.$'], '$.version', `the ${String(e.mode)} event`);
});

test.run();
