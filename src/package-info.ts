import * as path from 'node:path';

/** The repository (or installed package) root: src/ and dist/ both sit one level below it. */
export const PACKAGE_ROOT = path.resolve(__dirname, '..');
export const VERSION: string = require(path.join(PACKAGE_ROOT, 'package.json')).version;
