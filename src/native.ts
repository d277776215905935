// Loader and types for vidkit's native addon (crates/vidkit-napi).
//
// The addon comes either from the per-platform npm package (@vidkit/native-<platform>, the
// napi-rs layout under npm/), resolved from the installed vidkit, or from a local
// `npm run build:native` into <packageRoot>/native/.
// The types are written out here rather than generated so that the TypeScript side compiles
// without a Rust toolchain; they mirror the #[napi] items in crates/vidkit-napi/src.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { ExitCode, VidkitError, errorMessage } from './errors';
import { NATIVE_PACKAGES, PACKAGE_ROOT, VERSION } from './package-info';

/** Options of planChunks; omitted fields take the defaults (chunkSize 240, maxParallelChunks 16). */
export interface PlanChunksOptions {
  totalFrames: number;
  /** When set, targetChunkFrames is ignored: a given chunk size wins. */
  chunkSize?: number;
  maxParallelChunks?: number;
  targetChunkFrames?: number;
}

/** Frames [startFrame, endFrame) of one chunk. */
export interface Chunk {
  index: number;
  startFrame: number;
  endFrame: number;
  frameCount: number;
}

export interface BatchLineError {
  line: number;
  /** Present when the line had a usable outputKey. */
  outputKey?: string;
  reason: string;
}

/**
 * A parsed batch, packed so that no JS object or string is made per entry: entry i is
 * `spans[4i..4i+4] = [line, start, mid, end]`, its outputKey the UTF-8 bytes `text[start..mid]` and
 * its variables JSON `text[mid..end]`. Decode entries with src/sdk/batch-file.ts.
 */
export interface PackedBatchParse {
  spans: Uint32Array;
  text: Buffer;
  errors: BatchLineError[];
}

/** How the pushed screenshots are encoded. */
export type FrameInput = 'jpeg' | 'png';

/** Output formats of the encoder and concat; see src/render/formats.ts. */
export type NativeOutputFormat = 'mp4' | 'webm' | 'mov' | 'hdr-pq' | 'hdr-hlg';

export interface NativeEncoderOptions {
  /** File to create (replaced if it exists), in the format's container. */
  output: string;
  /** Default mp4. */
  format?: NativeOutputFormat;
  /** Even number of pixels. */
  width: number;
  /** Even number of pixels. */
  height: number;
  fpsNum: number;
  fpsDen: number;
  /** x264 constant rate factor, 0 to 51. */
  crf: number;
  /** x264 preset: ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo. */
  preset: string;
  /** Extra x264 options, `key=value:key=value` (mp4 only), e.g. "me=dia:subme=1". */
  x264Params?: string;
  /** Encoder threads; 0 or unset lets the codec choose from the cores. */
  threads?: number;
  input: FrameInput;
  /** Frames in flight before a push's promise waits; default 8. */
  queueCapacity?: number;
  /**
   * A keyframe at every render frame that is a multiple of this (mp4 only), the segment's first
   * frame being render frame `firstFrame`: the hls format's segment grid.
   */
  keyframeInterval?: number;
  /** The render frame of the segment's first frame; default 0. */
  firstFrame?: number;
}

export interface EncodeResult {
  frames: number;
  bytes: number;
}

/** Encodes screenshots into one closed-GOP H.264 MP4 segment (BT.709, limited range). */
export interface NativeEncoder {
  /**
   * Copies and queues one screenshot; frames are encoded in call order even when the promises
   * are not awaited. Resolves once fewer than queueCapacity frames are in flight; rejects when
   * the pipeline has failed (the message names the frame, counted from 0 in push order).
   */
  push(frame: Uint8Array): Promise<void>;
  /** Queues the previous screenshot again without decoding it (the page did not change). */
  pushRepeat(): Promise<void>;
  /** Encodes everything queued and closes the file; on failure the partial file is deleted. */
  finish(): Promise<EncodeResult>;
  /** Stops encoding and deletes the partial file; a no-op after finish() or abort(). */
  abort(): void;
}

export interface NativeEncoderConstructor {
  new (options: NativeEncoderOptions): NativeEncoder;
}

export interface ConcatOptions {
  /** Put the MP4 index first so playback can start while downloading. */
  faststart?: boolean;
  /** The segments' format, which picks the container; default mp4. */
  format?: NativeOutputFormat;
  /** Mixed (48 kHz) and encoded once (AAC; Opus in WebM), muxed beside the video. No tracks: no audio stream. */
  audio?: SoundtrackOptions;
}

/** One media element on the timeline; times in seconds. */
export interface SoundtrackTrack {
  /** A local media file; one without an audio stream adds nothing. */
  source: string;
  /** Composition time at which it starts playing. */
  start: number;
  /** Its own time at `start`. */
  offset: number;
  /** Applied by resampling: the pitch follows the rate. */
  playbackRate: number;
  looped: boolean;
  /** Gain, 0 to 3.98 (+12 dB). */
  volume: number;
  /** Composition time at which it stops (trimmed); absent: at its source's end. */
  end?: number;
  /** Its gain over time, in time order, linear in between; absent: `volume` throughout. */
  volumes?: Array<{ time: number; volume: number }>;
}

export interface SoundtrackOptions {
  tracks: SoundtrackTrack[];
  durationSeconds: number;
}

export interface ConcatResult {
  frames: number;
  bytes: number;
}

export type StreamKind = 'video' | 'audio' | 'other';

/** One stream; libav names, empty where the file leaves them unspecified. */
export interface ProbeStream {
  index: number;
  kind: StreamKind;
  codec: string;
  profile: string;
  width: number;
  height: number;
  pixFmt: string;
  fps: number;
  /** From the container, or counted by demuxing when the container does not record it. */
  frameCount: number;
  durationSeconds: number;
  colorSpace: string;
  colorTransfer: string;
  colorPrimaries: string;
  /** 'tv' (limited) or 'pc' (full). */
  colorRange: string;
}

export interface ProbeResult {
  /** libav's demuxer name, e.g. 'mov,mp4,m4a,3gp,3g2,mj2'. */
  formatName: string;
  durationSeconds: number;
  streams: ProbeStream[];
}

export interface EncodeGifOptions {
  fpsNum: number;
  fpsDen: number;
  /** Repeats after the first play, 0 to 65535; 0 (default) loops for ever. */
  loopCount?: number;
}

/** A video as a page's `<video>` reports it. */
export interface VideoFrameInfo {
  /** The picture's size as a browser shows it: sample aspect ratio and rotation applied. */
  width: number;
  height: number;
  /** The container's duration: the element's `duration`. */
  durationSeconds: number;
  /** Where the video stream ends: the length a looping clip repeats at. */
  videoDurationSeconds: number;
  hasAlpha: boolean;
  codec: string;
  /** How each picture is written: a WebCodecs VideoPixelFormat of tightly packed planes ('I420', 'I420A', 'I444'...) or 'RGBA'. */
  format: string;
  /** The written picture's size: turned, before the sample aspect ratio. */
  codedWidth: number;
  codedHeight: number;
  /** WebCodecs VideoMatrixCoefficients of planar pictures. */
  matrix: string;
  fullRange: boolean;
}

/** One `<video>` element's reader, decoding ahead on a thread of its own (crates/vidkit-media/src/frames). */
export interface VideoFrames {
  readonly info: VideoFrameInfo;
  /**
   * Writes the picture shown at media time `seconds` (the last frame starting at or before it)
   * to `output` in the info's `format`; false, writing nothing, when that picture is the one
   * written last.
   */
  frameAt(seconds: number, output: string): Promise<boolean>;
  /** Ends the reader thread. */
  close(): void;
}

export interface NativeInfo {
  /** Version of the addon. */
  version: string;
  libavcodec: string;
  libavformat: string;
}

export interface NativeBinding {
  /** Throws with an actionable message when an option is 0 or not a whole number. */
  planChunks(options: PlanChunksOptions): Chunk[];
  /**
   * Reads the file off the main thread (JSONL, a JSON array, CSV or TSV, by its name); bad lines
   * are reported in `errors`, never thrown. `optionsJson`: `{declarations?, outputKeyPattern?}`.
   */
  parseBatchFile(path: string, optionsJson?: string): Promise<PackedBatchParse>;
  NativeEncoder: NativeEncoderConstructor;
  /** Joins encoder segments in order by stream copy; refuses segments with other codec parameters. */
  concatSegments(inputs: string[], output: string, options?: ConcatOptions): Promise<ConcatResult>;
  probe(path: string): Promise<ProbeResult>;
  /**
   * What the page plays for a media file the browser loads (audio, or a video file played as
   * audio): a FLAC copy of audio in a codec the browser does not play, written at `proxyStem` plus
   * `.flac` and resolved to its path; null when the page plays the file itself, which has been
   * checked to decode. Rejects with libav's reason when the file cannot be decoded.
   */
  mediaForPage(input: string, proxyStem: string): Promise<string | null>;
  /**
   * A reader of a file's video pictures, its first picture decoded (a file libav cannot play
   * rejects, with libav's reason); null when the file has no video stream.
   */
  openVideoFrames(path: string): Promise<VideoFrames | null>;
  /** PNG frame files, in order, into one animated GIF with one palette for all of them (palettegen, paletteuse). */
  encodeGif(frames: string[], output: string, options: EncodeGifOptions): Promise<{ frames: number; bytes: number }>;
  /** Remuxes a joined H.264 MP4 into the empty directory `dir`: master.m3u8, stream.m3u8, stream_NNNNN.ts. */
  packageHls(input: string, dir: string, segmentSeconds: number): Promise<{ segments: number; frames: number }>;
  nativeInfo(): NativeInfo;
  /** Returns freed heap memory to the system; a long-lived process calls it between renders. */
  releaseMemory(): void;
}

/** The napi-rs platform suffixes an addon can be built for, keyed by `${process.platform}-${process.arch}`. */
const PLATFORM_SUFFIXES: Readonly<Record<string, string>> = {
  'linux-x64': 'linux-x64-gnu',
  'linux-arm64': 'linux-arm64-gnu',
};

let cached: NativeBinding | undefined;

/** Loads the addon once: the platform package first, then a local build in <packageRoot>/native/. */
export function loadNative(): NativeBinding {
  cached ??= loadUncached();
  return cached;
}

/** The addon package for this platform (`@vidkit/native-linux-x64-gnu`), or undefined where none is built. */
export function nativePackage(): string | undefined {
  const suffix = PLATFORM_SUFFIXES[`${process.platform}-${process.arch}`];
  return suffix === undefined ? undefined : `@vidkit/native-${suffix}`;
}

function loadUncached(): NativeBinding {
  const pkg = nativePackage();
  if (pkg === undefined) {
    const published = Object.keys(NATIVE_PACKAGES).map((name) => name.replace('@vidkit/native-', ''));
    throw new VidkitError(
      `vidkit's native addon is not available for ${process.platform}-${process.arch}: prebuilt packages exist for ${published.join(' and ')}`,
      { exitCode: ExitCode.MissingDependency },
    );
  }
  const suffix = pkg.replace('@vidkit/native-', '');
  return loadFirst([pkg, path.join(PACKAGE_ROOT, 'native', `vidkit.${suffix}.node`)], missingAddonHint(pkg));
}

/**
 * What to do when no candidate loads: install the platform package at this version, and in a
 * source checkout (crates/ present; an installed vidkit has none) build the addon.
 */
export function missingAddonHint(pkg: string, root = PACKAGE_ROOT, packages: Readonly<Record<string, string>> = NATIVE_PACKAGES): string {
  const version = packages[pkg];
  const install =
    version === undefined
      ? `No ${pkg} is published for vidkit ${VERSION}.`
      : `Install it: \`npm install ${pkg}@${version}\` (an optional dependency of vidkit, left out by --omit=optional).`;
  const build = fs.existsSync(path.join(root, 'crates', 'vidkit-napi'))
    ? ' In this source checkout, `npm run build:native` builds it instead.'
    : '';
  return install + build;
}

/** The first candidate (package name or file) that loads, or one error naming each, why, and `hint`. */
export function loadFirst(candidates: string[], hint: string): NativeBinding {
  const failures: string[] = [];
  for (const candidate of candidates) {
    try {
      return require(candidate) as NativeBinding;
    } catch (error) {
      // Keep the reason: "not installed" and "installed but cannot load here" need different fixes.
      const reason = (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' ? 'not found' : errorMessage(error).split('\n')[0];
      failures.push(`${candidate}: ${reason}`);
    }
  }
  throw new VidkitError(`vidkit's native addon could not be loaded (tried ${failures.join('; ')}). ${hint}`, {
    exitCode: ExitCode.MissingDependency,
  });
}
