import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The repository (or installed package) root: the nearest folder above this module with a
 * package.json. The module sits in src/ (tests), in dist/ (the API) or bundled into
 * dist/cli/bundle.js (the command line), so its depth below the root differs.
 */
export const PACKAGE_ROOT = packageRoot(__dirname);

function packageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`vidkit: no package.json above ${from}`);
  }
}
const manifest = require(path.join(PACKAGE_ROOT, 'package.json'));
export const VERSION: string = manifest.version;
/** The per-platform addon packages published with this version (its optionalDependencies), name to version. */
export const NATIVE_PACKAGES: Readonly<Record<string, string>> = manifest.optionalDependencies ?? {};

/**
 * The file the build wrote at dist/`parts` when this code runs built (from dist/ or bundled into
 * the command line); undefined when it runs from src/ (tests under tsx), where nothing was built.
 */
export function builtFile(...parts: string[]): string | undefined {
  return __filename.endsWith('.ts') ? undefined : path.join(PACKAGE_ROOT, 'dist', ...parts);
}
