// The values several render paths share (CLI, render(), the cloud SDK, the option table and its
// reference page): defined here once, importing nothing that runs, so any module, the option
// table included, can read them without an import cycle.
import type { PageTimeouts } from './page-timeouts';

/** The highest frame rate a composition may render at, locally or in the cloud. */
export const FPS_CEILING = 240;
/** Frames per cloud chunk when the caller sets neither chunkSize nor targetChunkFrames. */
export const DEFAULT_CHUNK_SIZE = 240;
/** Cloud chunks rendered at once unless the caller says otherwise. */
export const DEFAULT_MAX_PARALLEL_CHUNKS = 16;
/** The longest page deadline, in seconds, `--load-timeout` and `--frame-timeout` accept. */
export const MAX_TIMEOUT_SECONDS = 3600;

/**
 * The output formats, each its own file or directory:
 * mp4 (H.264), webm (VP9 with alpha), mov (ProRes 4444 with alpha), hdr-pq and hdr-hlg (10-bit
 * HEVC), gif, png-sequence (a directory of PNG frames) and hls (a directory of playlists and
 * segments); formats.ts says what each writes.
 */
export const OUTPUT_FORMATS = ['mp4', 'webm', 'mov', 'hdr-pq', 'hdr-hlg', 'gif', 'png-sequence', 'hls'] as const;
/** The encoder quality presets; quality.ts says what each means. */
export const QUALITIES = ['draft', 'standard', 'high'] as const;
/** Seconds an HLS segment lasts (the last one excepted), as in HyperFrames. */
export const HLS_SEGMENT_SECONDS = 4;
/** Bytes one remote asset may have unless the render says otherwise (`--max-asset-bytes`). */
export const DEFAULT_MAX_ASSET_BYTES = 512 * 1024 * 1024;
/**
 * Bytes one variable's value (as JSON) and all of a render's variables may have unless the render
 * says otherwise: carrying a variable to the page costs about 0.8 s a megabyte, and a page that
 * lays 8 MiB of text out nears its 60 s load deadline on a busy machine (docs/reference/limits.md).
 */
export const DEFAULT_MAX_VARIABLE_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MAX_VARIABLES_BYTES = 16 * 1024 * 1024;
/** Levels of arrays and objects any JSON input may nest: variables hold flat values or small structures. */
export const MAX_JSON_DEPTH = 64;
/** Bytes a batch file may have unless the batch says otherwise. */
export const DEFAULT_MAX_BATCH_BYTES = 1024 * 1024 * 1024;
/** Page deadlines unless the render says otherwise. */
export const DEFAULT_TIMEOUTS: PageTimeouts = { loadMs: 60_000, frameMs: 30_000 };
/** The CloudFormation stack the cloud commands deploy and read unless told another. */
export const DEFAULT_STACK_NAME = 'vidkit-render';
/** What the page's Math.random and crypto are seeded with unless the render says otherwise. */
export const DEFAULT_SEED = 'vidkit';
