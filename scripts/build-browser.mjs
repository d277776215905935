// Bundles the page scripts into the classic scripts the renderer injects, the runtime
// (src/runtime/page/, dist/runtime/page-runtime.js) and the glyph check (src/runtime/glyph-page/,
// dist/runtime/glyph-check-page.js), then the browser modules, each into one self-contained ES module:
// <vidkit-player> (dist/player/vidkit-player.js, with the page runtime embedded so the player
// drives the very clock the renderer injects) and the preview page's studio (src/preview/studio/).
// Runs after tsc: the runtime's text comes from dist/runtime/runtime.js, the function the renderer uses.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const load = createRequire(import.meta.url);
const { bundlePageRuntime } = load(join(root, 'dist', 'runtime', 'page-bundle.js'));
const { PAGE_RUNTIME_FILE, runtimeSource } = load(join(root, 'dist', 'runtime', 'runtime.js'));
const { GLYPH_CHECK_FILE, bundleGlyphCheckScript } = load(join(root, 'dist', 'runtime', 'glyph-check.js'));
writeFileSync(join(root, 'dist', 'runtime', PAGE_RUNTIME_FILE), bundlePageRuntime());
writeFileSync(join(root, 'dist', 'runtime', GLYPH_CHECK_FILE), bundleGlyphCheckScript());

const bundle = (entry, outfile) =>
  build({
    entryPoints: [join(root, 'src', entry)],
    outfile: join(root, 'dist', outfile),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    define: { VIDKIT_PAGE_RUNTIME: JSON.stringify(runtimeSource()) },
    legalComments: 'none',
    logLevel: 'warning',
  });

await Promise.all([
  bundle('player/vidkit-player.ts', 'player/vidkit-player.js'),
  bundle('preview/studio/main.ts', 'preview/studio.js'),
]);
