import * as fs from 'node:fs';
import * as path from 'node:path';
import { VidkitError, badInput, errorMessage } from '../errors';
import { outputError } from '../render/output/output-path';
import type { BatchManifestRow, BatchRowStatus } from './batch-dispatch';

const STATUSES: readonly BatchRowStatus[] = ['started', 'would-invoke', 'failed-to-start', 'skipped', 'cancelled'];

/** Statuses of a row that names a render (its renderId, and its executionArn unless it ran direct). */
export const RENDER_STATUSES: readonly BatchRowStatus[] = ['started', 'skipped', 'cancelled'];

/** `renders.jsonl` → `renders.manifest.jsonl`, next to the batch file. */
export function manifestPathFor(batchPath: string): string {
  const parsed = path.parse(path.resolve(batchPath));
  return path.join(parsed.dir, `${parsed.name}.manifest.jsonl`);
}

/** A row as the manifest file keeps it: which run of the batch decided it, then the row. */
export type ManifestRecord<Row extends BatchRow = BatchManifestRow> = Row & {
  /** The run's start time (ISO 8601, UTC); absent from rows written before runs were recorded. */
  run?: string;
};

/** What every manifest row has: the batch line it decides (the cloud's rows and `vidkit render --batch`'s alike). */
export interface BatchRow {
  line: number;
}

/** How {@link readManifest} tells a row of its kind, and what it says a row needs. */
export interface RowShape<Row extends BatchRow> {
  is(v: Record<string, unknown>): boolean;
  needs: string;
}

/** The cloud's `render-batch` rows. */
const CLOUD_ROWS: RowShape<BatchManifestRow> = {
  is: (row) =>
    (typeof row.outputKey === 'string' || row.outputKey === null) &&
    STATUSES.includes(row.status as BatchRowStatus) &&
    (!RENDER_STATUSES.includes(row.status as BatchRowStatus) || typeof row.executionArn === 'string' || typeof row.renderId === 'string'),
  needs: 'line, outputKey, status, and executionArn or renderId when started',
};

/** How often the appended rows are forced to disk, so a power cut loses at most this much. */
const SYNC_EVERY_MS = 1000;

/**
 * Appends each row as one JSON line the moment it is decided, with a synchronous write, so a crash
 * or Ctrl-C mid-dispatch leaves a complete record of every execution that was started. The file is
 * never truncated: each run adds its rows after the earlier runs', stamped with its {@link run}.
 */
export class ManifestWriter<Row extends BatchRow = BatchManifestRow> {
  /** This run's id: its start time, ISO 8601 in UTC. */
  readonly run = new Date().toISOString();
  private readonly fd: number;
  private lastSync = Date.now();

  constructor(readonly file: string) {
    try {
      this.fd = fs.openSync(file, 'a+');
      // A row torn by a crash of an earlier run has no newline: end it, so our first row is a line of its own.
      if (!endsWithNewline(this.fd)) fs.writeSync(this.fd, '\n');
    } catch (err) {
      throw this.writeFailure(err) ?? badInput(`cannot write the batch manifest ${file}: ${errorMessage(err)}`);
    }
  }

  append(row: Row): void {
    const record: ManifestRecord<Row> = { run: this.run, ...row };
    try {
      fs.writeSync(this.fd, `${JSON.stringify(record)}\n`);
      if (Date.now() - this.lastSync >= SYNC_EVERY_MS) this.sync();
    } catch (err) {
      throw this.writeFailure(err) ?? err;
    }
  }

  close(): void {
    try {
      this.sync();
    } catch (err) {
      throw this.writeFailure(err) ?? err;
    } finally {
      fs.closeSync(this.fd);
    }
  }

  private sync(): void {
    fs.fdatasyncSync(this.fd);
    this.lastSync = Date.now();
  }

  /** A full disk, a read-only one or a refused write as exit 4 naming the manifest; undefined for any other error. */
  private writeFailure(err: unknown): VidkitError | undefined {
    const failed = outputError(err, `the batch manifest ${this.file}`);
    return failed instanceof VidkitError ? failed : undefined;
  }
}

/** True for an empty file too: there is nothing to end. */
function endsWithNewline(fd: number): boolean {
  const { size } = fs.fstatSync(fd);
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  fs.readSync(fd, last, 0, 1, size - 1);
  return last[0] === 0x0a;
}

/**
 * Every row of a manifest written by {@link ManifestWriter}, in file order (every run, oldest
 * first). A line that is not complete JSON is a row a crash cut off while writing it: it is skipped
 * and named to `onSkipped`. A JSON line that is not a row is an error naming it.
 */
export function readManifest(file: string, onSkipped?: (message: string) => void): ManifestRecord[];
export function readManifest<Row extends BatchRow>(file: string, onSkipped: ((message: string) => void) | undefined, shape: RowShape<Row>): ManifestRecord<Row>[];
export function readManifest<Row extends BatchRow>(
  file: string,
  onSkipped?: (message: string) => void,
  shape: RowShape<Row> = CLOUD_ROWS as unknown as RowShape<Row>,
): ManifestRecord<Row>[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw badInput(`cannot read the batch manifest ${file}: ${errorMessage(err)}`);
  }
  const rows: ManifestRecord<Row>[] = [];
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    const where = `${file}:${index + 1}`;
    let row: unknown;
    try {
      row = JSON.parse(raw);
    } catch {
      onSkipped?.(`${where}: skipped a torn row (not complete JSON: a run was cut off while writing it)`);
      return;
    }
    if (!isRecordOf(row, shape)) throw badInput(`${where}: not a manifest row (needs ${shape.needs})`);
    rows.push(row);
  });
  return rows;
}

/** Each batch line's latest row: a re-run's row replaces the earlier runs' for its line. In line order. */
export function latestRowPerLine<Row extends BatchRow>(rows: readonly Row[]): Row[] {
  const latest = new Map<number, Row>();
  for (const row of rows) latest.set(row.line, row);
  return [...latest.values()].sort((a, b) => a.line - b.line);
}

function isRecordOf<Row extends BatchRow>(v: unknown, shape: RowShape<Row>): v is ManifestRecord<Row> {
  if (typeof v !== 'object' || v === null) return false;
  const row = v as Record<string, unknown>;
  return Number.isInteger(row.line) && (row.run === undefined || typeof row.run === 'string') && shape.is(row);
}

export interface ManifestCounts {
  started: number;
  wouldInvoke: number;
  failedToStart: number;
  skipped: number;
}

export function countRows(rows: readonly BatchManifestRow[]): ManifestCounts {
  const count = (status: BatchRowStatus) => rows.filter((r) => r.status === status).length;
  return { started: count('started'), wouldInvoke: count('would-invoke'), failedToStart: count('failed-to-start'), skipped: count('skipped') };
}

/** The text manifest, line by line: a summary line, then one row per input line. */
export function* manifestText(rows: readonly BatchManifestRow[]): Generator<string> {
  const counts = countRows(rows);
  yield counts.wouldInvoke > 0
    ? `${counts.wouldInvoke} would-invoke, ${counts.failedToStart} failed-to-start (dry run: nothing started)`
    : `${counts.started} started, ${counts.skipped > 0 ? `${counts.skipped} skipped, ` : ''}${counts.failedToStart} failed-to-start`;
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
export function* manifestJson(rows: readonly BatchRow[]): Generator<string> {
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
