import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { PACKAGE_ROOT } from '../package-info';

// The page scripts' modules stay in src/ (tsc does not emit them).
const SOURCES = path.join(PACKAGE_ROOT, 'src', 'runtime');

/**
 * A page script's modules bundled into one classic script: no module syntax, wrapped in a strict
 * function `head` (whose body starts with `guard`) that runs at once. The modules are bundled as
 * they are written (no minifying), so a stack trace from a page names their own functions.
 */
function bundle(entry: string, head: string, guard: string, define: Record<string, string>): string {
  const result = buildSync({
    entryPoints: [path.join(SOURCES, entry)],
    bundle: true,
    write: false,
    // Without exports, an ES module bundle is plain statements, which the wrapper's body takes.
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    define,
    legalComments: 'none',
    logLevel: 'silent',
    banner: { js: `(${head} {\n'use strict';${guard}` },
    footer: { js: '})();' },
  });
  return result.outputFiles[0].text;
}

/**
 * The page runtime (src/runtime/page/), wrapped in the function `installVidkitRuntime`, which
 * returns at once where a runtime is installed already (a page or frame that got it twice) and
 * whose text frames.ts copies into the page's iframes.
 */
export function bundlePageRuntime(): string {
  return bundle('page/index.ts', 'function installVidkitRuntime()', '\nif (window.__vidkit) return;', {});
}

/** The glyph check (src/runtime/glyph-page/), for a browser whose fontconfig lists `systemFaces`. */
export function bundleGlyphCheck(systemFaces: readonly string[]): string {
  return bundle('glyph-page/index.ts', 'function ()', '', { VIDKIT_SYSTEM_FACES: JSON.stringify(systemFaces) });
}
