import * as fs from 'node:fs';
import * as path from 'node:path';

/** Directories whose changes are not edits to the composition: renders, dependencies, dotfiles. */
const IGNORED = /^(?:node_modules|out)(?:[\\/]|$)|(?:^|[\\/])\./;
const SETTLE_MS = 120;

/**
 * Calls `onChange` once an edit to the project has settled: editors write a file in several
 * steps (truncate, write, rename), and one reload per save is what the author wants. Each folder
 * is watched on its own: Node's recursive watch on Linux follows the files it found, and loses
 * one that a save replaces by renaming a new file over it (as editors and the studio save), and
 * every change after that.
 */
export function watchProject(projectDir: string, onChange: (file: string) => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const watchers = new Map<string, fs.FSWatcher>();
  const changed = (file: string) => {
    if (IGNORED.test(file) || file.includes('.partial.')) return;
    clearTimeout(timer);
    timer = setTimeout(() => onChange(path.join(projectDir, file)), SETTLE_MS);
  };
  const watch = (dir: string) => {
    if (watchers.has(dir) || (dir !== '' && IGNORED.test(dir))) return;
    let watcher: fs.FSWatcher;
    try {
      watcher = fs.watch(path.join(projectDir, dir), (_event, name) => {
        const file = name ? path.join(dir, String(name)) : dir;
        changed(file);
        // A folder made (or moved in) is watched too.
        if (name && fs.statSync(path.join(projectDir, file), { throwIfNoEntry: false })?.isDirectory()) watch(file);
      });
    } catch {
      // Gone before it could be watched: nothing to reload for.
      return;
    }
    watcher.on('error', () => {
      watcher.close();
      watchers.delete(dir);
    });
    watchers.set(dir, watcher);
    let entries: fs.Dirent[] = [];
    try {
      entries = fs.readdirSync(path.join(projectDir, dir), { withFileTypes: true });
    } catch {
      // Removed meanwhile: its watcher reports that.
    }
    for (const entry of entries) if (entry.isDirectory()) watch(path.join(dir, entry.name));
  };
  watch('');
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers.values()) watcher.close();
  };
}
