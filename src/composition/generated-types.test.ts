import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT, errorLines, tempDir, vidkit } from '../test-support/cli';
import { loadComposition } from './composition';
import { checkOverrides } from './variables';

const EXAMPLE = path.join(REPO_ROOT, 'examples', 'ui-3d-reveal');
const TSC = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const dir = tempDir('vidkit-types-test-');

// Ids that are not identifiers, enums of numbers and of {value, label}, no default, a dropped type.
const ODD = path.join(dir, 'odd');
fs.mkdirSync(ODD);
fs.writeFileSync(
  path.join(ODD, 'index.html'),
  `<html data-composition-variables='[
    {"id":"font-size","type":"enum","options":[12,{"value":16,"label":"Medium"}],"default":16},
    {"id":"mode","type":"enum","options":[{"value":"a*/b","label":"Odd"},"plain"]},
    {"id":"note","type":"string","label":"A */ closing comment"},
    {"id":"meta","type":"object","default":{}}
  ]'><body><div data-composition-id="2nd odd" data-width="320" data-height="180" data-duration="1"></div></body></html>`,
);

function tsc(files: string[]) {
  return spawnSync(process.execPath, [TSC, '--noEmit', '--strict', '--target', 'ES2022', '--module', 'commonjs', ...files], { cwd: dir, encoding: 'utf8' });
}

test('types generate writes definitions that compile against a sample using every type', () => {
  const out = path.join(dir, 'ui-3d-reveal-variables.ts');
  const run = vidkit(['types', 'generate', EXAMPLE, '--out', out]);
  assert.is(run.status, 0, run.stderr);
  assert.is(run.stdout.trim(), out);
  const text = fs.readFileSync(out, 'utf8');
  assert.match(text, /theme\?: "dark" \| "light" \| "midnight";/);
  assert.match(text, /@default "#7c5cff"/);
  const odd = vidkit(['types', 'generate', ODD, '--out', path.join(dir, 'odd-variables.ts')]);
  assert.is(odd.status, 0, odd.stderr);
  assert.match(odd.stderr, /variable "meta" has an unsupported type and is left out/);
  fs.writeFileSync(
    path.join(dir, 'sample.ts'),
    `import type { Ui3dRevealVariables } from './ui-3d-reveal-variables';
import type { Composition2ndOddVariables } from './odd-variables';
export const all: Ui3dRevealVariables = { headline: 'Hi', accent: '#ff3366', cards: 4, showBadge: false, theme: 'midnight' };
export const none: Ui3dRevealVariables = {};
export const odd: Composition2ndOddVariables = { 'font-size': 12, mode: 'a*/b', note: 'n' };
`,
  );
  const good = tsc(['sample.ts']);
  assert.is(good.status, 0, good.stdout);
});

test('a wrong enum value (or a wrong type) does not compile', () => {
  fs.writeFileSync(
    path.join(dir, 'wrong.ts'),
    `import type { Ui3dRevealVariables } from './ui-3d-reveal-variables';
import type { Composition2ndOddVariables } from './odd-variables';
export const theme: Ui3dRevealVariables = { theme: 'neon' };
export const cards: Ui3dRevealVariables = { cards: '4' };
export const size: Composition2ndOddVariables = { 'font-size': 14 };
`,
  );
  const bad = tsc(['wrong.ts']);
  assert.is(bad.status, 2);
  const errors = bad.stdout.split('\n').filter((l) => l.includes('error TS'));
  assert.equal(errors.map((l) => l.split(':')[0]), ['wrong.ts(3,45)', 'wrong.ts(4,45)', 'wrong.ts(5,51)']);
  assert.match(errors[0], /"neon"/);
});

test('--json-schema validates overrides exactly as --strict-variables checks them', () => {
  const run = vidkit(['types', 'generate', EXAMPLE, '--json-schema']);
  assert.is(run.status, 0, run.stderr);
  const schema = JSON.parse(run.stdout);
  assert.is(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
  const validate = new Ajv2020({ strict: true }).compile(schema);
  const declarations = loadComposition(EXAMPLE).variables;
  const samples: Record<string, unknown>[] = [
    {},
    { headline: 'Hi', accent: '#ff3366', cards: 4, showBadge: true, theme: 'light' },
    { accent: 'rgb(10, 20, 30)' },
    { accent: ' RebeccaPurple ' },
    { accent: '#12345' },
    { accent: 'url(x)' },
    { accent: 7 },
    { theme: 'neon' },
    { cards: '4' },
    { showBadge: 'true' },
    { headline: 3 },
    { extra: 1 },
  ];
  const verdicts = samples.map((s) => [validate(s), checkOverrides(declarations, s).length === 0]);
  assert.equal(verdicts.map(([bySchema]) => bySchema), [true, true, true, true, false, false, false, false, false, false, false, false]);
  assert.equal(verdicts.map(([, byStrict]) => byStrict), verdicts.map(([bySchema]) => bySchema));
});

test('types generate of a missing project fails with one error line, exit 2, writing nothing', () => {
  const out = path.join(dir, 'never.ts');
  const run = vidkit(['types', 'generate', path.join(dir, 'nope'), '--out', out]);
  assert.is(run.status, 2);
  assert.equal(errorLines(run.stderr).length, 1);
  assert.not.ok(fs.existsSync(out));
});

test.run();
