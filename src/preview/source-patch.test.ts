// tier: unit
import { parse } from 'node-html-parser';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDeclaration, applySplices, readStartTag, setAttributes, setStyle, setText, startTagOf } from './source-patch';

// Every expected source below is the input with only the edited bytes different.
const PAGE = `<!DOCTYPE html>
<html lang="en" data-composition-variables='[
  {"id": "title", "type": "string", "default": "Hi"}
]'>
<body>
<!-- the scene: <div data-start="9"> in a comment is not an element -->
<div id="root" data-composition-id="demo" data-width="640" data-height="360" data-duration="4">
  <div   class=card
       data-start="0.5"  data-duration='2' data-track-index="1">Hello &amp; welcome</div>
  <img src="logo.png" alt="" style="left: 10px;top:20px ;  width: calc(50% - 4px)">
  <p id="note">
    Indented text
  </p>
  <br/>
</div>
</body>
</html>
`;

function element(html: string, selector: string) {
  const el = parse(html, { comment: true }).querySelector(selector);
  if (!el) throw new Error(`no ${selector}`);
  return el;
}

function edit(selector: string, make: (tag: ReturnType<typeof startTagOf>, el: ReturnType<typeof element>) => ReturnType<typeof setAttributes>): string {
  const el = element(PAGE, selector);
  return applySplices(PAGE, make(startTagOf(PAGE, el), el));
}

test('readStartTag: every attribute with its offsets, whatever its quoting and spacing', () => {
  const tag = startTagOf(PAGE, element(PAGE, '.card'));
  assert.equal(
    tag.attributes.map((a) => [a.name, a.raw, a.quote, PAGE.slice(a.start, a.end)]),
    [
      ['class', 'card', '', 'class=card'],
      ['data-start', '0.5', '"', 'data-start="0.5"'],
      ['data-duration', '2', "'", "data-duration='2'"],
      ['data-track-index', '1', '"', 'data-track-index="1"'],
    ],
  );
  assert.is(PAGE[tag.close], '>');
  const br = readStartTag(PAGE, PAGE.indexOf('<br/>'));
  assert.equal([br.tag, br.attributes, PAGE.slice(br.close, br.end)], ['br', [], '/>']);
});

test('setAttributes: a value rewritten inside its own quotes, nothing else of the file moves', () => {
  const out = edit('.card', (tag) => setAttributes(tag, { 'data-start': '1.25', 'data-duration': '3' }));
  assert.is(out, PAGE.replace(`data-start="0.5"  data-duration='2'`, `data-start="1.25"  data-duration='3'`));
});

test('setAttributes: a new attribute goes at the end of the tag; an unquoted value gets quotes; null removes one', () => {
  assert.is(
    edit('.card', (tag) => setAttributes(tag, { 'data-track-index': '2', class: 'card big', 'data-var-text': 'title' })),
    PAGE.replace('<div   class=card', '<div   class="card big"').replace('data-track-index="1">Hello', 'data-track-index="2" data-var-text="title">Hello'),
  );
  assert.is(edit('.card', (tag) => setAttributes(tag, { 'data-track-index': null })), PAGE.replace(' data-track-index="1"', ''));
  assert.is(edit('br', (tag) => setAttributes(tag, { 'data-start': '1' })), PAGE.replace('<br/>', '<br data-start="1"/>'));
});

test('setAttributes: quotes and ampersands in a value are written as references of the quoting used', () => {
  assert.is(edit('.card', (tag) => setAttributes(tag, { 'data-duration': `it's "2" & more` })), PAGE.replace(`data-duration='2'`, `data-duration='it&#39;s "2" &amp; more'`));
  assert.throws(() => edit('.card', (tag) => setAttributes(tag, { 'on click': 'x' })), /not an attribute name/);
});

test('setStyle: a declaration replaced in place, a new one appended, the others as written', () => {
  assert.is(
    edit('img', (tag) => setStyle(tag, { top: '64px', width: '300px', height: '120px' })),
    PAGE.replace('style="left: 10px;top:20px ;  width: calc(50% - 4px)"', 'style="left: 10px;top:64px ;  width: 300px; height: 120px"'),
  );
  assert.is(edit('#note', (tag) => setStyle(tag, { left: '5px' })), PAGE.replace('<p id="note">', '<p id="note" style="left: 5px">'));
  assert.is(edit('img', (tag) => setStyle(tag, { top: null })), PAGE.replace('left: 10px;top:20px ;  width', 'left: 10px;width'));
  assert.throws(() => edit('img', (tag) => setStyle(tag, { left: '1px; background: url(x)' })), /not a value/);
});

test('setText: the text replaced, escaped, the indentation around it kept; an element holding elements refused', () => {
  assert.is(edit('.card', (_tag, el) => setText(PAGE, el, 'Bye <you> & me')), PAGE.replace('>Hello &amp; welcome</div>', '>Bye &lt;you&gt; &amp; me</div>'));
  assert.is(edit('#note', (_tag, el) => setText(PAGE, el, 'New')), PAGE.replace('\n    Indented text\n  </p>', '\n    New\n  </p>'));
  const empty = '<div id="root" data-composition-id="x"><h1 id="t"></h1></div>';
  assert.is(applySplices(empty, setText(empty, element(empty, '#t'), 'Title')), '<div id="root" data-composition-id="x"><h1 id="t">Title</h1></div>');
  assert.throws(() => setText(PAGE, element(PAGE, '#root'), 'x'), /holds other elements/);
});

test('addDeclaration: on a line of its own in a list written a line each; after the last one in a list on one line; in an empty list', () => {
  const decl = { id: 'name', type: 'string', default: "O'Neil" };
  const html = element(PAGE, 'html');
  const attr = startTagOf(PAGE, html).attributes.find((a) => a.name === 'data-composition-variables')!;
  assert.is(
    applySplices(PAGE, addDeclaration(attr, decl)),
    PAGE.replace(
      `{"id": "title", "type": "string", "default": "Hi"}\n]'>`,
      `{"id": "title", "type": "string", "default": "Hi"},\n  {"id":"name","type":"string","default":"O&#39;Neil"}\n]'>`,
    ),
  );
  const oneLine = '<html data-composition-variables="[{&quot;id&quot;:&quot;a&quot;}]"><body></body></html>';
  const oneAttr = readStartTag(oneLine, 0).attributes[0];
  assert.is(
    applySplices(oneLine, addDeclaration(oneAttr, { id: 'b' })),
    '<html data-composition-variables="[{&quot;id&quot;:&quot;a&quot;}, {&quot;id&quot;:&quot;b&quot;}]"><body></body></html>',
  );
  const empty = `<html data-composition-variables='[]'></html>`;
  assert.is(applySplices(empty, addDeclaration(readStartTag(empty, 0).attributes[0], { id: 'b' })), `<html data-composition-variables='[{"id":"b"}]'></html>`);
});

test('applySplices: overlapping splices are refused', () => {
  assert.throws(
    () =>
      applySplices('abcdef', [
        { start: 1, end: 4, insert: 'x' },
        { start: 2, end: 3, insert: 'y' },
      ]),
    /same place/,
  );
  assert.is(
    applySplices('abcdef', [
      { start: 4, end: 5, insert: 'E' },
      { start: 0, end: 1, insert: 'A' },
    ]),
    'AbcdEf',
  );
});

test.run();
