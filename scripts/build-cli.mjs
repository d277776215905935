// Bundles the command line (dist/cli/main.js, as tsc wrote it) with the libraries it loads into
// one file, dist/cli/bundle.js, and makes dist/cli/main.js run it through V8's code cache
// (src/cli/code-cache.ts). Resolving, reading and compiling hundreds of small modules was half
// the CPU of a small render. The API (dist/index.js) stays as tsc wrote it. Left out, and loaded
// from node_modules when used: the AWS clients (only the cloud commands need them), esbuild (a
// native binary, needed only where nothing was built), the native addon, and the parts of
// puppeteer no command reaches: WebDriver BiDi (chromium-bidi), proxy auto-config and SOCKS proxies
// for browser downloads (with a JavaScript engine and parser of their own) and its command line
// (yargs). Those were 3.3 MB of the 6.2 MB bundle; reading and loading them cost every command
// about 45 ms (vidkit --version: 0.25 s, 0.20 s without).
import { renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli');
const entry = join(cli, 'main.js');
const bundle = join(cli, 'bundle.js');
const result = await build({
  entryPoints: [entry],
  outfile: bundle,
  write: false,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['@aws-sdk/*', '@smithy/*', 'esbuild', '*.node', 'bufferutil', 'utf-8-validate', 'chromium-bidi', 'pac-proxy-agent', 'socks-proxy-agent', 'yargs', 'yargs/*'],
  logLevel: 'error',
});
// The bundle runs as a function's body (code-cache.ts), where main.js's #! line is not JavaScript.
writeFileSync(`${bundle}.partial`, result.outputFiles[0].text.replace(/^#!.*/, ''));
renameSync(`${bundle}.partial`, bundle);
writeFileSync(`${entry}.partial`, "#!/usr/bin/env node\n'use strict';\nrequire('./code-cache').runWithCodeCache(require('node:path').join(__dirname, 'bundle.js'), module);\n", { mode: 0o755 });
renameSync(`${entry}.partial`, entry);
