import * as fs from 'node:fs';
import * as path from 'node:path';

/** Directories whose changes are not edits to the composition: renders, dependencies, dotfiles. */
const IGNORED = /^(?:node_modules|out)(?:[\\/]|$)|(?:^|[\\/])\./;
const SETTLE_MS = 120;

/**
 * Calls `onChange` once an edit to the project has settled: editors write a file in several
 * steps (truncate, write, rename), and one reload per save is what the author wants.
 */
export function watchProject(projectDir: string, onChange: (file: string) => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const watcher = fs.watch(projectDir, { recursive: true }, (_event, name) => {
    const file = name ? String(name) : '';
    if (IGNORED.test(file) || file.includes('.partial.')) return;
    clearTimeout(timer);
    timer = setTimeout(() => onChange(path.join(projectDir, file)), SETTLE_MS);
  });
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
