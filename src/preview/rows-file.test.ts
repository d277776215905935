// tier: unit
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VidkitError } from '../errors';
import { tempDir } from '../test-support/cli';
import { Row, createRowsFile, listRowsFiles, readRowsFile, writeRowsFile } from './rows-file';

// The studio's rows files against the native batch parser: what is written reads back as written.

/** A project whose page declares a variable of each type a cell is typed by. */
function project(): string {
  const dir = tempDir('vidkit-rows-file-');
  const declarations = [
    { id: 'title', type: 'string', default: 'Hi' },
    { id: 'count', type: 'number', default: 1 },
    { id: 'show', type: 'boolean', default: false },
    { id: 'fill', type: 'color', default: '#000000' },
    { id: 'theme', type: 'enum', options: ['dark', 'light', 3, true], default: 'dark' },
    { id: 'face', type: 'font', default: 'Inter' },
  ];
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html data-composition-variables='${JSON.stringify(declarations)}'><body>` +
      '<div data-composition-id="rows" data-width="320" data-height="180" data-duration="1"></div></body></html>\n',
  );
  return dir;
}

/** The error `work` fails with: a VidkitError of bad input (exit 2). */
async function badInputOf(work: () => Promise<unknown>): Promise<string> {
  const err = await work().then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.instance(err, VidkitError, 'no error');
  assert.is((err as VidkitError).exitCode, 2, (err as Error).message);
  return (err as Error).message;
}

/** Rows whose values a careless writer would change: delimiters, quotes, line breaks, blanks, other scripts, odd numbers. */
const AWKWARD: Row[] = [
  { outputKey: 'plain.mp4', variables: { title: 'Hello', count: 3, show: true, fill: '#ff0000', theme: 'light', face: 'Roboto' } },
  { outputKey: 'defaults.mp4', variables: {} },
  { outputKey: 'quoted, key.mp4', variables: { title: 'a, b; "c"\td', count: -0.5, show: false, theme: 3 } },
  { outputKey: 'lines.mp4', variables: { title: 'two\nlines\r\nand a\rreturn', count: 1e21, theme: true } },
  { outputKey: 'spaces.mp4', variables: { title: '  padded  ', fill: ' rgb(0 0 255) ', count: 0.1 + 0.2 } },
  { outputKey: 'scripts.mp4', variables: { title: 'こんにちは 世界 · مرحبا · Привет 👋', count: 123456789.125 } },
  { outputKey: 'quote-first.mp4', variables: { title: '"quoted" start', face: '"Noto Sans", serif' } },
  { outputKey: 'return.mp4', variables: { title: 'a lone\rreturn', fill: 'red' } },
  { outputKey: 'extra.mp4', variables: { note: 'an undeclared column, kept as text' } },
];

for (const ext of ['.csv', '.tsv']) {
  test(`${ext}: rows written read back through the native parser exactly as they were`, async () => {
    const dir = project();
    await writeRowsFile(dir, `rows${ext}`, AWKWARD, 'index.html');
    const read = await readRowsFile(dir, `rows${ext}`, 'index.html');
    assert.equal(read.problems, []);
    assert.equal(
      read.rows.map(({ outputKey, variables }) => ({ outputKey, variables })),
      AWKWARD,
    );
    assert.equal(listRowsFiles(dir), [`rows${ext}`]);
  });
}

test('.csv: a header of outputKey and the declared variables, then the others; empty cells for defaults; quoted fields', async () => {
  const dir = project();
  await writeRowsFile(
    dir,
    'viewers.csv',
    [
      { outputKey: 'a.mp4', variables: { title: 'Ann, the first', count: 2 } },
      { outputKey: 'b.mp4', variables: { show: true, note: 'say "hi"' } },
    ],
    'index.html',
  );
  assert.is(fs.readFileSync(path.join(dir, 'viewers.csv'), 'utf8'), 'outputKey,title,count,show,fill,theme,face,note\na.mp4,"Ann, the first",2,,,,,\nb.mp4,,,true,,,,"say ""hi"""\n');
});

test('a table types its cells by the composition named; JSONL needs no composition that parses', async () => {
  const dir = project();
  fs.writeFileSync(path.join(dir, 'typed.csv'), 'outputKey,count,show,theme\nx.mp4,7,yes,3\n');
  const typed = await readRowsFile(dir, 'typed.csv', 'index.html');
  assert.equal(typed.rows[0].variables, { count: 7, show: true, theme: 3 });
  // Another page without declarations: the same cells are text.
  fs.writeFileSync(path.join(dir, 'bare.html'), '<!doctype html><div data-composition-id="bare" data-width="320" data-height="180" data-duration="1"></div>\n');
  assert.equal((await readRowsFile(dir, 'typed.csv', 'bare.html')).rows[0].variables, { count: '7', show: 'yes', theme: '3' });

  fs.writeFileSync(path.join(dir, 'lines.jsonl'), '{"outputKey":"x.mp4","variables":{"count":7}}\n');
  fs.writeFileSync(path.join(dir, 'index.html'), '<html data-composition-variables="not json">');
  assert.equal((await readRowsFile(dir, 'lines.jsonl', 'index.html')).rows[0].variables, { count: 7 });
  assert.match(await badInputOf(() => readRowsFile(dir, 'typed.csv', 'index.html')), /index\.html/);
});

test('values a table cannot hold are refused, naming the row and variable, and the file is left as it was', async () => {
  const dir = project();
  const file = path.join(dir, 'keep.csv');
  const before = 'outputKey,title\nkept.mp4,Kept\n';
  fs.writeFileSync(file, before);
  for (const [variables, reason] of [
    [{ title: '' }, /row 2 \(b\.mp4\), "title": an empty text, which a table cannot hold/],
    [{ title: { nested: true } }, /row 2 \(b\.mp4\), "title": \{"nested":true\} is not text, a number or a boolean/],
    [{ outputKey: 'x' }, /a variable is named "outputKey"/],
  ] as const) {
    const rows = [
      { outputKey: 'a.mp4', variables: {} },
      { outputKey: 'b.mp4', variables },
    ];
    assert.match(await badInputOf(() => writeRowsFile(dir, 'keep.csv', rows, 'index.html')), reason);
    assert.is(fs.readFileSync(file, 'utf8'), before);
  }
  // The same rows in JSONL keep an empty text.
  await writeRowsFile(dir, 'keep.jsonl', [{ outputKey: 'b.mp4', variables: { title: '' } }], 'index.html');
  assert.equal((await readRowsFile(dir, 'keep.jsonl', 'index.html')).rows[0].variables, { title: '' });
});

test('rows the batch parser refuses (a .. in an outputKey, a key used twice) are refused before saving, with its reason, and nothing is written', async () => {
  const dir = project();
  for (const file of ['keys.jsonl', 'keys.csv']) {
    const before = file.endsWith('.csv') ? 'outputKey,title\nkept.mp4,Kept\n' : '{"outputKey":"kept.mp4","variables":{}}\n';
    fs.writeFileSync(path.join(dir, file), before);
    const escaping = [
      { outputKey: 'a.mp4', variables: {} },
      { outputKey: '../up.mp4', variables: { title: 'Up' } },
    ];
    assert.match(await badInputOf(() => writeRowsFile(dir, file, escaping, 'index.html')), new RegExp(`^${file.replace('.', '\\.')} is not saved: row 2 \\(\\.\\./up\\.mp4\\): "outputKey" "\\.\\./up\\.mp4" `));
    const twice = [
      { outputKey: 'a.mp4', variables: {} },
      { outputKey: 'b.mp4', variables: {} },
      { outputKey: 'a.mp4', variables: { title: 'Again' } },
    ];
    assert.match(await badInputOf(() => writeRowsFile(dir, file, twice, 'index.html')), /is not saved: row 3 \(a\.mp4\): duplicate outputKey "a\.mp4": already used on line/);
    assert.is(fs.readFileSync(path.join(dir, file), 'utf8'), before);
  }
});

test('a JSONL file with a refused key (written elsewhere) opens with that row marked, and saves once its key is fixed', async () => {
  const dir = project();
  const file = path.join(dir, 'hand.jsonl');
  fs.writeFileSync(file, '{"outputKey":"a.mp4","variables":{"title":"A"}}\n{"outputKey":"../b.mp4","variables":{"title":"B"}}\nnot json\n');
  const read = await readRowsFile(dir, 'hand.jsonl', 'index.html');
  assert.equal(read.rows.map((r) => [r.line, r.outputKey, r.variables, r.refused !== undefined]), [
    [1, 'a.mp4', { title: 'A' }, false],
    [2, '../b.mp4', { title: 'B' }, true],
  ]);
  assert.match(read.rows[1].refused!, /^"outputKey" "\.\.\/b\.mp4" /);
  // A line that is no row at all still keeps the file from being saved here: saving would drop it.
  assert.equal(read.problems.map((p) => p.line), [3]);
  assert.match(await badInputOf(() => writeRowsFile(dir, 'hand.jsonl', read.rows, 'index.html')), /line 3: invalid JSON/);
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('not json\n', ''));
  const fixable = await readRowsFile(dir, 'hand.jsonl', 'index.html');
  assert.equal(fixable.problems, []);
  const fixed = fixable.rows.map(({ outputKey, variables }) => ({ outputKey: outputKey.replace('../', ''), variables }));
  const saved = await writeRowsFile(dir, 'hand.jsonl', fixed, 'index.html');
  assert.equal(saved.problems, []);
  assert.equal(saved.rows.map((r) => [r.outputKey, r.refused]), [['a.mp4', undefined], ['b.mp4', undefined]]);
  assert.is(fs.readFileSync(file, 'utf8'), '{"outputKey":"a.mp4","variables":{"title":"A"}}\n{"outputKey":"b.mp4","variables":{"title":"B"}}\n');
});

test('a new table starts with its header, a new JSONL file empty; both open without rows', async () => {
  const dir = project();
  assert.equal(await createRowsFile(dir, 'new.tsv', 'index.html'), { file: 'new.tsv', rows: [], problems: [] });
  assert.is(fs.readFileSync(path.join(dir, 'new.tsv'), 'utf8'), 'outputKey\ttitle\tcount\tshow\tfill\ttheme\tface\n');
  await createRowsFile(dir, 'new.jsonl', 'index.html');
  assert.is(fs.readFileSync(path.join(dir, 'new.jsonl'), 'utf8'), '');
  for (const file of ['new.tsv', 'new.jsonl']) assert.equal(await readRowsFile(dir, file, 'index.html'), { file, rows: [], problems: [] });
  assert.match(await badInputOf(() => createRowsFile(dir, 'new.tsv', 'index.html')), /exists already/);
  assert.match(await badInputOf(() => createRowsFile(dir, 'new.txt', 'index.html')), /a rows file is \.jsonl, \.csv, \.tsv/);
});

test.run();
