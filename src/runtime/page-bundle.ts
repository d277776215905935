import * as path from 'node:path';
import { buildSync } from 'esbuild';

// The runtime's modules stay in src/ (tsc does not emit them): this path holds from src/runtime
// and from dist/runtime alike.
const ENTRY = path.join(__dirname, '..', '..', 'src', 'runtime', 'page', 'index.ts');

/**
 * The page runtime (src/runtime/page/) bundled into one classic script: no module syntax, strict,
 * and wrapped in the function `installVidkitRuntime`, which returns at once where a runtime is
 * installed already (a page or frame that got it twice) and whose text frames.ts copies into the
 * page's iframes. The modules are bundled as they are written (no minifying), so a stack trace
 * from a page names the runtime's own functions.
 */
export function bundlePageRuntime(): string {
  const result = buildSync({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    // Without exports, an ES module bundle is plain statements, which the wrapper's body takes.
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    legalComments: 'none',
    logLevel: 'silent',
    banner: { js: "(function installVidkitRuntime() {\n'use strict';\nif (window.__vidkit) return;" },
    footer: { js: '})();' },
  });
  return result.outputFiles[0].text;
}
