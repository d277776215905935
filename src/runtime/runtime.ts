import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RuntimeBoot } from './boot';

export type { RuntimeBoot } from './boot';

/**
 * The page runtime's parts (src/runtime/page/, in src/ and in dist/ alike), in the order they
 * run. Each is a piece of one function body: they share its variables, and what a part declares
 * with `var` or `function` the others may use whatever their order.
 */
const PARTS = ['clock.js', 'dialogs.js', 'fonts.js', 'animations.js', 'timing.js', 'timelines.js', 'adapters.js', 'media.js', 'video-frames.js', 'variables.js', 'sub-compositions.js', 'frames.js', 'changes.js', 'loads.js', 'seek.js'];

let cachedSource: string | undefined;

/**
 * The runtime script itself: one classic script, run before any page script, that installs
 * `window.__vidkit` once. The renderer injects it (capture-session.ts) and the player bundle
 * embeds it (scripts/build-browser.mjs calls this function), so both run the same text.
 */
export function runtimeSource(): string {
  cachedSource ??= [
    '(function installVidkitRuntime() {',
    "'use strict';",
    'if (window.__vidkit) return;',
    ...PARTS.map((part) => fs.readFileSync(path.join(__dirname, 'page', part), 'utf8')),
    '})();',
  ].join('\n');
  return cachedSource;
}

/** The script to evaluate on every new document: configuration first, then the runtime. */
export function bootScript(boot: RuntimeBoot): string {
  return `window.__vidkitBoot = ${JSON.stringify(boot)};\n${runtimeSource()}`;
}
