// tier: unit
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VidkitError } from '../errors';
import { OVERRIDE_FLAGS as FLAGS } from '../options/registry';
import { checkOverrides, isColor, mergeVariables, parseDeclarations, parseOverrides, typeMismatch } from './variables';

const ALL_TYPES = JSON.stringify([
  { id: 'title', type: 'string', label: 'Title', default: 'Hello' },
  { id: 'count', type: 'number', default: 3 },
  { id: 'accent', type: 'color', default: '#7c5cff' },
  { id: 'badge', type: 'boolean', default: true },
  { id: 'theme', type: 'enum', default: 'dark', options: ['dark', 'light'] },
  { id: 'size', type: 'enum', default: 'm', options: [{ value: 's', label: 'Small' }, { value: 'm', label: 'Medium' }] },
  { id: 'items', type: 'object', default: { a: 1 } },
  { id: 'family', type: 'font', default: 'Inter' },
  { id: 'logo', type: 'image', default: 'logo.png' },
]);

test('parses the seven types and drops an unsupported one silently', () => {
  const set = parseDeclarations(ALL_TYPES, 'index.html');
  assert.equal(set.declarations.map((d) => d.type), ['string', 'number', 'color', 'boolean', 'enum', 'enum', 'font', 'image']);
  assert.equal(set.droppedIds, ['items']);
  assert.equal(set.declarations[4].options, [{ value: 'dark' }, { value: 'light' }]);
  assert.equal(set.declarations[5].options, [{ value: 's', label: 'Small' }, { value: 'm', label: 'Medium' }]);
});

test('keys of a dropped declaration are reported as undeclared', () => {
  const set = parseDeclarations(ALL_TYPES, 'index.html');
  const issues = checkOverrides(set, { items: '[1,2]' });
  assert.equal(issues, [{ variable: 'items', message: 'variable "items" is not declared by the composition' }]);
});

test('a mismatch names the variable, the expected and the given type', () => {
  const set = parseDeclarations(ALL_TYPES, 'index.html');
  const msgs = checkOverrides(set, { title: 5, count: '3', accent: 12, badge: 'yes', theme: 'blue', size: 's', family: 'Serif', logo: { url: 'x.png' } }).map((i) => i.message);
  assert.equal(msgs, [
    'variable "title": expected string, got number 5',
    'variable "count": expected number, got string "3"',
    'variable "accent": expected color, got number 12',
    'variable "badge": expected boolean, got string "yes"',
    'variable "theme": expected one of "dark", "light", got string "blue"',
    'variable "logo": expected image, got object {"url":"x.png"}',
  ]);
});

test('colours: hex, functional and named forms', () => {
  for (const ok of ['#fff', '#ffff', '#a1b2c3', '#a1b2c3d4', 'rgb(1, 2, 3)', 'hsla(10 20% 30% / 0.5)', 'rebeccapurple']) assert.ok(isColor(ok), ok);
  for (const bad of ['#ff', '#ggg', 'rgb(1,2', '12', 'not a colour', '']) assert.not.ok(isColor(bad), bad);
  assert.is(typeMismatch({ id: 'c', type: 'color' }, '#12345'), 'variable "c": expected color, got string "#12345"');
});

test('defaults merged with overrides', () => {
  const set = parseDeclarations(ALL_TYPES, 'index.html');
  const merged = mergeVariables(set, { title: 'Bye' });
  assert.equal(merged, { title: 'Bye', count: 3, accent: '#7c5cff', badge: true, theme: 'dark', size: 'm', family: 'Inter', logo: 'logo.png' });
});

test('malformed declarations are errors naming the file', () => {
  assert.throws(() => parseDeclarations('[{', 'proj/index.html'), /proj\/index.html: data-composition-variables is not valid JSON/);
  assert.throws(() => parseDeclarations('{}', 'x.html'), /must be a JSON array/);
  assert.throws(() => parseDeclarations('[{"type":"string"}]', 'x.html'), /declaration #1 needs a non-empty string "id"/);
  assert.throws(() => parseDeclarations('[{"id":"e","type":"enum"}]', 'x.html'), /enum variable "e" needs a non-empty "options" list/);
});

test('overrides: one source, a JSON object', () => {
  const read = (p: string) => {
    if (p === 'good.json') return '{"a":1}';
    const err = new Error('nope') as NodeJS.ErrnoException;
    err.code = 'ENOENT';
    throw err;
  };
  assert.equal(parseOverrides({}, read, FLAGS), {});
  assert.equal(parseOverrides({ json: '{"a":"b"}' }, read, FLAGS), { a: 'b' });
  assert.equal(parseOverrides({ file: 'good.json' }, read, FLAGS), { a: 1 });
  const cases: Array<[Parameters<typeof parseOverrides>[0], RegExp]> = [
    [{ json: '{}', file: 'good.json' }, /use either --variables or --variables-file, not both/],
    [{ json: '{nope' }, /--variables is not valid JSON/],
    [{ json: '[1,2]' }, /--variables must be a JSON object of variable values, got array/],
    [{ json: '"s"' }, /got string/],
    [{ file: 'missing.json' }, /cannot read --variables-file missing.json: ENOENT/],
  ];
  for (const [source, pattern] of cases) {
    try {
      parseOverrides(source, read, FLAGS);
      assert.unreachable(`no error for ${JSON.stringify(source)}`);
    } catch (err) {
      assert.instance(err, VidkitError);
      assert.match((err as Error).message, pattern);
      assert.is((err as VidkitError).exitCode, 2);
    }
  }
});

test.run();
