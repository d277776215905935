// The fingerprint of what `npm run build:ts` builds dist/ from: the sources under src/ (tests and
// test-support excluded, as tsconfig.json excludes them), the tsconfigs and the build scripts. The
// build writes it to dist/source-hash last; the end-to-end tests compare it with the working tree,
// so that none of them runs code older than the sources (src/test-support/build.ts).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const HASH_FILE = path.join('dist', 'source-hash');
// package-lock.json: the command line bundles its libraries (scripts/build-cli.mjs).
const INPUTS = ['src', 'tsconfig.json', 'package-lock.json', 'scripts/build-browser.mjs', 'scripts/build-fonts.mjs', 'scripts/build-cli.mjs'];

function isBuildInput(rel: string): boolean {
  return !rel.endsWith('.test.ts') && !rel.split('/').includes('test-support');
}

function files(root: string, rel: string): string[] {
  const full = path.join(root, rel);
  if (!fs.statSync(full).isDirectory()) return [rel];
  return fs.readdirSync(full).flatMap((name) => files(root, `${rel}/${name}`));
}

export function sourceHash(root: string): string {
  const hash = createHash('sha256');
  for (const rel of INPUTS.flatMap((input) => files(root, input)).filter(isBuildInput).sort()) {
    hash.update(`${rel}\0`).update(fs.readFileSync(path.join(root, rel))).update('\0');
  }
  return hash.digest('hex');
}

/** The fingerprint dist/ under `root` was built from, as the build wrote it; undefined where no build completed. */
export function builtHash(root: string): string | undefined {
  const file = path.join(root, HASH_FILE);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : undefined;
}

// `tsx scripts/source-hash.ts clear` before a build, `... write` after it succeeds: a build that
// fails half-way leaves no hash, so dist/ reads as stale. `... current` exits 0 when dist/ is the
// build of the inputs as they are now (setup then skips the build), 1 when it is not.
if (require.main === module) {
  const root = path.join(__dirname, '..');
  const file = path.join(root, HASH_FILE);
  const verb = process.argv[2];
  if (verb === 'clear') fs.rmSync(file, { force: true });
  else if (verb === 'write') fs.writeFileSync(file, `${sourceHash(root)}\n`);
  else if (verb === 'current') process.exitCode = builtHash(root) === sourceHash(root) ? 0 : 1;
  else throw new Error(`usage: tsx scripts/source-hash.ts clear|write|current (got ${verb ?? 'nothing'})`);
}
