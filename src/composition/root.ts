/**
 * The composition root as HyperFrames picks it, in order: the composition marked
 * `data-root="true"`, else the first element with `data-composition-id` (the topmost). No Node
 * imports: the player reads the root with these too.
 */
export const ROOT_SELECTORS = ['[data-composition-id][data-root="true"]', '[data-composition-id]'] as const;

/** How far from a whole frame a duration × fps may fall and still count as that frame. */
const WHOLE_FRAME_EPSILON = 1e-3;

/**
 * Frames in a composition of `durationSeconds` at `fps`, as HyperFrames counts them: a length that
 * is a whole number of frames (within a thousandth of a frame, for decimal fractions such as
 * 0.1 × 30) gives that number; any other is rounded up, so the last part-frame is shown
 * (10.24 s at 30 fps: 308 frames).
 */
export function framesForDuration(durationSeconds: number, fps: number): number {
  const exact = durationSeconds * fps;
  const nearest = Math.round(exact);
  return Math.abs(exact - nearest) <= WHOLE_FRAME_EPSILON ? nearest : Math.ceil(exact);
}
