import type { Writable } from 'node:stream';
import { ExitCode, badInput } from '../errors';
import { RenderOptionName, flagOf } from '../options/registry';
import type { LocalBatchRow } from '../batch/batch-record';
import type { LocalBatchEstimate, LocalBatchEstimateOptions } from '../batch/batch-estimate';
import { LocalBatchOptions, renderBatch } from '../batch/local-batch';
import { columns, manifestJson, writeLines } from '../sdk/batch-manifest';
import { batchProgress } from './progress';
import { exitOnTermination } from './termination';

export interface BatchCommandIo {
  stdout: { write(text: string): unknown };
  stderr: Writable;
  log(message: string): void;
  warn(message: string): void;
  json: boolean;
}

/** Why each option of `vidkit render` that is about one video does not apply to a batch. */
const SINGLE_RENDER_OPTIONS: Partial<Record<RenderOptionName, string>> = {
  output: `each line's "outputKey" names its output under ${flagOf('outputDir')}`,
  variables: 'each line carries its own "variables" object',
  variablesFile: 'each line carries its own "variables" object',
  docker: 'a batch renders on this machine',
};

/** Refuses the options of `given` that are set and name one video (see {@link SINGLE_RENDER_OPTIONS}). */
export function refuseSingleRenderOptions(given: Partial<Record<RenderOptionName, unknown>>): void {
  for (const [name, why] of Object.entries(SINGLE_RENDER_OPTIONS) as [RenderOptionName, string][]) {
    const value = given[name];
    if (value !== undefined && value !== false) throw badInput(`${flagOf(name)} does not apply to ${flagOf('batch')}: ${why}`);
  }
}

/**
 * `vidkit render --batch`: runs the batch, prints its manifest (text or `--json`) and exits 0 when
 * every row rendered or was skipped, 1 when any failed. Ctrl-C kills the browsers, removes partial
 * outputs, prints the rows decided so far and exits 130; the manifest file already holds them.
 */
export async function runRenderBatch(io: BatchCommandIo, opts: Omit<LocalBatchOptions, 'onStart' | 'onFrame' | 'onRow' | 'onWarning' | 'onInfo'>): Promise<number> {
  const progress = batchProgress(io.stderr);
  const decided: LocalBatchRow[] = [];
  const print = (rows: LocalBatchRow[]) => writeLines(io.stdout, io.json ? manifestJson(rows.map(publicRow)) : manifestText(rows));
  const stopHandling = exitOnTermination(io.stderr, () => {
    progress.stop();
    print(decided.sort((a, b) => a.line - b.line));
  });
  try {
    const { rows } = await renderBatch({
      ...opts,
      onWarning: (m) => io.warn(m),
      onInfo: (m) => io.log(m),
      onStart: ({ renders, concurrency, manifest, run }) => {
        io.log(`manifest: ${manifest} (run ${run}); ${renders} lines, ${concurrency} at once`);
        progress.start(renders);
      },
      onFrame: () => progress.frame(),
      onRow: (row) => {
        decided.push(row);
        progress.render();
      },
    });
    progress.stop();
    print(rows);
    return rows.some((r) => r.status === 'failed') ? ExitCode.RenderFailed : ExitCode.Ok;
  } finally {
    progress.stop();
    stopHandling();
  }
}

/**
 * `vidkit render --batch --estimate`: what segment reuse would draw for each line, printed as
 * text or `--json` (docs/reference/batch-estimate.md); renders and writes nothing, exits 0.
 */
export async function runBatchEstimate(io: BatchCommandIo, opts: LocalBatchEstimateOptions): Promise<number> {
  const { estimateLocalBatch } = await import('../batch/batch-estimate');
  const estimate = await estimateLocalBatch({ ...opts, onWarning: (m) => io.warn(m), onInfo: (m) => io.log(m) });
  if (io.json) io.stdout.write(`${JSON.stringify(estimate)}\n`);
  else writeLines(io.stdout, estimateText(estimate));
  return ExitCode.Ok;
}

function* estimateText({ lines, failing, reuse, noReuse }: LocalBatchEstimate): Generator<string> {
  const fails = failing.length === 0 ? '' : `; ${failing.length} would fail`;
  if (reuse === null) {
    yield `Estimate: ${lines} line${lines === 1 ? '' : 's'}${fails}; no reuse: ${noReuse}`;
  } else {
    const { totalFrames, framesDrawn, framesAlone, segments } = reuse;
    const ratio = (framesDrawn / framesAlone).toFixed(2);
    yield `Estimate: ${lines} line${lines === 1 ? '' : 's'} of ${totalFrames} frames${fails}; with reuse the batch draws ${framesDrawn} frames, ${ratio}x the ${framesAlone} of rendering each line alone (${segments} segment${segments === 1 ? '' : 's'})`;
  }
  const rows = [
    ...(reuse?.rows ?? []).map((r) => ({ line: r.line, cells: [String(r.framesRendered), String(r.framesReused), r.audio.mixed, r.whole ?? ''] })),
    ...failing.map((f) => ({ line: f.line, cells: ['-', '-', '-', `fails: ${f.error}`] })),
  ].sort((a, b) => a.line - b.line);
  if (rows.length > 0) yield* columns(['line', 'draws', 'reuses', 'sound', 'why'], rows, (r) => [String(r.line), ...r.cells]);
}

/** What stdout shows of a row: the manifest file's row without its resume bookkeeping. */
function publicRow({ line, outputKey, output, status, error, seconds, missingGlyphs, reuse }: LocalBatchRow) {
  return {
    line,
    outputKey,
    output,
    status,
    ...(error === undefined ? {} : { error }),
    seconds,
    ...(missingGlyphs === undefined ? {} : { missingGlyphs }),
    ...(reuse === undefined ? {} : { reuse }),
  };
}

/** The reason column: why a row failed, or which characters of a rendered one no font could draw. */
function reason(row: LocalBatchRow): string {
  if (row.error !== undefined) return row.error;
  if (!row.missingGlyphs) return '';
  return `no font has ${row.missingGlyphs.map((m) => `${m.characters.join('')} (<${m.element}>)`).join(', ')}`;
}

function* manifestText(rows: readonly LocalBatchRow[]): Generator<string> {
  const count = (status: LocalBatchRow['status']) => rows.filter((r) => r.status === status).length;
  yield `${count('rendered')} rendered, ${count('skipped')} skipped, ${count('failed')} failed`;
  yield* columns(['line', 'output', 'status', 'seconds', 'reason'], rows, (r) => [String(r.line), r.output ?? '-', r.status, r.seconds.toFixed(1), reason(r)]);
}
