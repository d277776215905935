// Assembles the page runtime's WebAssembly (src/runtime/page/*.wat) into a TypeScript module of
// its bytes beside each, which the runtime bundle embeds: `node scripts/gen-wasm.mjs` after a
// change to a .wat file (a test checks the two agree).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assembleWat, wasmModuleSource } from './wasm-module.mjs';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'runtime', 'page');
for (const name of readdirSync(dir).filter((file) => file.endsWith('.wat'))) {
  const bytes = await assembleWat(readFileSync(join(dir, name), 'utf8'), name);
  writeFileSync(join(dir, name.replace(/\.wat$/, '.wasm.ts')), wasmModuleSource(name, bytes));
  console.log(`${name}: ${bytes.length} bytes`);
}
