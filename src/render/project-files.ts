import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The file that the URL path `rawPath` names under `root`, or undefined when the page may not have
 * it: a name starting with `.` anywhere in the path (`.env`, `.git/config`, `sub/.secret`, `..`),
 * a path that resolves through a symlink to outside `root`, or nothing there. A directory stands
 * for its `index.html`. The path is decoded as sirv decodes it (`decodeURI`, query and fragment
 * dropped), so the project server's sirv serves exactly the file checked here.
 */
export function projectFile(root: string, rawPath: string): string | undefined {
  let pathname = rawPath.split('#')[0].split('?')[0];
  try {
    pathname = decodeURI(pathname);
  } catch {
    // A malformed escape stays as it is, as sirv leaves it.
  }
  if (pathname.split('/').some((segment) => segment.startsWith('.'))) return undefined;
  const file = path.join(root, pathname);
  const stats = statInside(root, file);
  if (stats?.isFile()) return file;
  if (!stats?.isDirectory()) return undefined;
  const index = path.join(file, 'index.html');
  return statInside(root, index)?.isFile() ? index : undefined;
}

/** The stats of `file` when it exists and its real path (symlinks followed) is `root`'s or under it. */
function statInside(root: string, file: string): fs.Stats | undefined {
  try {
    const real = fs.realpathSync(file);
    const realRoot = fs.realpathSync(root);
    if (real !== realRoot && !real.startsWith(realRoot + path.sep)) return undefined;
    return fs.statSync(real);
  } catch {
    return undefined;
  }
}
