// tier: unit
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadNative } from '../native';
import { REPO_ROOT, tempDir } from '../test-support/cli';
import { SCHEMA_FILES, schemaText } from './schema-files';

const test = suite('published JSON Schemas');

test('each committed schema is the one its boundary validates with (npm run docs:schemas writes them)', () => {
  for (const file of SCHEMA_FILES) {
    const committed = fs.readFileSync(path.join(REPO_ROOT, file.path), 'utf8');
    assert.fixture(committed, schemaText(file), `${file.path}: run npm run docs:schemas`);
  }
});

test('every committed schema compiles as draft 2020-12', () => {
  const ajv = new Ajv2020({ strict: false });
  for (const file of SCHEMA_FILES) assert.ok(ajv.compile(file.schema()), file.path);
});

test('the batch line schema and the native parser accept and refuse the same lines', async () => {
  const schema = SCHEMA_FILES.find((f) => f.path.endsWith('batch-line.schema.json'))!.schema();
  const valid = new Ajv2020({ strict: false }).compile(schema);
  const lines: unknown[] = [
    { outputKey: 'renders/a.mp4', variables: {} },
    { outputKey: 'b.mp4', variables: { name: 'Zoë', n: 3 }, note: 'other fields are ignored' },
    { outputKey: 'renders/c:d.mp4', variables: {} },
    { outputKey: 'renders/..e.mp4', variables: {} },
    { outputKey: '', variables: {} },
    { outputKey: 'f.mp4' },
    { variables: {} },
    { outputKey: 7, variables: {} },
    { outputKey: 'g.mp4', variables: [] },
    { outputKey: 'h.mp4', variables: null },
    { outputKey: '/abs.mp4', variables: {} },
    { outputKey: 's3://bucket/i.mp4', variables: {} },
    { outputKey: 'https:j.mp4', variables: {} },
    { outputKey: 'k/../../l.mp4', variables: {} },
    { outputKey: '..', variables: {} },
    { outputKey: 'two\nlines.mp4', variables: {} },
    { outputKey: 'nul\u0000.mp4', variables: {} },
    ['m.mp4', {}],
    'n.mp4',
  ];
  const file = path.join(tempDir('vidkit-batch-schema-'), 'batch.jsonl');
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const parsed = await loadNative().parseBatchFile(file);
  const refused = new Set(parsed.errors.map((e) => e.line));
  const disagree = lines.filter((line, i) => valid(line) === refused.has(i + 1)).map((l) => JSON.stringify(l));
  assert.equal(disagree, [], 'lines the schema and the parser judge differently');
  assert.is(refused.size, lines.length - 4, 'the first four lines are good ones');
});

test.run();
