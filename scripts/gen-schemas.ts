// Writes docs/reference/schemas/*.schema.json from the declarations the boundaries validate with
// (src/docs/schema-files.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SCHEMA_FILES, schemaText } from '../src/docs/schema-files';

for (const file of SCHEMA_FILES) {
  const target = path.join(__dirname, '..', file.path);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(`${target}.partial`, schemaText(file));
  fs.renameSync(`${target}.partial`, target);
  process.stdout.write(`${file.path}\n`);
}
