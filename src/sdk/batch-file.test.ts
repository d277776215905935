// tier: unit
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../test-support/cli';
import { parseDeclarations } from '../composition/variables';
import { readBatchFile } from './batch-file';

test('readBatchFile decodes packed native entries exactly: multi-byte keys, escapes, blank lines, bad lines', async () => {
  const dir = tempDir('vidkit-batch-file-');
  try {
    const file = path.join(dir, 'b.jsonl');
    fs.writeFileSync(
      file,
      [
        '{"outputKey": "vidéo/ü-🎬.mp4", "variables": {"title": "Grüße 🎉"}}',
        '',
        '{"outputKey": "esc\\u00e9\\"q.mp4", "variables": {"n": 3}}',
        '{"outputKey": 5, "variables": {}}',
        '{"variables": {}, "outputKey": "last.mp4", "extra": true}',
      ].join('\n'),
    );
    const batch = await readBatchFile(file);
    assert.is(batch.entries.length, 3);
    assert.equal(
      [0, 1, 2].map((i) => batch.entries.at(i)),
      [
        { line: 1, outputKey: 'vidéo/ü-🎬.mp4', variablesJson: '{"title": "Grüße 🎉"}' },
        { line: 3, outputKey: 'escé"q.mp4', variablesJson: '{"n": 3}' },
        { line: 5, outputKey: 'last.mp4', variablesJson: '{}' },
      ],
    );
    assert.is(batch.entries.at(3), undefined);
    assert.equal(batch.problems, [{ line: 4, reason: '"outputKey" must be a non-empty string, got a number' }]);
    const missing = await readBatchFile(path.join(dir, 'missing.jsonl')).then(() => undefined, (err: Error) => err);
    assert.match(missing?.message ?? 'no error', /^cannot read batch file .*missing\.jsonl: No such file/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a UTF-8 BOM before the first line is accepted; each bad outputKey fails its own line naming the rule, the good lines stay', async () => {
  const dir = tempDir('vidkit-batch-file-');
  try {
    const file = path.join(dir, 'keys.jsonl');
    const line = (outputKey: string) => JSON.stringify({ outputKey, variables: {} });
    const long = `renders/${'é'.repeat(510)}.mp4`; // 8 + 1020 + 4 = 1032 bytes of UTF-8, 522 characters
    const lines = [line('renders/first.mp4'), line('renders/../../escape.mp4'), line('a\u0000b.mp4'), line('a\nb.mp4'), line('s3://bucket/x.mp4'), line('https:x.mp4'), line('/abs.mp4'), line(long), line('renders/last.mp4')];
    fs.writeFileSync(file, `\uFEFF${lines.join('\n')}\n`);
    const batch = await readBatchFile(file);
    assert.equal(
      [0, 1].map((i) => batch.entries.at(i)),
      [
        { line: 1, outputKey: 'renders/first.mp4', variablesJson: '{}' },
        { line: 9, outputKey: 'renders/last.mp4', variablesJson: '{}' },
      ],
    );
    assert.is(batch.entries.length, 2);
    assert.equal(batch.problems, [
      { line: 2, reason: '"outputKey" "renders/../../escape.mp4" has a ".." path segment: name the object without climbing out of a folder' },
      { line: 3, reason: '"outputKey" "a\\u0000b.mp4" contains a NUL character: remove it' },
      { line: 4, reason: '"outputKey" "a\\nb.mp4" contains a line break (\\n or \\r): an object key is one line' },
      { line: 5, reason: '"outputKey" "s3://bucket/x.mp4" starts with a URL scheme (s3:): give a key inside the render bucket, such as renders/name.mp4' },
      { line: 6, reason: '"outputKey" "https:x.mp4" starts with a URL scheme (https:): give a key inside the render bucket, such as renders/name.mp4' },
      { line: 7, reason: '"outputKey" "/abs.mp4" starts with "/": give a relative key, such as renders/name.mp4' },
      { line: 8, reason: `"outputKey" "${long.slice(0, 60)}"… is 1032 bytes of UTF-8, over the 1024-byte limit of an object key: shorten it` },
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a CSV with a BOM, quoted commas and line breaks gives the typed variables of the equivalent JSONL; a bad cell names its line and column', async () => {
  const dir = tempDir('vidkit-batch-file-');
  try {
    const declarations = parseDeclarations(
      '[{"id":"title","type":"string"},{"id":"count","type":"number"},{"id":"show","type":"boolean"},{"id":"fill","type":"color"},{"id":"theme","type":"enum","options":["dark","light"]}]',
      'index.html',
    );
    const csv = path.join(dir, 'rows.csv');
    fs.writeFileSync(csv, '\uFEFFoutputKey,title,count,show,fill,theme\r\na.mp4,"Hi, you",3,yes,#ff0000,dark\r\nb.mp4,"two\nlines",0.5,FALSE,blue,light\r\nc.mp4,x,lots,1,#00f,dark\r\n');
    const jsonl = path.join(dir, 'rows.jsonl');
    fs.writeFileSync(
      jsonl,
      [
        { outputKey: 'a.mp4', variables: { title: 'Hi, you', count: 3, show: true, fill: '#ff0000', theme: 'dark' } },
        { outputKey: 'b.mp4', variables: { title: 'two\nlines', count: 0.5, show: false, fill: 'blue', theme: 'light' } },
      ]
        .map((e) => JSON.stringify(e))
        .join('\n'),
    );
    const fromCsv = await readBatchFile(csv, { declarations });
    const fromJsonl = await readBatchFile(jsonl);
    const decoded = (b: typeof fromCsv) => [0, 1].map((i) => ({ outputKey: b.entries.at(i)!.outputKey, variables: JSON.parse(b.entries.at(i)!.variablesJson) }));
    assert.equal(decoded(fromCsv), decoded(fromJsonl));
    assert.equal(fromCsv.entries.at(1)!.line, 3);
    assert.equal(fromCsv.problems, [{ line: 5, outputKey: 'c.mp4', reason: 'line 5, column "count": "lots" is not a number' }]);

    const tsv = path.join(dir, 'rows.tsv');
    fs.writeFileSync(tsv, 'id\ttitle\n7\tseven\n');
    const patterned = await readBatchFile(tsv, { declarations, outputKeyPattern: 'renders/{id}.mp4' });
    assert.equal(patterned.entries.at(0), { line: 2, outputKey: 'renders/7.mp4', variablesJson: '{"id":"7","title":"seven"}' });
    const noKey = await readBatchFile(tsv, { declarations }).then(() => undefined, (err: Error) => err);
    assert.match(noKey?.message ?? 'no error', /^cannot read batch file .*rows\.tsv: no outputKey column: add one, or name outputs with a pattern/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
