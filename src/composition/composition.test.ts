// tier: unit
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FIXTURES } from '../test-support/cli';
import { loadComposition, parseComposition, totalFrames } from './composition';

const html = (root: string, vars = '') =>
  `<!doctype html><html ${vars}><body>${root}</body></html>`;
const parseRoot = (root: string) => parseComposition(html(root), '/p', '/p/index.html');

test('reads the root attributes, fps defaulting to 30', () => {
  const c = parseRoot('<div data-composition-id="a" data-width="1920" data-height="1080" data-duration="6"></div>');
  assert.equal([c.id, c.width, c.height, c.durationSeconds, c.fps], ['a', 1920, 1080, 6, 30]);
  const d = parseRoot('<div data-composition-id="a" data-width="640" data-height="360" data-duration="2.5" data-fps="60"></div>');
  assert.equal([d.durationSeconds, d.fps], [2.5, 60]);
});

test('the root is the composition marked data-root="true", else the first; data-duration may be left to the page', () => {
  const nested = '<div data-composition-id="outer" data-width="640" data-height="360"><div data-composition-id="inner" data-width="320" data-height="180" data-duration="2"></div></div>';
  const first = parseRoot(nested);
  assert.equal([first.id, first.width, first.durationSeconds], ['outer', 640, undefined]);
  const marked = parseRoot(nested.replace('data-composition-id="inner"', 'data-composition-id="inner" data-root="true"'));
  assert.equal([marked.id, marked.width, marked.durationSeconds], ['inner', 320, 2]);
});

test('declarations of <html> and of every [data-composition-variables] element, a later one of an id winning', () => {
  const c = parseComposition(
    html(
      `<div data-composition-id="a" data-width="2" data-height="2" data-duration="1" data-composition-variables='[{"id":"size","type":"number","default":2},{"id":"title","type":"string","default":"Root"}]'></div>`,
      `data-composition-variables='[{"id":"title","type":"string","default":"Html"},{"id":"logo","type":"image","default":"a.png"}]'`,
    ),
    '/p',
    '/p/index.html',
  );
  assert.equal(
    c.variables.declarations.map((d) => [d.id, d.type, d.default]),
    [
      ['logo', 'image', 'a.png'],
      ['size', 'number', 2],
      ['title', 'string', 'Root'],
    ],
  );
});

test('loads a project directory and its declarations', () => {
  const c = loadComposition(path.join(FIXTURES, 'color-var'));
  assert.is(c.id, 'color-var');
  assert.equal(c.variables.declarations.map((d) => d.id), ['fill', 'caption']);
  assert.equal(c.variables.droppedIds, ['meta']);
});

test('root errors say what is wrong', () => {
  const cases: Array<[string, RegExp]> = [
    ['<div data-width="2"></div>', /no composition root \(an element with data-composition-id\)/],
    ['<div data-composition-id="a" data-height="2" data-duration="1"></div>', /no data-width/],
    ['<div data-composition-id="a" data-width="-4" data-height="2" data-duration="1"></div>', /data-width must be a positive number/],
    ['<div data-composition-id="a" data-width="641" data-height="360" data-duration="1"></div>', /data-width must be even/],
    ['<div data-composition-id="a" data-width="640" data-height="360" data-duration="0"></div>', /data-duration must be a positive number of seconds, got "0"/],
  ];
  for (const [root, pattern] of cases) assert.throws(() => parseRoot(root), pattern);
});

test('project directory errors', () => {
  assert.throws(() => loadComposition('/nonexistent/project'), /project directory not found: \/nonexistent\/project/);
  assert.throws(() => loadComposition(path.join(FIXTURES, 'no-root', 'index.html')), /not a directory/);
  assert.throws(() => loadComposition(FIXTURES), /no index.html in/);
});

test('frame count is duration × fps', () => {
  assert.is(totalFrames(6, 30), 180);
  assert.is(totalFrames(10, 29.97), 300);
  assert.is(totalFrames(0.5, 30), 15);
  // A part-frame at the end is shown, as HyperFrames shows it; decimal fractions still land on whole frames.
  assert.is(totalFrames(10.24, 30), 308);
  assert.is(totalFrames(16.04, 30), 482);
  assert.is(totalFrames(19.04, 30), 572);
  assert.is(totalFrames(0.1, 30), 3);
  assert.is(totalFrames(4.1, 30), 123);
});

test.run();
