import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadComposition } from '../composition/composition';
import type { Overrides } from '../composition/variables';
import { ExitCode, VidkitError, badInput, errorMessage } from '../errors';
import type { BatchItem } from '../sdk/batch-dispatch';
import { readBatchFile } from '../sdk/batch-file';
import { ManifestWriter } from '../sdk/batch-manifest';
import { mapWithLimit } from '../sdk/map-limit';
import { DEFAULT_INPUT_LIMITS, parseCheckedVariables } from '../options/input-limits';
import { formatExtension } from '../values/formats';
import { describeMissingGlyphs } from '../render/capture/missing-glyphs';
import { prepareOutput, prepareOutputDir } from '../render/output/output-path';
import type { PlannedRender } from '../render/render-context';
import { WorkersOption, resolveBatchConcurrency } from '../render/plan/workers';
import { LocalBatchRow, completedOutputs, fileDigest, isComplete, localManifestPath, settingsDigest } from './batch-record';
import { BatchReuse } from './batch-reuse';
import type { RowReuse } from './reuse-plan';
import { PooledRender, WarmPool, WarmPoolOptions } from './warm-pool';

export interface LocalBatchOptions extends Omit<WarmPoolOptions, 'size'> {
  /** The batch file, as for `cloudfn render-batch`: JSONL, a JSON array, CSV or TSV. */
  batchFile: string;
  /** A table without an outputKey column names each row's output with its cells: `{id}.mp4`. */
  outputKeyPattern?: string;
  /** Bytes the batch file may have; default DEFAULT_MAX_BATCH_BYTES (src/values/constants.ts). */
  maxBatchBytes?: number;
  /** Where the outputKeys point into; the manifest is written here too. */
  outputDir: string;
  concurrency: WorkersOption;
  strictVariables: boolean;
  /** The first failed row stops the batch: no further row starts. */
  failFast: boolean;
  /** Renders rows again that an earlier run completed. */
  force: boolean;
  signal?: AbortSignal;
  onInfo?: (message: string) => void;
  onStart?: (plan: { renders: number; concurrency: number; manifest: string; run: string }) => void;
  /** A line's render began: its frames are known. */
  onRowStart?: (line: number, totalFrames: number) => void;
  /** One frame of the line's video was captured. */
  onFrame?: (line: number) => void;
  onRow?: (row: LocalBatchRow) => void;
}

export interface LocalBatchResult {
  /** One per non-blank line that was decided, in line order. */
  rows: LocalBatchRow[];
  manifest: string;
}

/**
 * `vidkit render --batch`: every line of the batch file rendered on a {@link WarmPool}, at most
 * `concurrency` at once. A line that cannot render is a failed row, never the batch's end; each row
 * is appended to the manifest as it is decided, and a line whose output an earlier run completed
 * with the same settings is skipped.
 */
export async function renderBatch(opts: LocalBatchOptions): Promise<LocalBatchResult> {
  const declarations = loadComposition(opts.projectDir, opts.composition).variables;
  const batch = await readBatchFile(opts.batchFile, { declarations, outputKeyPattern: opts.outputKeyPattern, maxBytes: opts.maxBatchBytes });
  if (batch.entries.length + batch.problems.length === 0) throw badInput(`${opts.batchFile} has no entries: one {"outputKey", "variables"} object per line`);
  const concurrency = Math.min(resolveBatchConcurrency(opts.concurrency), Math.max(1, batch.entries.length));
  prepareOutputDir(opts.outputDir);
  const manifestFile = localManifestPath(opts.outputDir, opts.batchFile);
  if (fs.lstatSync(manifestFile, { throwIfNoEntry: false })?.isSymbolicLink()) {
    throw badInput(`the batch manifest ${manifestFile} is a symlink: a batch writes only inside its --output-dir`);
  }
  // Outputs an earlier run of this batch wrote: vidkit's own, which a re-run may replace even inside the project.
  const recorded = completedOutputs(manifestFile, (m) => opts.onWarning?.(m));
  const completed = opts.force ? new Map<string, LocalBatchRow>() : recorded;
  // Every line's output is checked before any browser starts; a line that fails it is a failed row.
  const refused: LocalBatchRow[] = [];
  const writable: number[] = [];
  for (let i = 0; i < batch.entries.length; i++) {
    const entry = batch.entries.at(i)!;
    const problem = outputProblem(entry, opts, recorded.has(entry.outputKey)) ?? variablesProblem(entry, opts);
    if (problem === undefined) writable.push(i);
    else refused.push({ line: entry.line, outputKey: entry.outputKey, output: path.join(opts.outputDir, entry.outputKey), status: 'failed', error: problem, seconds: 0 });
  }
  const pool = await WarmPool.open({ ...opts, size: concurrency });
  const planned = plannedRows(pool, writable.map((i) => batch.entries.at(i)!), opts.strictVariables);
  const reuse = BatchReuse.create({ ...opts, pool, planned: planned.map((p) => p.planned) });
  const rows: LocalBatchRow[] = [];
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  opts.signal?.addEventListener('abort', onAbort);
  let manifest: ManifestWriter<LocalBatchRow> | undefined;
  try {
    const writer = new ManifestWriter<LocalBatchRow>(manifestFile);
    manifest = writer;
    const record = (row: LocalBatchRow) => {
      rows.push(row);
      writer.append(row);
      opts.onRow?.(row);
      if (row.status === 'failed' && opts.failFast) stop.abort();
    };
    opts.onStart?.({ renders: batch.entries.length + batch.problems.length, concurrency, manifest: manifestFile, run: writer.run });
    for (const problem of batch.problems) {
      const key = problem.outputKey ?? null;
      record({ line: problem.line, outputKey: key, output: key === null ? null : path.join(opts.outputDir, key), status: 'failed', error: problem.reason, seconds: 0 });
    }
    for (const row of refused) record(row);
    await mapWithLimit(
      { length: writable.length, at: (i) => batch.entries.at(writable[i]) },
      concurrency,
      async (entry) => {
        const row = await renderRow(pool, reuse, entry, opts, completed, stop.signal);
        if (row) record(row);
      },
      stop.signal,
    );
    if (opts.signal?.aborted) throw new VidkitError('batch interrupted', { exitCode: ExitCode.Interrupted });
    // Shared segments stay for a re-run while a row that could use them is left to render.
    const plannedLines = new Set(planned.map((p) => p.line));
    if (!stop.signal.aborted && !rows.some((r) => r.status === 'failed' && plannedLines.has(r.line))) reuse?.discard();
    const rendered = rows.filter((r) => r.status === 'rendered').length;
    opts.onInfo?.(`${rendered} video${rendered === 1 ? '' : 's'} rendered on ${pool.launchedBrowsers} browser${pool.launchedBrowsers === 1 ? '' : 's'}`);
    return { rows: rows.sort((a, b) => a.line - b.line), manifest: manifestFile };
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    manifest?.close();
    await pool.close();
  }
}

/**
 * Why a line's output cannot be written (docs/guide/batch.md: outside --output-dir through
 * a symlink, a file of the project, a directory, not writable), or undefined when it can.
 */
function outputProblem(entry: BatchItem, opts: LocalBatchOptions, ownEarlierOutput: boolean): string | undefined {
  try {
    prepareOutput(path.join(opts.outputDir, entry.outputKey), { within: opts.outputDir, projectDir: opts.projectDir, replaces: ownEarlierOutput, option: '"outputKey"' });
    return undefined;
  } catch (err) {
    if (!(err instanceof VidkitError)) throw err;
    return err.message;
  }
}

/** Why a line's variables are over the input limits, or undefined when they are within them. */
function variablesProblem(entry: BatchItem, opts: LocalBatchOptions): string | undefined {
  try {
    parseCheckedVariables(entry.variablesJson, `line ${entry.line}: "variables"`, opts.inputLimits ?? DEFAULT_INPUT_LIMITS);
    return undefined;
  } catch (err) {
    if (!(err instanceof VidkitError)) throw err;
    return err.message;
  }
}

/**
 * The plan of each entry whose variables plan, in line order: the rows {@link BatchReuse} shares
 * segments between. `onError` is told why each other entry does not plan.
 */
export function plannedRows(
  pool: WarmPool,
  entries: BatchItem[],
  strictVariables: boolean,
  onError: (line: number, message: string) => void = () => {},
): Array<{ line: number; planned: PlannedRender }> {
  const planned: Array<{ line: number; planned: PlannedRender }> = [];
  for (const entry of entries) {
    try {
      planned.push({ line: entry.line, planned: pool.plan(JSON.parse(entry.variablesJson) as Overrides, strictVariables) });
    } catch (err) {
      onError(entry.line, errorMessage(err));
    }
  }
  return planned;
}

/** One line's row; undefined when the batch stopped while it rendered (it is left for a re-run). */
async function renderRow(
  pool: WarmPool,
  reuse: BatchReuse | undefined,
  entry: BatchItem,
  opts: LocalBatchOptions,
  completed: Map<string, LocalBatchRow>,
  signal: AbortSignal,
): Promise<LocalBatchRow | undefined> {
  const started = Date.now();
  const output = path.join(opts.outputDir, entry.outputKey);
  const row = { line: entry.line, outputKey: entry.outputKey, output };
  const seconds = () => (Date.now() - started) / 1000;
  try {
    const planned = pool.plan(JSON.parse(entry.variablesJson) as Overrides, opts.strictVariables);
    for (const warning of planned.warnings) opts.onWarning?.(`line ${entry.line} (${entry.outputKey}): ${warning}`);
    const extension = formatExtension(opts.format);
    if (path.extname(output).toLowerCase() !== extension) {
      throw badInput(`"outputKey" ${JSON.stringify(entry.outputKey)} does not match --format ${opts.format}: name a ${extension} file`);
    }
    const settings = settingsDigest(planned);
    const previous = completed.get(entry.outputKey);
    if (await isComplete(previous, output, settings)) return { ...row, status: 'skipped', seconds: seconds(), settings, bytes: previous!.bytes, sha256: previous!.sha256 };
    const hooks = {
      onFrames: (frames: number) => opts.onRowStart?.(entry.line, frames),
      onFrame: () => opts.onFrame?.(entry.line),
      signal,
      onWarning: (message: string) => opts.onWarning?.(`line ${entry.line} (${entry.outputKey}): ${message}`),
    };
    const done: PooledRender & { reuse?: RowReuse } = reuse ? await reuse.render(planned, path.resolve(output), hooks) : await pool.render(planned, path.resolve(output), hooks);
    for (const m of done.missingGlyphs) opts.onWarning?.(`line ${entry.line} (${entry.outputKey}): ${describeMissingGlyphs(m)}`);
    const flagged = done.missingGlyphs.length > 0 ? { missingGlyphs: done.missingGlyphs } : {};
    const reused = done.reuse === undefined ? {} : { reuse: done.reuse };
    return { ...row, status: 'rendered', seconds: seconds(), settings, bytes: done.bytes, sha256: await fileDigest(output), ...flagged, ...reused };
  } catch (err) {
    if (signal.aborted) return undefined;
    return { ...row, status: 'failed', error: errorMessage(err), seconds: seconds() };
  }
}
