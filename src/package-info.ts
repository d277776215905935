import * as path from 'node:path';

/** The repository (or installed package) root: src/ and dist/ both sit one level below it. */
export const PACKAGE_ROOT = path.resolve(__dirname, '..');
const manifest = require(path.join(PACKAGE_ROOT, 'package.json'));
export const VERSION: string = manifest.version;
/** The per-platform addon packages published with this version (its optionalDependencies), name to version. */
export const NATIVE_PACKAGES: Readonly<Record<string, string>> = manifest.optionalDependencies ?? {};
