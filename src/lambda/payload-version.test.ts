import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateConfig } from '../sdk/render';
import { PAYLOAD_VERSION, RenderJob } from '../sdk/render-input';
import { prepareSite } from '../sdk/site';
import { FIXTURES, REPO_ROOT } from '../test-support/cli';
import { PayloadVersionError, RenderEvent, handler } from './handler';

const test = suite('the render function refuses a payload of another version, naming both');

/** What the SDK sends for a render of the frame-clock fixture: the plan's execution input and its body. */
function sdkPlan() {
  return validateConfig({ siteHandle: prepareSite(path.join(FIXTURES, 'frame-clock')), bucketName: 'no-such-bucket', outputKey: 'renders/out.mp4' });
}

/** The handler's failure for `event`; it must fail before any request (the bucket does not exist). */
async function refusal(event: unknown): Promise<Error> {
  try {
    await handler(event as RenderEvent);
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
