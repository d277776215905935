// tier: unit
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Ajv2020 from 'ajv/dist/2020';
import { FIXTURES, REPO_ROOT } from '../test-support/cli';
import { MAX_JSON_DEPTH } from '../values/constants';
import { loadComposition } from './composition';
import { MAX_RENDER_REQUEST_BYTES, REQUEST_MESSAGES, RenderRequestError, parseRenderRequest, renderCliArgs, renderRequestSchema } from './render-request';

const reveal = loadComposition(path.join(REPO_ROOT, 'examples', 'ui-3d-reveal'));
const body = (s: string): Uint8Array => new TextEncoder().encode(s);

test('an empty body, {} and {"variables": {}} all mean the defaults', () => {
  for (const s of ['', '  \n', '{}', '{"variables": {}}']) assert.equal(parseRenderRequest(body(s), reveal), {});
});

test('declared variables of the right types pass through unchanged', () => {
  const variables = { headline: 'Hi', accent: 'rgb(1, 2, 3)', cards: 4, showBadge: false, theme: 'midnight' };
  assert.equal(parseRenderRequest(body(JSON.stringify({ variables })), reveal), variables);
});

test('a body of exactly 64 KiB is read; one byte more is refused before parsing', () => {
  const filler = (n: number) => JSON.stringify({ variables: { headline: 'x'.repeat(n) } });
  const exact = filler(MAX_RENDER_REQUEST_BYTES - filler(0).length);
  assert.is(body(exact).byteLength, MAX_RENDER_REQUEST_BYTES);
  assert.is((parseRenderRequest(body(exact), reveal).headline as string).length, MAX_RENDER_REQUEST_BYTES - filler(0).length);
  assert.throws(() => parseRenderRequest(body(exact + ' '), reveal), (e: unknown) => e instanceof RenderRequestError && /too large: the limit is 65536 bytes/.test(e.message));
});

test('every problem is named in one message', () => {
  const variables = { cards: '4', theme: 'sepia', extra: 1 };
  assert.throws(
    () => parseRenderRequest(body(JSON.stringify({ variables })), reveal),
    (e: unknown) =>
      e instanceof RenderRequestError && /"cards": expected number/.test(e.message) && /"theme": expected one of/.test(e.message) && /"extra" is not declared/.test(e.message),
  );
  assert.throws(() => parseRenderRequest(body('{"vars": {}}'), reveal), /unknown field "vars"/);
  assert.throws(() => parseRenderRequest(body('{"variables": [1]}'), reveal), /"variables" must be a JSON object/);
});

test('the variables go in a file; RENDER_WIDTH/HEIGHT/FPS become --width/--height/--fps; anything but a positive integer is refused', () => {
  const args = renderCliArgs('/p', '/o.mp4', '/w/variables.json', { RENDER_WIDTH: '320', RENDER_HEIGHT: '180', RENDER_FPS: '5' });
  assert.equal(args, ['render', '/p', '--output', '/o.mp4', '--variables-file', '/w/variables.json', '--strict-variables', '--width', '320', '--height', '180', '--fps', '5']);
  assert.equal(renderCliArgs('/p', '/o.mp4', '/w/v.json', {}).slice(-1), ['--strict-variables']);
  assert.throws(() => renderCliArgs('/p', '/o.mp4', '/w/v.json', { RENDER_FPS: '0' }), /RENDER_FPS must be a positive whole number/);
});

test('the request schema is a JSON Schema of the body that accepts what the contract accepts, and carries its limit, messages and expected types', () => {
  const typed = loadComposition(path.join(FIXTURES, 'all-variable-types'));
  const schema = renderRequestSchema(typed);
  assert.is(schema['x-vidkit-max-bytes'], MAX_RENDER_REQUEST_BYTES);
  assert.is(schema['x-vidkit-max-depth'], MAX_JSON_DEPTH);
  assert.equal(schema['x-vidkit-messages'], REQUEST_MESSAGES);
  const properties = (schema.properties as { variables: { properties: Record<string, Record<string, unknown>> } }).variables.properties;
  // The seven types; `clip` (type "video") is not one, so it is not declared.
  assert.equal(Object.fromEntries(Object.entries(properties).map(([id, p]) => [id, p['x-vidkit-expected']])), {
    title: 'string', count: 'number', fill: 'color', outlined: 'boolean', mood: 'one of "calm", "loud"', face: 'font', logo: 'image',
  });
  const ajv = new Ajv2020({ strict: true, keywords: ['x-vidkit-max-bytes', 'x-vidkit-max-depth', 'x-vidkit-messages', 'x-vidkit-expected'] });
  const validate = ajv.compile(schema);
  const bodies = [
    {},
    { variables: { face: 'Inter', logo: 'a.png', fill: 'rgb(1, 2, 3)', mood: 'loud', count: 2, outlined: true, title: 'x' } },
    { variables: { face: 3 } },
    { variables: { clip: 'x.mp4' } },
    { variables: { fill: 'not a colour!' } },
    { variables: { mood: 'quiet' } },
    { other: 1 },
  ];
  for (const value of bodies) {
    const accepted = (() => {
      try {
        parseRenderRequest(body(JSON.stringify(value)), typed);
        return true;
      } catch {
        return false;
      }
    })();
    assert.is(validate(value), accepted, JSON.stringify(value));
  }
});

test.run();
