import type { EditState } from '../studio-edits';
import { ApiError, postJson } from './api';
import { byId } from './dom';
import type { Studio } from './studio-state';

/** A clip of the timeline ({part, clip}) or an element of the page by its path from the root ({path}), as studio-edits.ts takes them. */
export type Target = { part: string; clip: number } | { path: Array<[string, number]> };

/** What an edit changes (studio-edits.ts, Change). */
export type Change =
  | { attributes: Record<string, string | null> }
  | { style: Record<string, string | null> }
  | { text: string }
  | { variable: { id: string; bind: 'text' | 'src' | 'color'; label?: string; default?: string } };

/**
 * The studio's side of its edits: each one is sent with the hash of its file as the studio last
 * read it, so a file changed meanwhile in an editor is never overwritten (the server answers 409,
 * shown here as a conflict); undo and redo (buttons, Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y) walk the
 * history the server keeps beside the project. The saved file reloads the studio (main.ts).
 */
export class Editor {
  private hashes: Record<string, string> = {};
  private readonly status = byId('edit-status');
  private readonly undoButton = byId<HTMLButtonElement>('undo');
  private readonly redoButton = byId<HTMLButtonElement>('redo');
  /** The edit on its way: the next waits for it, so each is sent with the hash the one before left. */
  private pending: Promise<unknown> = Promise.resolve();

  constructor(private readonly studio: Studio) {
    this.undoButton.addEventListener('click', () => void this.walk('undo'));
    this.redoButton.addEventListener('click', () => void this.walk('redo'));
    document.addEventListener('keydown', (e) => {
      const target = e.target as HTMLElement | null;
      if (!(e.ctrlKey || e.metaKey) || e.altKey || target?.closest('input, select, textarea, [contenteditable]')) return;
      const key = e.key.toLowerCase();
      if (key === 'z' || key === 'y') {
        e.preventDefault();
        void this.walk(key === 'y' || e.shiftKey ? 'redo' : 'undo');
      }
    });
    // Each composition shown: the files' hashes as read now, and what undo and redo would do.
    studio.on('composition', () => void this.read([studio.page], true));
  }

  /** Reads the hashes of `files` (the page's, and those of the compositions it mounts). */
  async read(files: string[], fresh = false): Promise<void> {
    const wanted = files.filter((f) => fresh || !(f in this.hashes));
    if (wanted.length === 0) return;
    const params = new URLSearchParams(wanted.map((f) => ['file', f]));
    const state = await fetch(`/__vidkit/studio/edits?${params}`, { cache: 'no-store' }).then((r) => (r.ok ? (r.json() as Promise<EditState>) : null));
    if (state) this.show(state);
  }

  /** Sends one edit; false (and the reason shown) when it was not written. */
  edit(file: string, target: Target, change: Change): Promise<boolean> {
    const run = async (): Promise<boolean> => {
      if (!(file in this.hashes)) await this.read([file]);
      return this.send(() => postJson<EditState>('edit', { file, hash: this.hashes[file], target, change }));
    };
    const done = this.pending.then(run, run);
    this.pending = done;
    return done;
  }

  private walk(direction: 'undo' | 'redo'): Promise<boolean> {
    const run = () => this.send(() => postJson<EditState>(direction));
    const done = this.pending.then(run, run);
    this.pending = done;
    return done;
  }

  private async send(request: () => Promise<EditState>): Promise<boolean> {
    try {
      this.show(await request());
      this.say('');
      return true;
    } catch (err) {
      this.say((err as Error).message, err instanceof ApiError && /changed on disk/.test((err as Error).message) ? 'conflict' : 'error');
      // A conflict: the file as it is now is what the studio shows once reloaded.
      void this.read(Object.keys(this.hashes), true);
      return false;
    }
  }

  private show(state: EditState): void {
    Object.assign(this.hashes, state.hashes);
    this.undoButton.disabled = state.undo === null;
    this.redoButton.disabled = state.redo === null;
    this.undoButton.title = state.undo === null ? 'Nothing to undo' : `Undo ${state.undo} (Ctrl+Z)`;
    this.redoButton.title = state.redo === null ? 'Nothing to redo' : `Redo ${state.redo} (Ctrl+Shift+Z)`;
  }

  /** A line under the top bar: why an edit was not written. */
  say(message: string, kind: 'conflict' | 'error' | 'info' = 'info'): void {
    this.status.textContent = message;
    this.status.dataset.kind = message === '' ? '' : kind;
    this.status.hidden = message === '';
  }
}

/** The decimal text of seconds as the studio writes them: to the millisecond, no trailing zeros. */
export function secondsText(seconds: number): string {
  return String(Number(seconds.toFixed(3)));
}
