import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HTMLElement, parse } from 'node-html-parser';
import writeFileAtomic from 'write-file-atomic';
import type { VariableType } from '../composition/variables';
import { lineAt } from '../composition/lint-finding';
import { VidkitError, badInput } from '../errors';
import { EditTarget, compositionRootOf, findTarget, parseTarget } from './edit-target';
import { Splice, addDeclaration, applySplices, decodeEntities, setAttributes, setStyle, setText, startTagOf } from './source-patch';
import { studioFile } from './studio-file';

/**
 * Where the studio keeps its edits for undo and redo, beside the project's files: in a dot-folder,
 * which the project server never serves, the watcher ignores and a render never reads.
 */
export const HISTORY_FILE = path.join('.vidkit', 'studio-history.json');

/** The edits kept: older ones are dropped. */
const MAX_HISTORY = 200;

/** The file changed since the studio last read it: nothing was written. The routes answer 409. */
export class EditConflict extends VidkitError {
  constructor(message: string) {
    super(message, { exitCode: 1 });
  }
}

/** What an edit changes in its element. */
export type Change =
  | { attributes: Record<string, string | null> }
  | { style: Record<string, string | null> }
  | { text: string }
  | { variable: { id: string; bind: 'text' | 'src' | 'color'; label?: string; default?: string } };

export interface EditRequest {
  file: string;
  /** The hash of the file as the studio last read it ({@link fileHash}). */
  hash: string;
  target: EditTarget;
  change: Change;
}

interface HistorySplice extends Splice {
  removed: string;
}

interface HistoryEntry {
  file: string;
  label: string;
  before: string;
  after: string;
  splices: HistorySplice[];
}

interface History {
  entries: HistoryEntry[];
  /** Entries before it are done (undo takes the one before), from it on undone (redo takes it). */
  cursor: number;
}

/** The undo and redo the studio offers, by label, and the files' hashes as they are now. */
export interface EditState {
  hashes: Record<string, string>;
  undo: string | null;
  redo: string | null;
}

export function fileHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The studio's edits of one project's files, with their history. Every call reads and writes synchronously, so two never interleave. */
export class StudioEdits {
  constructor(private readonly projectDir: string) {}

  state(files: string[]): EditState {
    const hashes: Record<string, string> = {};
    for (const file of files) hashes[file] = fileHash(fs.readFileSync(studioFile(this.projectDir, file), 'utf8'));
    const history = this.readHistory();
    return { hashes, undo: history.entries[history.cursor - 1]?.label ?? null, redo: history.entries[history.cursor]?.label ?? null };
  }

  /** Where an element the studio picked is written: its line in the file. */
  locate(file: string, target: EditTarget): { file: string; line: number } {
    const text = this.read(file);
    return { file, line: lineAt(text, findTarget(parse(text, { comment: true }), file, target).range[0]) };
  }

  /** Applies an edit when the file is as the studio last read it; an {@link EditConflict} otherwise. */
  edit(request: EditRequest): EditState {
    const text = this.read(request.file);
    if (fileHash(text) !== request.hash) {
      throw new EditConflict(`${request.file} changed on disk since the studio read it: nothing was written; the studio reloads it, then edit again`);
    }
    const doc = parse(text, { comment: true });
    const el = findTarget(doc, request.file, request.target);
    const splices = changeSplices(text, doc, el, request.change);
    const after = applySplices(text, splices);
    if (after === text) return this.state([request.file]);
    this.write(request.file, after);
    const history = this.readHistory();
    history.entries.splice(history.cursor);
    history.entries.push({ file: request.file, label: labelOf(request.change, el), before: fileHash(text), after: fileHash(after), splices: splices.map((s) => ({ ...s, removed: text.slice(s.start, s.end) })) });
    history.entries.splice(0, Math.max(0, history.entries.length - MAX_HISTORY));
    history.cursor = history.entries.length;
    this.writeHistory(history);
    return this.state([request.file]);
  }

  /** Undoes the last edit done, when its file is as that edit left it. */
  undo(): EditState {
    const history = this.readHistory();
    const entry = history.entries[history.cursor - 1];
    if (!entry) throw badInput('nothing to undo');
    const text = this.read(entry.file);
    if (fileHash(text) !== entry.after) throw new EditConflict(`${entry.file} changed on disk since the studio's edit "${entry.label}": undoing it would overwrite that, so nothing was written`);
    this.write(entry.file, applySplices(text, inverse(entry.splices)));
    history.cursor--;
    this.writeHistory(history);
    return this.state([entry.file]);
  }

  /** Does again the last edit undone, when its file is as the undo left it. */
  redo(): EditState {
    const history = this.readHistory();
    const entry = history.entries[history.cursor];
    if (!entry) throw badInput('nothing to redo');
    const text = this.read(entry.file);
    if (fileHash(text) !== entry.before) throw new EditConflict(`${entry.file} changed on disk since the studio undid "${entry.label}": redoing it would overwrite that, so nothing was written`);
    this.write(entry.file, applySplices(text, entry.splices));
    history.cursor++;
    this.writeHistory(history);
    return this.state([entry.file]);
  }

  private read(file: string): string {
    return fs.readFileSync(studioFile(this.projectDir, file), 'utf8');
  }

  private write(file: string, text: string): void {
    writeFileAtomic.sync(studioFile(this.projectDir, file), text);
  }

  private readHistory(): History {
    try {
      const history = JSON.parse(fs.readFileSync(path.join(this.projectDir, HISTORY_FILE), 'utf8')) as History;
      if (Array.isArray(history.entries) && Number.isInteger(history.cursor)) return history;
    } catch {
      // No history yet, or one that is not ours any more: the studio starts a new one.
    }
    return { entries: [], cursor: 0 };
  }

  private writeHistory(history: History): void {
    const file = path.join(this.projectDir, HISTORY_FILE);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomic.sync(file, `${JSON.stringify(history)}\n`);
  }
}

/** The splices that undo `splices` (applied to the text they produced). */
function inverse(splices: HistorySplice[]): HistorySplice[] {
  let shift = 0;
  return [...splices]
    .sort((a, b) => a.start - b.start)
    .map((s) => {
      const start = s.start + shift;
      shift += s.insert.length - (s.end - s.start);
      return { start, end: start + s.insert.length, insert: s.removed, removed: s.insert };
    });
}

/** Variable ids the studio makes: names a script, a CSS custom property and a TypeScript type can all use as they are. */
const VARIABLE_ID = /^[A-Za-z_][A-Za-z0-9_]*$/;

function changeSplices(text: string, doc: HTMLElement, el: HTMLElement, change: Change): Splice[] {
  const tag = startTagOf(text, el);
  if ('attributes' in change) return setAttributes(tag, change.attributes);
  if ('style' in change) return setStyle(tag, change.style);
  if ('text' in change) return setText(text, el, change.text);
  const { id, bind, label } = change.variable;
  if (!VARIABLE_ID.test(id)) throw badInput(`"${id}" is not a variable id the studio makes: letters, digits and _, not starting with a digit`);
  const declarers = doc.querySelectorAll('[data-composition-variables]');
  for (const d of declarers) {
    const list = safeList(decodeEntities(d.getAttribute('data-composition-variables') ?? ''));
    if (list.some((v) => v.id === id)) throw badInput(`the page already declares a variable "${id}": pick another name`);
  }
  const binding = bindingOf(el, bind, change.variable.default);
  const declaration = { id, type: binding.type, ...(label ? { label } : {}), default: binding.default };
  const html = doc.querySelector('html');
  const declarer = (html?.hasAttribute('data-composition-variables') ? html : undefined) ?? declarers[0];
  let declare: Splice[];
  if (declarer) {
    declare = addDeclaration(startTagOf(text, declarer).attributes.find((a) => a.name === 'data-composition-variables')!, declaration);
  } else {
    const root = compositionRootOf(doc)!;
    declare = setAttributes(startTagOf(text, root), { 'data-composition-variables': JSON.stringify([declaration]) });
  }
  return [...declare, ...(bind === 'color' ? setStyle(tag, { color: `var(--${id})` }) : setAttributes(tag, { [`data-var-${bind}`]: id }))];
}

/** The declared type and default of a variable made from an element's text, source or colour. */
function bindingOf(el: HTMLElement, bind: 'text' | 'src' | 'color', colour: string | undefined): { type: VariableType; default: string } {
  if (bind === 'text') {
    if (el.childNodes.some((n) => n.nodeType === 1)) throw badInput(`<${el.rawTagName.toLowerCase()}> holds other elements: pick the element that holds the text`);
    return { type: 'string', default: el.text.trim() };
  }
  if (bind === 'src') {
    const tag = el.rawTagName.toLowerCase();
    if (!['img', 'video', 'audio', 'source'].includes(tag)) throw badInput(`<${tag}> has no src to make a variable of: pick an image, a video or an audio`);
    return { type: tag === 'img' ? 'image' : 'string', default: el.getAttribute('src') ?? '' };
  }
  if (typeof colour !== 'string' || !/^#[0-9a-f]{6}$/i.test(colour)) throw badInput('a colour variable needs its default as #rrggbb');
  return { type: 'color', default: colour.toLowerCase() };
}

function safeList(raw: string): Array<{ id?: unknown }> {
  try {
    const list = JSON.parse(raw) as unknown;
    return Array.isArray(list) ? (list as Array<{ id?: unknown }>) : [];
  } catch {
    return [];
  }
}

/** How the studio names an edit in its undo and redo buttons. */
function labelOf(change: Change, el: HTMLElement): string {
  const id = el.getAttribute('id');
  const name = id ? `#${id}` : `<${el.rawTagName.toLowerCase()}>`;
  if ('attributes' in change) return `${Object.keys(change.attributes).join(', ')} of ${name}`;
  if ('style' in change) return `${Object.keys(change.style).join(', ')} of ${name}`;
  if ('text' in change) return `text of ${name}`;
  return `variable ${change.variable.id} from ${name}`;
}

/** Parses an edit request from a request body. */
export function parseEditRequest(value: unknown): EditRequest {
  const b = (value ?? {}) as Record<string, unknown>;
  if (typeof b.file !== 'string' || b.file === '') throw badInput('"file" must name the project file to edit');
  if (typeof b.hash !== 'string') throw badInput('"hash" must be the file\'s hash as the studio last read it');
  return { file: b.file, hash: b.hash, target: parseTarget(b.target), change: parseChange(b.change) };
}

function parseChange(value: unknown): Change {
  const c = (value ?? {}) as Record<string, unknown>;
  const values = (v: unknown): Record<string, string | null> | null =>
    v !== null && typeof v === 'object' && Object.values(v).every((x) => x === null || typeof x === 'string') ? (v as Record<string, string | null>) : null;
  if ('attributes' in c && values(c.attributes)) return { attributes: values(c.attributes)! };
  if ('style' in c && values(c.style)) return { style: values(c.style)! };
  if (typeof c.text === 'string') return { text: c.text };
  const v = c.variable as Record<string, unknown> | undefined;
  if (v && typeof v.id === 'string' && (v.bind === 'text' || v.bind === 'src' || v.bind === 'color')) {
    return {
      variable: { id: v.id, bind: v.bind, ...(typeof v.label === 'string' && v.label !== '' ? { label: v.label } : {}), ...(typeof v.default === 'string' ? { default: v.default } : {}) },
    };
  }
  throw badInput(`"change" must be {attributes}, {style}, {text} or {variable: {id, bind: text | src | color}}`);
}
