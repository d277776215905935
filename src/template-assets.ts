import * as fs from 'node:fs';
import * as path from 'node:path';
import { ENTRY_FILE, loadComposition } from './composition/composition';
import { renderRequestSchema } from './composition/render-request';
import { FONTS_PREFIX, exportBundledFonts } from './fonts/bundled-fonts';
import { PACKAGE_ROOT } from './package-info';

/** The composition every web template ships: the bundled example. */
export const BUNDLED_COMPOSITION = 'ui-3d-reveal';

/** Where the request contract of `<compositionsDir>/<name>/` goes: beside the project, not in it. */
export function requestSchemaFile(compositionsDir: string, name: string): string {
  return path.join(compositionsDir, `${name}.request.schema.json`);
}

/**
 * Installs what a web template serves from vidkit itself: the `<vidkit-player>` module, the
 * bundled fonts beside it (served at /__vidkit-fonts/, where the player's page runtime links them)
 * and the bundled composition, copied from this package so none is committed a second time; then
 * writes the request contract of every composition in `compositionsDir` ({@link renderRequestSchema},
 * read by the Python template). Templates run it at setup and before every build or deploy.
 */
export function installTemplateAssets(target: { playerFile: string; compositionsDir: string }): void {
  const player = path.join(PACKAGE_ROOT, 'dist', 'player', 'vidkit-player.js');
  if (!fs.existsSync(player)) throw new Error(`${player} is missing: build vidkit first (npm run build:ts)`);
  fs.mkdirSync(path.dirname(target.playerFile), { recursive: true });
  fs.copyFileSync(player, target.playerFile);
  exportBundledFonts(path.join(path.dirname(target.playerFile), FONTS_PREFIX));
  const composition = path.join(target.compositionsDir, BUNDLED_COMPOSITION);
  fs.rmSync(composition, { recursive: true, force: true });
  fs.cpSync(path.join(PACKAGE_ROOT, 'examples', BUNDLED_COMPOSITION), composition, { recursive: true });
  writeRequestSchemas(target.compositionsDir);
}

/** The request contract of each composition (a directory with an index.html) in `compositionsDir`. */
export function writeRequestSchemas(compositionsDir: string): void {
  for (const entry of fs.readdirSync(compositionsDir, { withFileTypes: true })) {
    const dir = path.join(compositionsDir, entry.name);
    if (!entry.isDirectory() || !fs.existsSync(path.join(dir, ENTRY_FILE))) continue;
    const file = requestSchemaFile(compositionsDir, entry.name);
    // Whole or absent: a reader never sees half a contract.
    fs.writeFileSync(`${file}.partial`, `${JSON.stringify(renderRequestSchema(loadComposition(dir)), null, 2)}\n`);
    fs.renameSync(`${file}.partial`, file);
  }
}

/** `node dist/template-assets.js <playerFile> <compositionsDir>`: the same, for a template's scripts. */
if (require.main === module) {
  const [playerFile, compositionsDir] = process.argv.slice(2);
  if (!playerFile || !compositionsDir) {
    console.error('usage: node template-assets.js <playerFile> <compositionsDir>');
    process.exit(2);
  }
  try {
    installTemplateAssets({ playerFile, compositionsDir });
  } catch (err) {
    console.error(`template-assets: error: ${(err as Error).message}`);
    process.exit(3);
  }
}
