import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The file that the URL path `rawPath` names under `root`, or undefined when the page may not have
 * it: a name starting with `.` anywhere in the path (`.env`, `.git/config`, `sub/.secret`, `..`),
 * a path that resolves through a symlink to outside `root` or to a hidden path in it, or nothing
 * there. A directory stands for its `index.html`. The path is decoded as sirv decodes it
 * (`decodeURI`, query and fragment dropped), so the project server's sirv serves exactly the file
 * checked here.
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

/** The stats of `file` when it exists and its real path (symlinks followed) is one the page may have ({@link mayResolveTo}). */
function statInside(root: string, file: string): fs.Stats | undefined {
  try {
    const real = fs.realpathSync(file);
    if (!mayResolveTo(fs.realpathSync(root), real)) return undefined;
    return fs.statSync(real);
  } catch {
    return undefined;
  }
}

/**
 * What a path the page asks for may lead to, once symlinks are followed: `realRoot` itself or a
 * path under it with no hidden segment, so a link can neither leave the project nor reach a
 * dotfile inside it (`public.txt -> .env`). The one place that decides it.
 */
function mayResolveTo(realRoot: string, real: string): boolean {
  if (real === realRoot) return true;
  if (!real.startsWith(realRoot + path.sep)) return false;
  return !path.relative(realRoot, real).split(path.sep).some((segment) => segment.startsWith('.'));
}
