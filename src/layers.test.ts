// tier: unit
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from './test-support/cli';
import { importCycles, importEdges, layerProblems } from './test-support/import-graph';

/**
 * The layers of src/, bottom first: a folder (or root file) imports only from its own layer and
 * those below it, and no two import each other. render/ counts by its job folders, its own root
 * (the render context and the dispatchers) above them.
 */
const LAYERS = [
  ['errors.ts', 'package-info.ts', 'cache-dir.ts', 'native-addon.d.ts'],
  ['native.ts'],
  // The value types every layer shares: formats, quality, fps, sizes, presets, timeouts, project files.
  ['values'],
  ['options'],
  ['composition'],
  ['fonts'],
  ['runtime'],
  ['render/serve'],
  ['render/browser'],
  ['render/capture'],
  ['render/output'],
  ['render/plan'],
  ['render'],
  ['sdk'],
  ['lambda', 'batch'],
  ['index.ts', 'template-server', 'player', 'doctor', 'init', 'docs', 'template-assets.ts'],
  ['web-template.ts', 'preview'],
  ['cli'],
  ['test-support'],
];
const SPLIT = ['render'];
const SRC = path.join(__dirname);

test('src/ has no cycle and no upward import between its folders', () => {
  assert.equal(layerProblems(SRC, LAYERS, SPLIT), []);
});

test('in the page runtime, seek.ts owns seeking: it calls the other modules, and only the entry calls it', () => {
  const page = importEdges(path.join(SRC, 'runtime', 'page'));
  assert.equal(page.filter((e) => e.to === 'seek.ts').map((e) => e.from), ['index.ts']);
  assert.ok(page.filter((e) => e.from === 'seek.ts').length >= 10, 'seek.ts drives the page modules');
});

test('the page runtime\'s modules import each other without a cycle', () => {
  assert.equal(importCycles(path.join(SRC, 'runtime', 'page')), []);
});

test('the check names the files of an upward import, a cycle and an unplaced folder', () => {
  const root = tempDir();
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  write('low/a.ts', "import type { B } from '../high/b';\nexport type A = B;\n");
  write('high/b.ts', "export type B = string;\nexport { a } from '../mid/c';\n");
  write('mid/c.ts', "export const a = import('../high/b');\n");
  write('mid/c.test.ts', "import '../stray/d';\n");
  write('stray/d.ts', "import '../low/a';\n");
  assert.equal(layerProblems(root, [['low'], ['mid'], ['high']], []), [
    'stray has no layer: place it in the layers',
    'upward import low -> high: low/a.ts imports high/b.ts',
    'upward import mid -> high: mid/c.ts imports high/b.ts',
    'cycle high -> mid -> high: high/b.ts imports mid/c.ts; mid/c.ts imports high/b.ts',
  ]);
});

test('the cycle check names the files of a cycle between files, however they import', () => {
  const root = tempDir();
  const write = (file: string, text: string) => fs.writeFileSync(path.join(root, file), text);
  write('clock.ts', "import { seek } from './seek';\nexport const tick = () => seek;\n");
  write('seek.ts', "export { media as seek } from './media';\n");
  write('media.ts', "import type { Tick } from './types';\nexport const media = import('./clock');\nexport type M = Tick;\n");
  write('types.ts', 'export type Tick = number;\n');
  write('state.ts', "import './clock';\n");
  assert.equal(importCycles(root), [
    'cycle clock.ts -> seek.ts -> media.ts -> clock.ts: clock.ts imports seek.ts; seek.ts imports media.ts; media.ts imports clock.ts',
  ]);
  fs.unlinkSync(path.join(root, 'seek.ts'));
  assert.equal(importCycles(root), []);
});

test.run();
