/**
 * Defaults and limits of the cloud SDK that the CLI shows in its help. Kept apart from the modules
 * that call AWS so that loading the CLI does not load the AWS SDK (about 150 ms, which every local
 * render would otherwise wait before its first frame).
 */

/** Lambda's largest memory size, and the render function's default. */
export const MAX_MEMORY_MB = 10240;
/** The default cap on simultaneous execution starts of a batch (`--max-concurrent`). */
export const DEFAULT_MAX_CONCURRENT = 50;
