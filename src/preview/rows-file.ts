import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { loadComposition } from '../composition/composition';
import type { DeclarationSet, Overrides } from '../composition/variables';
import { badInput } from '../errors';
import { STUDIO_LINKS, projectFile } from '../values/project-files';
import { readBatchFile } from '../sdk/batch-file';
import { rowsTable } from './rows-table';

/** One render of a rows file: its output and its variables (a batch entry, docs/guide/batch.md). */
export interface Row {
  outputKey: string;
  variables: Overrides;
}

/** A line the batch parser refuses, with its reason. */
export interface RowProblem {
  line: number;
  reason: string;
}

/** A row as read from the file: with the line it is on, which a batch's manifest names it by. */
export interface FileRow extends Row {
  line: number;
  /**
   * Why the batch parser refuses the row's outputKey (a `..` segment, a duplicate): the line is a
   * whole row otherwise, shown so that its key can be fixed and the file saved.
   */
  refused?: string;
}

export interface RowsFile {
  /** A path in the project. */
  file: string;
  rows: FileRow[];
  /**
   * Lines that cannot render and are no row (a line refused for its key only is one: see
   * {@link FileRow.refused}). While there are any, saving would lose them, so the file is not saved.
   */
  problems: RowProblem[];
}

/** The batch files the preview opens and writes: the batch parser's formats, told by the name. */
export const ROWS_EXTENSIONS = ['.jsonl', '.csv', '.tsv'];

/** The tables among them, by their delimiter. */
const TABLE_DELIMITERS: Record<string, ',' | '\t'> = { '.csv': ',', '.tsv': '\t' };

/** Folders never searched for rows files: dependencies and renders. */
const SKIPPED = new Set(['node_modules', 'out']);

/** The project's rows files, by path, dotfiles and dot-folders left out. */
export function listRowsFiles(projectDir: string, under = ''): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(path.join(projectDir, under), { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
    const rel = under === '' ? entry.name : `${under}/${entry.name}`;
    if (entry.isDirectory()) found.push(...listRowsFiles(projectDir, rel));
    else if (entry.isFile() && ROWS_EXTENSIONS.includes(path.extname(entry.name).toLowerCase())) found.push(rel);
  }
  return found.sort();
}

/**
 * Reads a rows file of the project with the batch parser that `vidkit render --batch` and
 * `vidkit cloudfn render-batch` use (the native one), so the table shows what a batch renders; a
 * table's cells are typed by the declarations of `composition`, the page its rows render.
 */
export async function readRowsFile(projectDir: string, file: string, composition: string): Promise<RowsFile> {
  const found = existingRowsFile(projectDir, file);
  const batch = await readBatchFile(found, { declarations: tableDeclarations(projectDir, file, composition) });
  const rows: FileRow[] = [];
  for (let i = 0; i < batch.entries.length; i++) {
    const entry = batch.entries.at(i)!;
    rows.push({ line: entry.line, outputKey: entry.outputKey, variables: JSON.parse(entry.variablesJson) as Overrides });
  }
  const problems: RowProblem[] = [];
  const lineOf = tableDelimiter(file) === undefined ? jsonLines(found) : () => undefined;
  for (const p of batch.problems) {
    const row = refusedRow(lineOf(p.line));
    if (row) rows.push({ ...row, line: p.line, refused: p.reason });
    else problems.push({ line: p.line, reason: p.reason });
  }
  rows.sort((a, b) => a.line - b.line);
  return { file, rows, problems };
}

/** The text of each line of a JSONL file, by its 1-based number as the batch parser counts them. */
function jsonLines(found: string): (line: number) => string | undefined {
  const lines = fs.readFileSync(found, 'utf8').replace(/^\uFEFF/, '').split('\n');
  return (line) => lines[line - 1];
}

/** A JSONL line the batch parser refused although it is a whole row: its key is the one refused. */
function refusedRow(text: string | undefined): Row | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
  const { outputKey, variables } = (value ?? {}) as Partial<Row>;
  if (typeof outputKey !== 'string' || typeof variables !== 'object' || variables === null || Array.isArray(variables)) return undefined;
  return { outputKey, variables };
}

/**
 * Writes the rows over the file (under a temporary name, then renamed), then reads it back as a
 * batch would: JSONL, or a table with a column per variable of `composition`. Rows the batch
 * parser would refuse (a `..` in an outputKey, a key used twice) are refused first with its
 * reason, and nothing is written.
 */
export async function writeRowsFile(projectDir: string, file: string, rows: Row[], composition: string): Promise<RowsFile> {
  const target = projectFile(projectDir, file, STUDIO_LINKS) ?? newRowsFile(projectDir, file);
  const previous = fs.existsSync(target) ? await readRowsFile(projectDir, file, composition) : undefined;
  if (previous && previous.problems.length > 0) {
    throw badInput(`${file} has lines the batch parser refuses (line ${previous.problems[0].line}: ${previous.problems[0].reason}): fix them in an editor first, saving here would drop them`);
  }
  const text = rowsText(projectDir, file, rows, composition);
  await checkRowsText(text, file, rows, tableDeclarations(projectDir, file, composition));
  await writeFileAtomic(target, text);
  return readRowsFile(projectDir, file, composition);
}

/**
 * Reads `text` as the batch parser reads the file it is meant for, from a copy under TMPDIR; bad
 * input naming the first row it refuses, with the parser's reason.
 */
async function checkRowsText(text: string, file: string, rows: Row[], declarations: DeclarationSet | undefined): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-rows-'));
  try {
    const copy = path.join(dir, path.posix.basename(file));
    fs.writeFileSync(copy, text);
    const batch = await readBatchFile(copy, { declarations });
    const refused = batch.problems[0];
    if (refused === undefined) return;
    // Every row is one entry or one refused line, in order: the rows before it are those on earlier lines.
    let index = batch.problems.filter((p) => p.line < refused.line).length;
    for (let i = 0; i < batch.entries.length; i++) if (batch.entries.at(i)!.line < refused.line) index += 1;
    throw badInput(`${file} is not saved: row ${index + 1} (${rows[index]?.outputKey ?? ''}): ${refused.reason}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts a rows file without rows (a table: its header); bad input when it exists or is not a rows file in the project. */
export async function createRowsFile(projectDir: string, file: string, composition: string): Promise<RowsFile> {
  const target = newRowsFile(projectDir, file);
  if (fs.existsSync(target)) throw badInput(`${file} exists already: open it instead`);
  await writeFileAtomic(target, rowsText(projectDir, file, [], composition));
  return { file, rows: [], problems: [] };
}

function rowsText(projectDir: string, file: string, rows: Row[], composition: string): string {
  const delimiter = tableDelimiter(file);
  if (delimiter !== undefined) return rowsTable(rows, tableDeclarations(projectDir, file, composition)!, delimiter);
  return rows.map((r) => `${JSON.stringify({ outputKey: r.outputKey, variables: r.variables })}\n`).join('');
}

/**
 * The declarations a table's cells are typed by; none for JSONL, whose values carry their types,
 * so a composition that does not parse while its author edits it leaves JSONL rows readable.
 */
function tableDeclarations(projectDir: string, file: string, composition: string): DeclarationSet | undefined {
  return tableDelimiter(file) === undefined ? undefined : loadComposition(projectDir, composition).variables;
}

function tableDelimiter(file: string): ',' | '\t' | undefined {
  return TABLE_DELIMITERS[path.extname(file).toLowerCase()];
}

/** Checks a rows row sent by the page: an outputKey and an object of variables. */
export function parseRows(value: unknown): Row[] {
  if (!Array.isArray(value)) throw badInput('"rows" must be a list of {"outputKey", "variables"}');
  return value.map((r, i) => {
    const row = r as Partial<Row> | null;
    if (typeof row?.outputKey !== 'string') throw badInput(`row ${i + 1}: "outputKey" must be a string`);
    if (typeof row.variables !== 'object' || row.variables === null || Array.isArray(row.variables)) throw badInput(`row ${i + 1}: "variables" must be an object`);
    return { outputKey: row.outputKey, variables: row.variables };
  });
}

function existingRowsFile(projectDir: string, file: string): string {
  checkRowsName(file);
  const found = projectFile(projectDir, file, STUDIO_LINKS);
  if (found === undefined) throw badInput(`${file}: no such file in the project`);
  return found;
}

/** Where a rows file that may not exist yet goes: in the project, its folder already there. */
function newRowsFile(projectDir: string, file: string): string {
  checkRowsName(file);
  const folder = path.join(projectDir, path.posix.dirname(file));
  let real: string;
  try {
    real = fs.realpathSync(folder);
  } catch {
    throw badInput(`${file}: its folder is not in the project`);
  }
  const root = fs.realpathSync(projectDir);
  if ((real !== root && !real.startsWith(root + path.sep)) || !fs.statSync(real).isDirectory()) throw badInput(`${file}: its folder is not in the project`);
  const target = path.join(real, path.posix.basename(file));
  // A symlink in the project's place may lead anywhere: it is not written through.
  if (fs.lstatSync(target, { throwIfNoEntry: false })?.isSymbolicLink()) throw badInput(`${file} is a symlink: the preview writes files of the project only`);
  return target;
}

function checkRowsName(file: string): void {
  if (!ROWS_EXTENSIONS.includes(path.extname(file).toLowerCase())) throw badInput(`${file}: a rows file is ${ROWS_EXTENSIONS.join(', ')}`);
  if (file.split('/').some((s) => s === '' || s.startsWith('.'))) throw badInput(`${file}: give a path in the project, without dotfiles or ..`);
}
