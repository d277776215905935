import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RowShape, readManifest } from '../sdk/batch-manifest';
import type { MissingGlyphs } from '../render/capture/missing-glyphs';
import type { PlannedRender } from '../render/render-context';
import type { RowReuse } from './reuse-plan';

/** What became of one line of a local batch (docs/guide/batch.md). */
export type LocalBatchStatus = 'rendered' | 'skipped' | 'failed';

/** One row of a local batch's manifest: one per non-blank line of the batch file. */
export interface LocalBatchRow {
  line: number;
  /** The line's `outputKey`, relative to the output directory; null when the line has none usable. */
  outputKey: string | null;
  /** Where the video is (or would have been) written. */
  output: string | null;
  status: LocalBatchStatus;
  /** Why the row failed; absent otherwise. */
  error?: string;
  /** Seconds the row took, planning included. */
  seconds: number;
  /** Digest of everything that decides the output's frames and encoding ({@link settingsDigest}). */
  settings?: string;
  /** The output's size once complete. */
  bytes?: number;
  /** Rendered with text that no font could draw: each element and its characters (docs/explanation/fonts.md). */
  missingGlyphs?: MissingGlyphs[];
  /** SHA-256 of the output's bytes once complete (hex): a re-run skips the row only while the file still has them. */
  sha256?: string;
  /** What the rendered row took from the segments the batch shares (docs/explanation/batch-reuse.md). */
  reuse?: RowReuse;
}

const STATUSES: readonly LocalBatchStatus[] = ['rendered', 'skipped', 'failed'];

export const LOCAL_ROWS: RowShape<LocalBatchRow> = {
  is: (row) =>
    (typeof row.outputKey === 'string' || row.outputKey === null) &&
    STATUSES.includes(row.status as LocalBatchStatus) &&
    typeof row.seconds === 'number' &&
    (row.status === 'failed' || (typeof row.settings === 'string' && Number.isSafeInteger(row.bytes))),
  needs: 'line, outputKey, status, seconds, and settings and bytes unless failed',
};

/** `out/` + `viewers.jsonl` → `out/viewers.manifest.jsonl`: the record lives beside the videos it describes. */
export function localManifestPath(outputDir: string, batchFile: string): string {
  return path.join(outputDir, `${path.parse(batchFile).name}.manifest.jsonl`);
}

/**
 * A digest of what decides a render's output: the page, the resolved variables (defaults
 * included, so an edited default re-renders), seed, epoch, size, frame rate and encoder settings.
 */
export function settingsDigest(planned: PlannedRender): string {
  const { composition, settings, boot } = planned;
  const decided = {
    page: path.relative(composition.projectDir, composition.entryFile),
    settings,
    variables: boot.variables,
    seed: boot.seed,
    epochMs: boot.epochMs,
    transparent: planned.transparent,
  };
  return createHash('sha256').update(JSON.stringify(decided)).digest('hex').slice(0, 32);
}

/**
 * The outputs an earlier run of the batch completed, by outputKey: each key's latest row, when it
 * was rendered or skipped. An absent manifest means nothing was completed.
 */
export function completedOutputs(manifest: string, onSkipped: (message: string) => void): Map<string, LocalBatchRow> {
  if (!fs.existsSync(manifest)) return new Map();
  const byKey = new Map<string, LocalBatchRow>();
  // Rows are appended as decided, so file order is time order: a key's last row is its latest.
  for (const row of readManifest(manifest, onSkipped, LOCAL_ROWS)) {
    if (row.outputKey === null) continue;
    if (row.status === 'failed') byKey.delete(row.outputKey);
    else byKey.set(row.outputKey, row);
  }
  return byKey;
}

/**
 * Whether `previous` recorded `output` complete with these settings, and the file is still that
 * one: the same size and the same SHA-256 as when it was written. A row recorded without a digest
 * (by an earlier vidkit) is rendered again.
 */
export async function isComplete(previous: LocalBatchRow | undefined, output: string, settings: string): Promise<boolean> {
  if (!previous || previous.settings !== settings || previous.sha256 === undefined) return false;
  try {
    if (fs.statSync(output).size !== previous.bytes) return false;
    return (await fileDigest(output)) === previous.sha256;
  } catch {
    return false;
  }
}

/** SHA-256 of a file's bytes (hex), read as a stream. */
export async function fileDigest(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
