// Copies the fallback faces vidkit serves (src/fonts/fallback-fonts.ts) from their npm packages,
// devDependencies, into dist/fallback-fonts/ with each package's licence and their stylesheet:
// vidkit is packed and installed with only these files, not the whole packages. Runs after tsc.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { FALLBACK_DIR, installFallbackFonts } = createRequire(import.meta.url)(join(root, 'dist', 'fonts', 'fallback-fonts.js'));
installFallbackFonts(FALLBACK_DIR);
