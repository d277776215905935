// tier: unit
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SCHEMA_FILES } from '../docs/schema-files';
import { ApiValueTypes, RenderOptionName, renderOptionEntries } from '../options/registry';
import { validateConfig } from '../sdk/render';
import { PayloadShapeError, readRenderEvent } from '../sdk/render-event';
import { PAYLOAD_VERSION, RenderConfigSchema } from '../sdk/render-input';
import type { RenderConfigInput } from '../sdk/validate-config';
import { prepareSite } from '../sdk/site';
import { FIXTURES } from '../test-support/cli';
import { cloudRenderSettings, handler } from './handler';

// The options the table applies to the SDK's config are the fields of the render function's event:
// each one a caller gives is read by the SDK, travels in the execution input, is taken by the
// event's schema and reaches the settings the function renders with. A new option of the table is
// covered here with no edit: its value is the first candidate of its API type that its check takes.
const test = suite('every option of the SDK config travels to the render function');

const CANDIDATES: { [A in keyof ApiValueTypes]: ApiValueTypes[A][] } = {
  string: ['probe'],
  number: [30, 2, 1],
  boolean: [true],
  workers: [2, 'auto'],
  epoch: ['2030-06-15T12:00:00+02:00', 0],
  format: ['mp4'],
  quality: ['high'],
  capture: ['screenshot'],
  variables: [{ title: 'probe' }],
};

const CLOUD_OPTIONS = renderOptionEntries().filter(([, spec]) => spec.api !== undefined && spec.appliesTo.includes('sdk'));

/** A value of `name` its check takes, and what the check reads it as. */
function sample(name: RenderOptionName): { given: unknown; read: unknown } {
  const spec = CLOUD_OPTIONS.find(([n]) => n === name)![1];
  for (const given of CANDIDATES[spec.api!]) {
    try {
      return { given, read: spec.check ? spec.check(given, name) : given };
    } catch {
      // Not this candidate: the next one.
    }
  }
  throw new Error(`no candidate value of API type ${spec.api} passes the check of ${name}: add one`);
}

function plan(config: RenderConfigInput) {
  return validateConfig({ siteHandle: prepareSite(path.join(FIXTURES, 'frame-clock')), bucketName: 'no-such-bucket', outputKey: 'renders/out.mp4', config });
}

test('the config schema and the published event schema have a field for each option the table applies to the SDK', () => {
  assert.ok(CLOUD_OPTIONS.length >= 10, `${CLOUD_OPTIONS.length} options`);
  const published = JSON.stringify(SCHEMA_FILES.find((f) => f.path.endsWith('render-event.schema.json'))!.schema());
  for (const [name] of CLOUD_OPTIONS) {
    assert.ok(name in RenderConfigSchema.properties, `RenderConfigSchema lacks ${name}`);
    assert.ok(published.includes(`"${name}":`), `render-event.schema.json lacks ${name}`);
  }
});

test('each option given to the SDK reaches the execution input as read, passes the event schema, and reaches the function settings', () => {
  for (const [name] of CLOUD_OPTIONS) {
    const { given, read } = sample(name);
    const { version, render } = plan({ [name]: given } as RenderConfigInput).input;
    assert.equal((render.config as Record<string, unknown>)[name], read, `config.${name}`);
    const event = { version, mode: 'chunk', render, chunk: { index: 0, startFrame: 0, endFrame: 2 } };
    assert.is(readRenderEvent(event), event, `a chunk event with config.${name}`);
    assert.equal((cloudRenderSettings(render).values as Record<string, unknown>)[name], read, `the function's settings of ${name}`);
  }
});

test('a config field the function does not know is refused, naming it, before any request', async () => {
  const { render } = plan({}).input;
  let err: unknown;
  try {
    await handler({ version: PAYLOAD_VERSION, mode: 'plan', render: { ...render, config: { ...render.config, notAnOption: 1 } } });
  } catch (e) {
    err = e;
  }
  assert.instance(err, PayloadShapeError);
  assert.match((err as Error).message, /\/render\/config\/notAnOption: /);
});

test.run();
