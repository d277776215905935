// Numbers several render paths share (CLI, render(), the cloud SDK, the chunk planner's callers):
// defined here once, with no imports, so any module can read them without an import cycle.

/** The highest frame rate a composition may render at, locally or in the cloud. */
export const FPS_CEILING = 240;
/** Frames per cloud chunk when the caller sets neither chunkSize nor targetChunkFrames. */
export const DEFAULT_CHUNK_SIZE = 240;
/** Cloud chunks rendered at once unless the caller says otherwise. */
export const DEFAULT_MAX_PARALLEL_CHUNKS = 16;
/** The longest page deadline, in seconds, `--load-timeout` and `--frame-timeout` accept. */
export const MAX_TIMEOUT_SECONDS = 3600;
