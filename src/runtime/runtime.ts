import * as fs from 'node:fs';
import { builtFile } from '../package-info';
import type { RuntimeBoot } from './protocol';

export type { RuntimeBoot } from './protocol';

/** Where the build writes the bundled runtime (scripts/build-browser.mjs): beside runtime.js in dist/runtime/. */
export const PAGE_RUNTIME_FILE = 'page-runtime.js';

let cachedSource: string | undefined;

/**
 * The runtime script itself (src/runtime/page/): one classic script, run before any page script,
 * that installs `window.__vidkit` once. The renderer injects it (capture-session.ts) and the
 * player bundle embeds it (scripts/build-browser.mjs calls this function), so both run the same
 * text. In dist/ the build has bundled it already (page-bundle.ts); run from src/ (tests under
 * tsx) it is bundled here, once per process.
 */
export function runtimeSource(): string {
  if (cachedSource === undefined) {
    const built = builtFile('runtime', PAGE_RUNTIME_FILE);
    cachedSource = built !== undefined && fs.existsSync(built) ? fs.readFileSync(built, 'utf8') : bundleNow();
  }
  return cachedSource;
}

// esbuild is a build tool: loaded only where nothing was built, so an installed vidkit never needs it.
function bundleNow(): string {
  return (require('./page-bundle') as typeof import('./page-bundle')).bundlePageRuntime();
}

/** The script to evaluate on every new document: configuration first, then the runtime. */
export function bootScript(boot: RuntimeBoot): string {
  return `window.__vidkitBoot = ${JSON.stringify(boot)};\n${runtimeSource()}`;
}
