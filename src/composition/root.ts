/**
 * The composition root as HyperFrames picks it, in order: the composition marked
 * `data-root="true"`, else the first element with `data-composition-id` (the topmost). No Node
 * imports: the player reads the root with these too.
 */
export const ROOT_SELECTORS = ['[data-composition-id][data-root="true"]', '[data-composition-id]'] as const;
