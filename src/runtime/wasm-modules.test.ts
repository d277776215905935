// tier: unit
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT } from '../test-support/cli';

const test = suite('the page runtime\'s WebAssembly');

test('each generated module is its .wat file assembled (node scripts/gen-wasm.mjs writes them)', async () => {
  const { assembleWat, wasmModuleSource } = (await import(path.join(REPO_ROOT, 'scripts', 'wasm-module.mjs'))) as {
    assembleWat(text: string, name: string): Promise<Buffer>;
    wasmModuleSource(name: string, bytes: Buffer): string;
  };
  const dir = path.join(REPO_ROOT, 'src', 'runtime', 'page');
  const sources = fs.readdirSync(dir).filter((file) => file.endsWith('.wat'));
  assert.ok(sources.includes('yuv-to-rgba.wat'));
  for (const name of sources) {
    const committed = fs.readFileSync(path.join(dir, name.replace(/\.wat$/, '.wasm.ts')), 'utf8');
    const bytes = await assembleWat(fs.readFileSync(path.join(dir, name), 'utf8'), name);
    assert.fixture(committed, wasmModuleSource(name, bytes), `${name}: run node scripts/gen-wasm.mjs`);
  }
});

test.run();
