import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RuntimeBoot } from './boot';

export type { RuntimeBoot } from './boot';

let cachedSource: string | undefined;

/** The runtime script itself (page-runtime.js beside this file, in src/ and in dist/ alike). */
export function runtimeSource(): string {
  cachedSource ??= fs.readFileSync(path.join(__dirname, 'page-runtime.js'), 'utf8');
  return cachedSource;
}

/** The script to evaluate on every new document: configuration first, then the runtime. */
export function bootScript(boot: RuntimeBoot): string {
  return `window.__vidkitBoot = ${JSON.stringify(boot)};\n${runtimeSource()}`;
}
