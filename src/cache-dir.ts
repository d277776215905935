import * as os from 'node:os';
import * as path from 'node:path';

/** Where vidkit keeps what it can rebuild (the browser probe, the browser's fontconfig): `$XDG_CACHE_HOME/vidkit`, else `~/.cache/vidkit`. */
export function vidkitCacheDir(): string {
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'vidkit');
}
