import * as path from 'node:path';
import { HASH_FILE, builtHash, sourceHash } from '../../scripts/source-hash';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
let checked = false;

/** Why the dist/ under `root` is not the build of the sources there now; undefined when it is. */
export function staleness(root: string): string | undefined {
  const built = builtHash(root);
  if (built === undefined) return `dist/ is stale: ${HASH_FILE} is missing (no complete build): run npm run build:ts`;
  if (built !== sourceHash(root)) return 'dist/ is stale: run npm run build:ts';
  return undefined;
}

/**
 * Throws unless dist/ was built from the sources as they are now (the hash `npm run build:ts`
 * writes into dist/). Checked once per process: the end-to-end tests run the built code, and a
 * forgotten rebuild would otherwise test yesterday's code.
 */
export function assertBuildCurrent(): void {
  if (process.env.VIDKIT_TEST_TIER === 'unit') {
    throw new Error('a unit test runs on the sources, and this one reaches dist/: list it as end-to-end (UNIT_TESTS in scripts/test.sh)');
  }
  if (checked) return;
  const problem = staleness(REPO_ROOT);
  if (problem) throw new Error(problem);
  checked = true;
}

/** The path of a built file under dist/, once dist/ is known to be current. */
export function built(...parts: string[]): string {
  assertBuildCurrent();
  return path.join(REPO_ROOT, 'dist', ...parts);
}

/** cloud/handler.js, the render function's entry: it runs the handler built into dist/. */
export function cloudHandler(): string {
  assertBuildCurrent();
  return path.join(REPO_ROOT, 'cloud', 'handler.js');
}
