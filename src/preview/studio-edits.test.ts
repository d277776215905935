// tier: unit
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadComposition } from '../composition/composition';
import { tempDir } from '../test-support/cli';
import { EditConflict, HISTORY_FILE, StudioEdits, fileHash } from './studio-edits';

const PAGE = `<!doctype html>
<html>
<body>
<div id="root" data-composition-id="edits" data-width="320" data-height="180" data-duration="2">
  <!-- two clips -->
  <div id="a" data-start="0" data-duration="1" data-track-index="0">First</div>
  <div id="b" data-start="1"  data-duration="1" data-track-index="1" style="left: 4px">Second</div>
  <template id="card-template"><div data-composition-id="card"><p data-start="0.5">In a template</p></div></template>
</div>
</body>
</html>
`;

function project(): { dir: string; file: string; edits: StudioEdits } {
  const dir = tempDir('vidkit-studio-edits-');
  fs.writeFileSync(path.join(dir, 'index.html'), PAGE);
  return { dir, file: path.join(dir, 'index.html'), edits: new StudioEdits(dir) };
}

test('a clip of the page, one of an inline template and an element by path are edited in place; the history names them', () => {
  const { file, edits } = project();
  let hash = fileHash(PAGE);
  hash = edits.edit({ file: 'index.html', hash, target: { part: 'index.html', clip: 1 }, change: { attributes: { 'data-start': '0.5', 'data-track-index': '0' } } }).hashes['index.html'];
  hash = edits.edit({ file: 'index.html', hash, target: { part: 'index.html#card-template', clip: 0 }, change: { attributes: { 'data-start': '0.25' } } }).hashes['index.html'];
  const state = edits.edit({ file: 'index.html', hash, target: { path: [['div', 0]] }, change: { text: 'One' } });
  const want = PAGE.replace('data-start="1"  data-duration="1" data-track-index="1"', 'data-start="0.5"  data-duration="1" data-track-index="0"')
    .replace('<p data-start="0.5">', '<p data-start="0.25">')
    .replace('>First<', '>One<');
  assert.is(fs.readFileSync(file, 'utf8'), want);
  assert.equal(state, { hashes: { 'index.html': fileHash(want) }, undo: 'text of #a', redo: null });
});

test('undo and redo walk the history, across a new StudioEdits (a reload of the studio)', () => {
  const { dir, file, edits } = project();
  const moved = edits.edit({ file: 'index.html', hash: fileHash(PAGE), target: { part: 'index.html', clip: 0 }, change: { attributes: { 'data-start': '0.75' } } });
  edits.edit({ file: 'index.html', hash: moved.hashes['index.html'], target: { path: [['div', 1]] }, change: { style: { left: '40px', top: '8px' } } });
  const twice = fs.readFileSync(file, 'utf8');
  assert.is(twice, PAGE.replace('id="a" data-start="0"', 'id="a" data-start="0.75"').replace('style="left: 4px"', 'style="left: 40px; top: 8px"'));

  const again = new StudioEdits(dir);
  assert.equal(again.undo(), { hashes: { 'index.html': moved.hashes['index.html'] }, undo: 'data-start of #a', redo: 'left, top of #b' });
  assert.is(again.undo().redo, 'data-start of #a');
  assert.is(fs.readFileSync(file, 'utf8'), PAGE);
  assert.throws(() => again.undo(), /nothing to undo/);
  again.redo();
  again.redo();
  assert.is(fs.readFileSync(file, 'utf8'), twice);
  assert.throws(() => again.redo(), /nothing to redo/);
  // Kept beside the project, in a dot-folder.
  assert.ok(fs.existsSync(path.join(dir, HISTORY_FILE)));
});

test('an edit or an undo of a file changed on disk meanwhile is a conflict and writes nothing; the history stays', () => {
  const { file, edits } = project();
  edits.edit({ file: 'index.html', hash: fileHash(PAGE), target: { part: 'index.html', clip: 0 }, change: { attributes: { 'data-duration': '2' } } });
  const byEditor = fs.readFileSync(file, 'utf8').replace('First', 'First, typed in an editor');
  fs.writeFileSync(file, byEditor);
  assert.throws(
    () => edits.edit({ file: 'index.html', hash: fileHash(PAGE), target: { part: 'index.html', clip: 0 }, change: { attributes: { 'data-start': '1' } } }),
    (err: unknown) => err instanceof EditConflict && /changed on disk/.test((err as Error).message),
  );
  assert.throws(() => edits.undo(), (err: unknown) => err instanceof EditConflict);
  assert.is(fs.readFileSync(file, 'utf8'), byEditor);
  assert.is(edits.state(['index.html']).undo, 'data-duration of #a');
});

test('a text, a source and a colour made variables: declared with their defaults and bound; the page loads them', () => {
  const { dir, file, edits } = project();
  const page = PAGE.replace('<div id="b"', '<img id="logo" src="logo.png"><div id="b"');
  fs.writeFileSync(file, page);
  let hash = fileHash(page);
  hash = edits.edit({ file: 'index.html', hash, target: { path: [['div', 0]] }, change: { variable: { id: 'headline', bind: 'text', label: 'Headline' } } }).hashes['index.html'];
  hash = edits.edit({ file: 'index.html', hash, target: { path: [['img', 0]] }, change: { variable: { id: 'logo', bind: 'src' } } }).hashes['index.html'];
  edits.edit({ file: 'index.html', hash, target: { path: [['div', 1]] }, change: { variable: { id: 'ink', bind: 'color', default: '#FF8800' } } });
  const text = fs.readFileSync(file, 'utf8');
  assert.is(
    text,
    page
      .replace(
        '<div id="root" data-composition-id="edits" data-width="320" data-height="180" data-duration="2">',
        `<div id="root" data-composition-id="edits" data-width="320" data-height="180" data-duration="2" data-composition-variables="[{&quot;id&quot;:&quot;headline&quot;,&quot;type&quot;:&quot;string&quot;,&quot;label&quot;:&quot;Headline&quot;,&quot;default&quot;:&quot;First&quot;}, {&quot;id&quot;:&quot;logo&quot;,&quot;type&quot;:&quot;image&quot;,&quot;default&quot;:&quot;logo.png&quot;}, {&quot;id&quot;:&quot;ink&quot;,&quot;type&quot;:&quot;color&quot;,&quot;default&quot;:&quot;#ff8800&quot;}]">`,
      )
      .replace('data-track-index="0">First', 'data-track-index="0" data-var-text="headline">First')
      .replace('<img id="logo" src="logo.png">', '<img id="logo" src="logo.png" data-var-src="logo">')
      .replace('style="left: 4px"', 'style="left: 4px; color: var(--ink)"'),
  );
  assert.equal(
    loadComposition(dir).variables.declarations.map((d) => [d.id, d.type, d.default]),
    [
      ['headline', 'string', 'First'],
      ['logo', 'image', 'logo.png'],
      ['ink', 'color', '#ff8800'],
    ],
  );
  assert.throws(
    () => edits.edit({ file: 'index.html', hash: fileHash(text), target: { path: [['div', 1]] }, change: { variable: { id: 'headline', bind: 'text' } } }),
    /already declares a variable "headline"/,
  );
  assert.throws(() => edits.edit({ file: 'index.html', hash: fileHash(text), target: { path: [['div', 1]] }, change: { variable: { id: 'my-name', bind: 'text' } } }), /not a variable id/);
});

test('an element a script made is not in the file: bad input saying so', () => {
  const { edits } = project();
  assert.throws(() => edits.edit({ file: 'index.html', hash: fileHash(PAGE), target: { path: [['div', 5]] }, change: { text: 'x' } }), /a script of the page made it/);
  assert.throws(() => edits.edit({ file: '.vidkit/studio-history.json', hash: '', target: { path: [] }, change: { text: 'x' } }), /no such file in the project/);
});

test.run();
