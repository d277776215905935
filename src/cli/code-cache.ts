import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { vidkitCacheDir } from '../cache-dir';

/**
 * Runs the command line's bundle (scripts/build-cli.mjs) in place of the module `host`, as Node
 * runs a CommonJS module, with V8's code for it kept in the cache folder: compiling the 6 MB
 * bundle anew was a third of the CPU `vidkit --version` takes, and every command pays it. The
 * code is kept after the first command that found none (or whose code V8 refused: another Node,
 * other V8 flags, a rebuilt bundle), with what that command compiled; a folder that cannot be
 * written only costs the compile.
 */
export function runWithCodeCache(file: string, host: NodeJS.Module): void {
  const source = fs.readFileSync(file, 'utf8');
  const stat = fs.statSync(file);
  const key = createHash('sha256').update([process.version, process.arch, file, stat.size, stat.mtimeMs].join('\0')).digest('hex').slice(0, 24);
  const cacheFile = path.join(vidkitCacheDir(), 'code-cache', `cli-${key}.bin`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    // None kept yet.
  }
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new vm.Script(wrapper, { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected) process.once('exit', () => keep(script, cacheFile));
  // The bundle runs as `host` (dist/cli/main.js): it is the main module where that one is.
  script.runInThisContext()(host.exports, createRequire(file), host, file, path.dirname(file));
}

function keep(script: vm.Script, cacheFile: string): void {
  const partial = `${cacheFile}.${process.pid}.partial`;
  try {
    fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
    fs.writeFileSync(partial, script.createCachedData());
    fs.renameSync(partial, cacheFile);
  } catch {
    fs.rmSync(partial, { force: true });
  }
}
