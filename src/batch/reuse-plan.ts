import { differingIds } from '../composition/variables';
import type { PageReach } from '../runtime/protocol';
import type { RuntimeBoot } from '../runtime/runtime';
import type { ChunkRange } from '../render/capture/chunk-renderer';
import { cellGrid, framesOf } from '../render/plan/cell-grid';
import type { Rational } from '../values/fps';

/** What a row of a batch reuses of the batch's shared segments (docs/reference/batch-manifest.md). */
export interface RowReuse {
  /** Segments the row's video is joined from. */
  segments: number;
  /** Of those, rendered once for the batch and shared. */
  reusedSegments: number;
  /** Frames drawn for this row alone. */
  framesRendered: number;
  /** Frames taken from shared segments. */
  framesReused: number;
  /** Why the row was rendered whole; absent when it reused what it could. */
  whole?: string;
  /** How the row's sound was made. */
  audio?: RowAudio;
}

/**
 * `once`: the batch's soundtrack, mixed once into its work folder and muxed into every row that
 * reuses; `row`: mixed for this row alone, `why` says what made its sound its own; `none`: the
 * page plays nothing audible.
 */
export interface RowAudio {
  mixed: 'once' | 'row' | 'none';
  why?: string;
}

/** The sound of a row that renders whole, for `why`: its page is its own, so is its mix. */
export function wholeRowAudio(why: string): RowAudio {
  return { mixed: 'row', why: `the row renders whole: ${why}` };
}

/** The part of a boot that a row's variables decide. */
type Values = Pick<RuntimeBoot, 'variables' | 'overrides'>;

/**
 * The variables whose value, or whether it was overridden, differs between `row` and
 * `reference`: what can make the row's frames differ from the reference's.
 */
export function differingVariables(reference: Values, row: Values): string[] {
  const changed = new Set([...differingIds(reference.variables, row.variables), ...differingIds(reference.overrides, row.overrides)]);
  const ids = new Set([...Object.keys(reference.variables), ...Object.keys(row.variables), ...Object.keys(reference.overrides), ...Object.keys(row.overrides)]);
  return [...ids].filter((id) => changed.has(id));
}

/** Which of `segments` a row renders itself (`own`), or why it renders the whole video. */
export function rowSegments(reach: PageReach, differing: readonly string[], segments: readonly ChunkRange[]): { own: Set<number> } | { whole: string } {
  const own = new Set<number>();
  for (const id of differing) {
    const frames = framesOf(reach, id);
    if (typeof frames === 'string') return { whole: frames };
    for (const s of segments) {
      if (frames.some(([start, end]) => start < s.endFrame && end > s.startFrame)) own.add(s.index);
    }
  }
  return { own };
}

/** One row of a {@link ReuseEstimate}: what it would draw itself and take from the shared segments. */
export interface RowReuseEstimate {
  line: number;
  framesRendered: number;
  framesReused: number;
  /** Why it would render whole. */
  whole?: string;
  /** As the manifest's (`RowReuse.audio`). */
  audio: RowAudio;
}

/** What a batch would draw with segment reuse, decided as the batch decides it (docs/reference/batch-estimate.md). */
export interface ReuseEstimate {
  totalFrames: number;
  /** Segments every row would be joined from. */
  segments: number;
  rows: RowReuseEstimate[];
  /** Frames the batch would draw: the reference's video once (the shared segments), and each row's own. */
  framesDrawn: number;
  /** Frames drawing every row's whole video would take. */
  framesAlone: number;
}

/**
 * What each of `rows` (the first is the reference) would draw, from what the variables reach in
 * the reference's page: `atLoad` once it loaded (where the batch cuts its segments: the render's
 * cells) and `reach` after its last frame (what decides each row). A row of another length renders
 * whole.
 */
export function estimateReuse(
  atLoad: PageReach,
  reach: PageReach,
  rows: ReadonlyArray<{ line: number; boot: Values; totalFrames?: number }>,
  totalFrames: number,
  fps: Rational,
  /** The reference's page plays nothing audible: the rows that reuse would have no sound to share. */
  silent = false,
): ReuseEstimate {
  const reference = rows[0].boot;
  const segments = cellGrid(atLoad, reference, totalFrames, fps);
  const estimated = rows.map((row): RowReuseEstimate => {
    const whole = (why: string) => ({ line: row.line, framesRendered: totalFrames, framesReused: 0, whole: why, audio: wholeRowAudio(why) });
    if (row.totalFrames !== undefined && row.totalFrames !== totalFrames) return whole('its length differs from the first row\'s');
    const decision = rowSegments(reach, differingVariables(reference, row.boot), segments);
    if ('whole' in decision) return whole(decision.whole);
    const own = segments.filter((s) => decision.own.has(s.index)).reduce((n, s) => n + s.endFrame - s.startFrame, 0);
    return { line: row.line, framesRendered: own, framesReused: totalFrames - own, audio: { mixed: silent ? 'none' : 'once' } };
  });
  return {
    totalFrames,
    segments: segments.length,
    rows: estimated,
    framesDrawn: totalFrames + estimated.reduce((n, r) => n + r.framesRendered, 0),
    framesAlone: rows.length * totalFrames,
  };
}
