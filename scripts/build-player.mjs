// Bundles <vidkit-player> into one self-contained ES module, dist/player/vidkit-player.js, with the
// page runtime embedded so the player drives the very clock the renderer injects.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const runtime = readFileSync(join(root, 'src', 'runtime', 'page-runtime.js'), 'utf8');

await build({
  entryPoints: [join(root, 'src', 'player', 'vidkit-player.ts')],
  outfile: join(root, 'dist', 'player', 'vidkit-player.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  define: { VIDKIT_PAGE_RUNTIME: JSON.stringify(runtime) },
  legalComments: 'none',
  logLevel: 'warning',
});
