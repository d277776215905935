// Writes docs/reference/render-options.md from the render option table (src/options/registry.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REFERENCE_PAGE, renderOptionsPage } from '../src/options/reference-page';

const target = path.join(__dirname, '..', REFERENCE_PAGE);
fs.mkdirSync(path.dirname(target), { recursive: true });
const partial = `${target}.partial`;
fs.writeFileSync(partial, renderOptionsPage());
fs.renameSync(partial, target);
process.stdout.write(`${REFERENCE_PAGE}\n`);
