// Copies the faces vidkit serves from their npm packages, devDependencies, into dist/: the
// fallback faces (src/fonts/fallback-fonts.ts) into dist/fallback-fonts/ and HyperFrames' static
// faces with the generic families' faces (src/fonts/static-fonts.ts) into dist/static-fonts/,
// each with its package's licence and a stylesheet: vidkit is packed and installed with only these
// files, not the whole packages. Runs after tsc.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const load = createRequire(import.meta.url);
const { FALLBACK_DIR, installFallbackFonts } = load(join(root, 'dist', 'fonts', 'fallback-fonts.js'));
const { STATIC_DIR, installStaticFonts } = load(join(root, 'dist', 'fonts', 'static-fonts.js'));
installFallbackFonts(FALLBACK_DIR);
installStaticFonts(STATIC_DIR);
