// Writes the speed table of README.md and docs/guide/render.md from benches/results
// (src/docs/speed-figures.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RESULTS_DIR, SPEED_PAGES, speedTable, withSpeedTable } from '../src/docs/speed-figures';

const root = path.join(__dirname, '..');
const table = speedTable(path.join(root, RESULTS_DIR));
for (const page of SPEED_PAGES) {
  const target = path.join(root, page);
  fs.writeFileSync(`${target}.partial`, withSpeedTable(fs.readFileSync(target, 'utf8'), table, page));
  fs.renameSync(`${target}.partial`, target);
  process.stdout.write(`${page}\n`);
}
