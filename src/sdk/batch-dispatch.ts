import { errorMessage } from '../errors';
import { Indexed, mapWithLimit } from './map-limit';

/**
 * A manifest row's status: started, would-invoke (dry run) or failed-to-start; also
 * skipped (a re-run found the line running or done with the same settings: the row names that
 * render) and cancelled (written by `cloudfn cancel`).
 */
export type BatchRowStatus = 'started' | 'would-invoke' | 'failed-to-start' | 'skipped' | 'cancelled';

/** One row of the batch manifest, one per non-blank input line. */
export interface BatchManifestRow {
  line: number;
  outputKey: string | null;
  status: BatchRowStatus;
  /** Null when nothing started, and for a direct render (no execution: its renderId names it). */
  executionArn: string | null;
  renderId: string | null;
  /** Why the row failed to start; absent otherwise. */
  error?: string;
  /** Digest of what decides the output (site, variables, size, format, fps, seed, epoch): a re-run compares it. */
  settings?: string;
  /** The render-batch run whose count the render's end goes to (batch-tracking.ts). */
  batchId?: string;
}

/** A parsed batch line that can be rendered. */
export interface BatchItem {
  line: number;
  outputKey: string;
  variablesJson: string;
}

/** A parsed batch line that cannot be rendered, and why. */
export interface BatchLineProblem {
  line: number;
  outputKey?: string | null;
  reason: string;
}

export interface StartedRender {
  renderId: string;
  executionArn: string | null;
  settings?: string;
  batchId?: string;
}

export interface BatchDispatchOptions<Prepared> {
  entries: Indexed<BatchItem>;
  problems: readonly BatchLineProblem[];
  /** Most StartExecution calls in flight at once: it caps starts, not chunk invocations. */
  maxConcurrent: number;
  dryRun: boolean;
  /** Validates one entry (variables, input size) without any request; throws with the reason. */
  prepare(entry: BatchItem): Prepared;
  /** A row for an entry that need not start (a re-run found it running or done), else undefined. */
  skip?(prepared: Prepared, entry: BatchItem): Promise<BatchManifestRow | undefined>;
  /** Starts one render; throws with the reason when it cannot (retries are the client's job). */
  start(prepared: Prepared, entry: BatchItem): Promise<StartedRender>;
  /** Each row as soon as it is decided, in completion order: the crash-safe record. */
  onRow(row: BatchManifestRow): void;
  /** Once aborted, no further entry is started; the rows decided so far are returned. */
  signal?: AbortSignal;
}

/**
 * Dispatches one render per entry with at most `maxConcurrent` starts in flight. A bad line or a
 * failed start becomes a failed-to-start row; every other entry goes on. Rows come back in line
 * order.
 */
export async function dispatchBatch<Prepared>(options: BatchDispatchOptions<Prepared>): Promise<BatchManifestRow[]> {
  const rows: BatchManifestRow[] = [];
  const record = (row: BatchManifestRow): void => {
    rows.push(row);
    options.onRow(row);
  };
  for (const problem of options.problems) {
    record(failedRow(problem.line, problem.outputKey ?? null, problem.reason));
  }

  await mapWithLimit(options.entries, options.maxConcurrent, async (entry) => record(await dispatchOne(options, entry)), options.signal);
  return rows.sort((a, b) => a.line - b.line);
}

async function dispatchOne<Prepared>(options: BatchDispatchOptions<Prepared>, entry: BatchItem): Promise<BatchManifestRow> {
  let prepared: Prepared;
  try {
    prepared = options.prepare(entry);
  } catch (err) {
    return failedRow(entry.line, entry.outputKey, errorMessage(err));
  }
  if (options.dryRun) {
    return { line: entry.line, outputKey: entry.outputKey, status: 'would-invoke', executionArn: null, renderId: null };
  }
  try {
    const skipped = await options.skip?.(prepared, entry);
    if (skipped) return skipped;
    const started = await options.start(prepared, entry);
    return { line: entry.line, outputKey: entry.outputKey, status: 'started', ...started };
  } catch (err) {
    return failedRow(entry.line, entry.outputKey, errorMessage(err));
  }
}

function failedRow(line: number, outputKey: string | null, reason: string): BatchManifestRow {
  return { line, outputKey, status: 'failed-to-start', executionArn: null, renderId: null, error: reason };
}
