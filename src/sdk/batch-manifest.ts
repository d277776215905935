import * as fs from 'node:fs';
import * as path from 'node:path';
import { badInput, errorMessage } from '../errors';
import type { BatchManifestRow, BatchRowStatus } from './batch-dispatch';

const STATUSES: readonly BatchRowStatus[] = ['started', 'would-invoke', 'failed-to-start'];

/** `renders.jsonl` → `renders.manifest.jsonl`, next to the batch file. */
export function manifestPathFor(batchPath: string): string {
  const parsed = path.parse(path.resolve(batchPath));
  return path.join(parsed.dir, `${parsed.name}.manifest.jsonl`);
}

/**
 * Appends each row as one JSON line the moment it is decided, with a synchronous write, so a crash
 * or Ctrl-C mid-dispatch leaves a complete record of every execution that was started.
 */
export class ManifestWriter {
  private readonly fd: number;

  constructor(readonly file: string) {
    try {
      this.fd = fs.openSync(file, 'w');
    } catch (err) {
      throw badInput(`cannot write the batch manifest ${file}: ${errorMessage(err)}`);
    }
  }

  append(row: BatchManifestRow): void {
    fs.writeSync(this.fd, `${JSON.stringify(row)}\n`);
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

/** Reads a manifest written by {@link ManifestWriter}; a bad line is an error naming it. */
export function readManifest(file: string): BatchManifestRow[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw badInput(`cannot read the batch manifest ${file}: ${errorMessage(err)}`);
  }
  const rows: BatchManifestRow[] = [];
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    const where = `${file}:${index + 1}`;
    let row: unknown;
    try {
      row = JSON.parse(raw);
    } catch {
      throw badInput(`${where}: not a manifest row (invalid JSON)`);
    }
    if (!isManifestRow(row)) throw badInput(`${where}: not a manifest row (needs line, outputKey, status, and executionArn when started)`);
    rows.push(row);
  });
  return rows.sort((a, b) => a.line - b.line);
}

function isManifestRow(v: unknown): v is BatchManifestRow {
  if (typeof v !== 'object' || v === null) return false;
  const row = v as Record<string, unknown>;
  return (
    Number.isInteger(row.line) &&
    (typeof row.outputKey === 'string' || row.outputKey === null) &&
    STATUSES.includes(row.status as BatchRowStatus) &&
    (row.status !== 'started' || typeof row.executionArn === 'string')
  );
}

export interface ManifestCounts {
  started: number;
  wouldInvoke: number;
  failedToStart: number;
}

export function countRows(rows: readonly BatchManifestRow[]): ManifestCounts {
  const count = (status: BatchRowStatus) => rows.filter((r) => r.status === status).length;
  return { started: count('started'), wouldInvoke: count('would-invoke'), failedToStart: count('failed-to-start') };
}

/** The text manifest of SPEC.md 2.4, line by line: a summary line, then one row per input line. */
export function* manifestText(rows: readonly BatchManifestRow[]): Generator<string> {
  const counts = countRows(rows);
  yield counts.wouldInvoke > 0
    ? `${counts.wouldInvoke} would-invoke, ${counts.failedToStart} failed-to-start (dry run: nothing started)`
    : `${counts.started} started, ${counts.failedToStart} failed-to-start`;
  yield* columns(['line', 'outputKey', 'status', 'executionArn', 'renderId', 'reason'], rows, (r) => [
    String(r.line),
    r.outputKey ?? '-',
    r.status,
    r.executionArn ?? '-',
    r.renderId ?? '-',
    r.error ?? '',
  ]);
}

/** The `--json` manifest, line by line: a JSON array of row objects. */
export function* manifestJson(rows: readonly BatchManifestRow[]): Generator<string> {
  yield '[';
  for (let i = 0; i < rows.length; i++) yield `${JSON.stringify(rows[i])}${i < rows.length - 1 ? ',' : ''}`;
  yield ']';
}

/** Left-aligned columns, one line per item; the last column is not padded. */
export function* columns<T>(header: readonly string[], items: readonly T[], cells: (item: T) => string[]): Generator<string> {
  const widths = header.map((h) => h.length);
  for (const item of items) cells(item).forEach((cell, col) => (widths[col] = Math.max(widths[col], cell.length)));
  const line = (row: readonly string[]) => row.map((cell, col) => (col === row.length - 1 ? cell : cell.padEnd(widths[col]))).join('  ').trimEnd();
  yield line(header);
  for (const item of items) yield line(cells(item));
}

const LINES_PER_WRITE = 1000;

/** Writes lines in blocks, so a 100,000-row manifest never becomes one string in memory. */
export function writeLines(out: { write(text: string): unknown }, lines: Iterable<string>): void {
  let block: string[] = [];
  for (const l of lines) {
    block.push(l);
    if (block.length === LINES_PER_WRITE) {
      out.write(`${block.join('\n')}\n`);
      block = [];
    }
  }
  if (block.length > 0) out.write(`${block.join('\n')}\n`);
}
