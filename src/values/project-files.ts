import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The file that the URL path `rawPath` names under `root`, or undefined when the page may not have
 * it: a name starting with `.` anywhere in the path (`.env`, `.git/config`, `sub/.secret`, `..`),
 * a path that resolves through a symlink to outside what the project may reach or to a hidden path
 * in it ({@link projectPathStats}), or nothing there. A directory stands for its `index.html`. The
 * path is decoded as sirv decodes it (`decodeURI`, query and fragment dropped), so the project
 * server's sirv serves exactly the file checked here.
 */
export function projectFile(root: string, rawPath: string, links: ProjectLinks = 'follow'): string | undefined {
  let pathname = rawPath.split('#')[0].split('?')[0];
  try {
    pathname = decodeURI(pathname);
  } catch {
    // A malformed escape stays as it is, as sirv leaves it.
  }
  if (pathname.split('/').some((segment) => segment.startsWith('.'))) return undefined;
  const file = path.join(root, pathname);
  const stats = projectPathStats(root, pathname, links);
  if (stats?.isFile()) return file;
  if (!stats?.isDirectory()) return undefined;
  const index = path.join(file, 'index.html');
  return projectPathStats(root, path.posix.join(pathname, 'index.html'), links)?.isFile() ? index : undefined;
}

/**
 * `follow`: a symlink the project contains is followed wherever it points (local renders and
 * preview, where the author made it); `inside`: only within the project (a cloud site, whose
 * upload resolved the project's links into files, so a link there was not the author's).
 */
export type ProjectLinks = 'follow' | 'inside';

/**
 * The studio's file routes (source view, rows files) read and write only what lies in the project
 * itself: a link the author made serves the page, but the studio never writes through it.
 */
export const STUDIO_LINKS: ProjectLinks = 'inside';

/** Whether `file` is `dir` or lies under it. */
function isUnder(file: string, dir: string): boolean {
  return file === dir || file.startsWith(dir + path.sep);
}

/**
 * The stats of the path `rel` (`/`-separated, no `..`) under `root` when the project may reach it,
 * symlinks followed: a symlink the project itself contains (a monorepo's `shared -> ../shared`)
 * is followed wherever it points, since its author made it, and what lies under its target is the
 * project's too; a symlink inside such a target may only point within the project or a target
 * reached so ({@link ProjectLinks}). Undefined when the path leaves that, or nothing is there.
 */
export function projectPathStats(root: string, rel: string, links: ProjectLinks = 'follow'): fs.Stats | undefined {
  try {
    const realRoot = fs.realpathSync(root);
    const reached = [realRoot];
    let current = realRoot;
    for (const segment of rel.split('/').filter((s) => s !== '')) {
      const next = path.join(current, segment);
      if (!fs.lstatSync(next).isSymbolicLink()) {
        current = next;
        continue;
      }
      const target = fs.realpathSync(next);
      if (leadsThroughHidden(current, fs.readlinkSync(next), target)) return undefined;
      if (links === 'follow' && isUnder(current, realRoot)) {
        if (!reached.some((dir) => isUnder(target, dir))) reached.push(target);
      } else if (!reached.some((dir) => isUnder(target, dir))) {
        return undefined;
      }
      current = target;
    }
    // A link may not lead to a dotfile either (`public.txt -> .env`): the real path (`current`, each
    // link already resolved), relative to whichever reached directory holds it, has no hidden segment.
    const base = reached.find((dir) => isUnder(current, dir));
    if (base === undefined || path.relative(base, current).split(path.sep).some((s) => s.startsWith('.'))) return undefined;
    return fs.statSync(current);
  } catch {
    return undefined;
  }
}

/**
 * Whether a link in `dir`, written as `written` and resolving to `real`, goes through a hidden
 * name on its way: any segment of its target, as written or resolved, counted from the link's
 * folder (`..` aside), so neither `e.txt -> ../secret/.env` nor `f.txt -> ../.config/f` reaches
 * what the page may never load. Hidden folders above both ends (a project under `~/.cache`) are
 * not on the way.
 */
function leadsThroughHidden(dir: string, written: string, real: string): boolean {
  const hidden = (to: string) => path.relative(dir, to).split(path.sep).some((s) => s !== '..' && s.startsWith('.'));
  return hidden(path.resolve(dir, written)) || hidden(real);
}
