import { loadComposition } from '../composition/composition';
import { readBatchFile } from '../sdk/batch-file';
import { soundtrackOf } from '../render/output/soundtrack';
import { ReuseEstimate, estimateReuse } from './reuse-plan';
import { LocalBatchOptions, plannedRows } from './local-batch';
import { WarmPool } from './warm-pool';

/** What `vidkit render --batch --estimate` prints (docs/reference/batch-estimate.md). */
export interface LocalBatchEstimate {
  /** Non-blank lines of the batch file. */
  lines: number;
  /** Lines that would fail before any frame: a malformed line, or variables that do not plan. */
  failing: Array<{ line: number; error: string }>;
  /** What segment reuse would draw; null when the batch would share nothing (`noReuse` says why). */
  reuse: ReuseEstimate | null;
  noReuse?: string;
}

export type LocalBatchEstimateOptions = Pick<
  LocalBatchOptions,
  Exclude<keyof LocalBatchOptions, 'outputDir' | 'concurrency' | 'failFast' | 'force' | 'signal' | 'onStart' | 'onRowStart' | 'onFrame' | 'onRow'>
>;

/**
 * The reuse a local batch would make, decided as the batch decides it, at the price of stepping
 * the first row's page through its frames once: none is drawn or encoded, but every read a page
 * script makes of the variables is recorded, as in the render. Writes nothing.
 */
export async function estimateLocalBatch(opts: LocalBatchEstimateOptions): Promise<LocalBatchEstimate> {
  const declarations = loadComposition(opts.projectDir, opts.composition).variables;
  const batch = await readBatchFile(opts.batchFile, { declarations, outputKeyPattern: opts.outputKeyPattern, maxBytes: opts.maxBatchBytes });
  const failing = batch.problems.map((p) => ({ line: p.line, error: p.reason }));
  const entries = Array.from({ length: batch.entries.length }, (_, i) => batch.entries.at(i)!);
  const pool = await WarmPool.open({ ...opts, size: 1 });
  try {
    const planned = plannedRows(pool, entries, opts.strictVariables, (line, error) => failing.push({ line, error }));
    failing.sort((a, b) => a.line - b.line);
    const lines = batch.entries.length + batch.problems.length;
    if (opts.format === 'gif') return { lines, failing, reuse: null, noReuse: 'a gif has one palette for the whole video: every row renders whole' };
    if (planned.length < 2) return { lines, failing, reuse: null, noReuse: 'fewer than two lines plan: there is nothing to share' };
    const reference = planned[0].planned;
    const reuse = await pool.withPage(reference, opts.onWarning, async (page) => {
      const session = await page.slot.current();
      const atLoad = await session.reach(page.totalFrames);
      for (let frame = 0; frame < page.totalFrames; frame++) await session.step(frame);
      const reach = await session.reach(page.totalFrames);
      const sound = await soundtrackOf(await session.mediaTimeline(), page.sound);
      const rows = planned.map((p) => ({ line: p.line, boot: p.planned.boot, totalFrames: p.planned.totalFrames }));
      return estimateReuse(atLoad, reach, rows, page.totalFrames, page.context.settings.fps, sound.tracks.length === 0);
    });
    return { lines, failing, reuse };
  } finally {
    await pool.close();
  }
}
