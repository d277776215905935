// tier: unit
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sourceHash } from '../../scripts/source-hash';
import { staleness } from './build';
import { tempDir } from './cli';

const test = suite('the end-to-end tests refuse a dist/ built from other sources');

/** A checkout in miniature: the build's inputs, a test and a dist/ built from them. */
function checkout(): string {
  const root = tempDir('vidkit-build-');
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  write('src/render/a.ts', 'export const a = 1;\n');
  write('src/render/a.test.ts', 'test\n');
  write('src/test-support/helper.ts', 'helper\n');
  write('tsconfig.json', '{}\n');
  write('scripts/build-browser.mjs', '\n');
  write('scripts/build-fonts.mjs', '\n');
  write('scripts/build-cli.mjs', '\n');
  write('package-lock.json', '{"lockfileVersion":3}\n');
  write('dist/source-hash', `${sourceHash(root)}\n`);
  return root;
}

test('current after the build; stale once a source changes; current again after a rebuild', () => {
  const root = checkout();
  assert.is(staleness(root), undefined);
  fs.appendFileSync(path.join(root, 'src/render/a.ts'), 'export const b = 2;\n');
  assert.is(staleness(root), 'dist/ is stale: run npm run build:ts');
  fs.writeFileSync(path.join(root, 'dist/source-hash'), sourceHash(root));
  assert.is(staleness(root), undefined);
  fs.renameSync(path.join(root, 'src/render/a.ts'), path.join(root, 'src/render/b.ts'));
  assert.is(staleness(root), 'dist/ is stale: run npm run build:ts', 'a renamed source');
  fs.writeFileSync(path.join(root, 'dist/source-hash'), sourceHash(root));
  // The command line bundles its libraries: another locked version of one is another build.
  fs.writeFileSync(path.join(root, 'package-lock.json'), '{"lockfileVersion":3,"packages":{}}\n');
  assert.is(staleness(root), 'dist/ is stale: run npm run build:ts', 'a changed lockfile');
  fs.rmSync(root, { recursive: true });
});

test('tests and test-support are not build inputs: editing them needs no rebuild', () => {
  const root = checkout();
  fs.appendFileSync(path.join(root, 'src/render/a.test.ts'), 'more\n');
  fs.appendFileSync(path.join(root, 'src/test-support/helper.ts'), 'more\n');
  assert.is(staleness(root), undefined);
  fs.rmSync(root, { recursive: true });
});

test('a build that stopped half-way (no hash written) is stale', () => {
  const root = checkout();
  fs.rmSync(path.join(root, 'dist/source-hash'));
  assert.match(staleness(root) ?? '', /^dist\/ is stale: dist\/source-hash is missing .*run npm run build:ts$/);
  fs.rmSync(root, { recursive: true });
});

test.run();
