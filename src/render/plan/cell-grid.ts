import type { PageReach } from '../../runtime/protocol';
import type { ChunkRange } from '../capture/chunk-renderer';
import type { Rational } from '../../values/fps';
import type { RuntimeBoot } from '../../runtime/runtime';

/** The frames variable `id` may change, as [start, end) runs; a string says why they cannot be bounded. */
export function framesOf(reach: PageReach, id: string): Array<[number, number]> | string {
  if (reach.whole !== null) return reach.whole;
  if (reach.reads.includes('*')) return 'a page script read the render configuration, which holds every variable';
  if (reach.reads.includes('*overrides')) return 'a page script read window.__hfVariables, which tells which variables a row overrides';
  if (reach.reads.includes(id)) return `a page script read the variable "${id}"`;
  if (reach.css.includes('*')) return 'a style sheet could not be read';
  if (reach.css.includes(id)) return `a style uses the variable "${id}" through its custom property`;
  const bindings = reach.bindings.filter((b) => b.id === id);
  if (bindings.length > 0 && reach.unbounded !== null) return reach.unbounded;
  const runs: Array<[number, number]> = [];
  for (const b of bindings) {
    if (b.frames === null) return b.why ?? `${b.element} cannot be bounded`;
    runs.push(...b.frames);
  }
  return runs;
}

/**
 * [0, totalFrames) cut wherever the frames one of `ids` may change begin or end, and at every
 * multiple of `step` when given. Variables that cannot be bounded cut nothing.
 */
export function cutFrames(reach: PageReach, ids: readonly string[], totalFrames: number, step?: number): ChunkRange[] {
  const cuts = new Set([0, totalFrames]);
  if (step) for (let frame = step; frame < totalFrames; frame += step) cuts.add(frame);
  for (const id of ids) {
    const frames = framesOf(reach, id);
    if (typeof frames === 'string') continue;
    for (const [start, end] of frames) {
      if (start > 0 && start < totalFrames) cuts.add(start);
      if (end > 0 && end < totalFrames) cuts.add(end);
    }
  }
  const sorted = [...cuts].sort((a, b) => a - b);
  return sorted.slice(1).map((end, index) => ({ index, startFrame: sorted[index], endFrame: end }));
}

/** Every variable `boot` holds a value for or overrides: the composition's, whatever a row sets. */
export function variablesOf(boot: Pick<RuntimeBoot, 'variables' | 'overrides'>): string[] {
  return [...new Set([...Object.keys(boot.variables), ...Object.keys(boot.overrides)])].sort();
}

/** Seconds between a render's fixed cell boundaries: a common keyframe interval. */
export const CELL_SECONDS = 2;
/** No fixed cell is shorter: each cell starts with a keyframe, and a batch row redraws whole cells. */
export const MIN_CELL_FRAMES = 15;

/**
 * The cells of a render (docs/explanation/batch-reuse.md): the ranges each encoded by an encoder
 * of its own, taking its frames in order whichever workers drew them (output/cell-sink.ts), so that
 * a frame's encoding depends only on its cell's frames, never on the worker count or where a
 * worker's range began. The boundaries depend on the composition alone: every
 * {@link CELL_SECONDS} (an eighth of a short render, at least {@link MIN_CELL_FRAMES} frames), and
 * wherever the frames one of the variables `boot` holds (all of them, not only those a batch
 * varies) reaches begin or end, so a batch's rows share whole cells with each other and with their
 * lone renders.
 */
export function cellGrid(reach: PageReach, boot: Pick<RuntimeBoot, 'variables' | 'overrides'>, totalFrames: number, fps: Rational): ChunkRange[] {
  const step = Math.max(MIN_CELL_FRAMES, Math.min(Math.round((CELL_SECONDS * fps.num) / fps.den), Math.ceil(totalFrames / 8)));
  return cutFrames(reach, variablesOf(boot), totalFrames, step);
}
