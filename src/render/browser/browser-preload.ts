import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { vidkitCacheDir } from '../../cache-dir';
import { loadNative } from '../../native';

let written: string | null | undefined;

/**
 * The library Chromium starts with on Linux (`LD_PRELOAD`; crates/vidkit-preload): it keeps the
 * pages Chromium's allocators free and take again for every frame, whose page faults took about a
 * quarter of a video page's render. It is written once into vidkit's cache directory under its
 * content's hash. Undefined on other systems, with `VIDKIT_BROWSER_PRELOAD=0`, or where the cache
 * cannot be written: it only makes renders faster. It is never looked for in a directory that
 * other users can write (a shared temporary directory), since the browser runs whatever it names.
 */
export function browserPreload(): string | undefined {
  if (process.platform !== 'linux' || process.env.VIDKIT_BROWSER_PRELOAD === '0') return undefined;
  written ??= writePreload();
  return written ?? undefined;
}

function writePreload(): string | null {
  try {
    const bytes = loadNative().browserPreload();
    const dir = path.join(vidkitCacheDir(), `preload-${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}`);
    const file = path.join(dir, 'libvidkit_preload.so');
    if (!sameBytes(file, bytes)) {
      fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
      // Written aside and renamed, so a browser another render starts meanwhile never loads half a file.
      const partial = `${file}.${process.pid}.partial`;
      fs.writeFileSync(partial, bytes, { mode: 0o644 });
      fs.renameSync(partial, file);
    }
    return file;
  } catch {
    return null;
  }
}

function sameBytes(file: string, bytes: Buffer): boolean {
  try {
    return fs.readFileSync(file).equals(bytes);
  } catch {
    return false;
  }
}
