import { errorMessage } from '../errors';
import type { MissingGlyphs } from '../render/capture/missing-glyphs';
import type { BatchManifestRow } from './batch-dispatch';
import { RENDER_STATUSES } from './batch-manifest';
import { mapWithLimit } from './map-limit';
import { RenderStatus, getRenderProgress } from './progress';

/** Progress reads in flight at once: DescribeExecution plus a few bucket reads each. */
const PROGRESS_READS_IN_FLIGHT = 16;

export type BatchRowState = RenderStatus | 'failed-to-start' | 'would-invoke' | 'unknown';


export interface BatchProgressRow {
  line: number;
  outputKey: string | null;
  renderId: string | null;
  state: BatchRowState;
  percent: number;
  /** Where the output is, when done. */
  output?: string;
  /** Why the render failed, failed to start, or could not be read. */
  error?: string;
  /** The render's text that no font could draw, once its chunks found it. */
  missingGlyphs?: MissingGlyphs[];
}

export interface BatchProgress {
  total: number;
  done: number;
  running: number;
  /** Failed, timed out or aborted renders, and entries that failed to start. */
  failed: number;
  /** Mean percent over every row: a row that failed to start counts as 0. */
  percent: number;
  rows: BatchProgressRow[];
}

const RUNNING: readonly BatchRowState[] = ['planning', 'rendering', 'assembling'];

/** The progress of every render a batch manifest started, read from each execution. */
export async function getBatchProgress(rows: readonly BatchManifestRow[], stateMachineArn?: string): Promise<BatchProgress> {
  const progressRows = await mapWithLimit(rows, PROGRESS_READS_IN_FLIGHT, async (row): Promise<BatchProgressRow> => {
    const base = { line: row.line, outputKey: row.outputKey, renderId: row.renderId };
    if (!RENDER_STATUSES.includes(row.status)) {
      return { ...base, state: row.status as 'failed-to-start' | 'would-invoke', percent: 0, ...(row.error ? { error: row.error } : {}) };
    }
    try {
      const p = await getRenderProgress({ executionArn: row.executionArn ?? undefined, renderId: row.renderId ?? undefined, stateMachineArn });
      return {
        ...base,
        state: p.status,
        percent: p.percent,
        ...(p.output ? { output: p.output.url } : {}),
        ...(p.error ? { error: p.error } : {}),
        ...(p.missingGlyphs ? { missingGlyphs: p.missingGlyphs } : {}),
      };
    } catch (err) {
      return { ...base, state: 'unknown', percent: 0, error: errorMessage(err) };
    }
  });
  const count = (test: (s: BatchRowState) => boolean) => progressRows.filter((r) => test(r.state)).length;
  const total = progressRows.length;
  return {
    total,
    done: count((s) => s === 'done'),
    running: count((s) => RUNNING.includes(s)),
    failed: count((s) => ['failed', 'timed-out', 'aborted', 'failed-to-start'].includes(s)),
    percent: total === 0 ? 0 : Math.floor(progressRows.reduce((sum, r) => sum + r.percent, 0) / total),
    rows: progressRows,
  };
}
