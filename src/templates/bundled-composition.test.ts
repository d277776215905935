import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT } from '../test-support/cli';

// Each template is deployed on its own, so it carries its own copy of the bundled composition;
// the copies must stay byte for byte the example they were taken from.
const EXAMPLE = path.join(REPO_ROOT, 'examples', 'ui-3d-reveal');
const COPIES = [
  'templates/sandbox-platform/public/compositions/ui-3d-reveal',
  'templates/edge-container/public/compositions/ui-3d-reveal',
  'templates/serverless-container/compositions/ui-3d-reveal',
];

const files = (dir: string): string[] => fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();

test('every template ships examples/ui-3d-reveal unchanged', () => {
  const expected = files(EXAMPLE);
  assert.ok(expected.includes('index.html'));
  for (const copy of COPIES) {
    const dir = path.join(REPO_ROOT, copy);
    assert.equal(files(dir), expected, `${copy} has the example's files`);
    for (const f of expected) assert.ok(fs.readFileSync(path.join(dir, f)).equals(fs.readFileSync(path.join(EXAMPLE, f))), `${copy}/${f} equals the example's`);
  }
});

test.run();
