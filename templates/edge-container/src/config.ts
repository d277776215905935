/**
 * The preview composition, relative to public/. Swap it here, or at deploy time with
 * `wrangler deploy --var PREVIEW_COMPOSITION_DIR:compositions/<name>` (the deploy-time value wins).
 */
export const PREVIEW_COMPOSITION_DIR = 'compositions/ui-3d-reveal';

/** Renders in flight spread over at most this many containers (max_instances in wrangler.jsonc). */
export const RENDER_CONTAINERS = 3;
