import * as fs from 'node:fs';
import * as path from 'node:path';
import { type NativeOutputFormat, loadNative } from '../../native';
import { ChunkRange, EncodeSettings, FrameSink, segmentEncoder } from '../capture/chunk-renderer';
import { frameFileName, frameFileSink } from './frame-files';
import { CellEncoders } from './cell-sink';
import { OutputFormat, encoderFormat, formatExtension } from '../../values/formats';
import { publishDirectory } from './output-directory';
import type { Soundtrack } from './soundtrack';
import { HLS_SEGMENT_SECONDS } from '../../values/constants';


export interface OutputWriterOptions {
  settings: EncodeSettings;
  /** The render's temporary directory: segments and frames live there. */
  tmpDir: string;
  /** Where the finished output is written first, beside `output` (a file or a directory). */
  partial: string;
  output: string;
  /** Encoder threads of each worker's segment encoder. */
  encoderThreads: number;
  /** Whole seconds an hls segment lasts; default {@link HLS_SEGMENT_SECONDS}. */
  hlsSegmentSeconds?: number;
  /** Repeats of a gif after its first play; 0 (default) loops for ever. */
  gifLoop?: number;
  /**
   * The render's cells (render/plan/cell-grid.ts), which a video format encodes each alone,
   * whichever workers draw their frames. Without them each part is one segment.
   */
  cells?: ChunkRange[];
}

/**
 * How one render's format turns worker parts into the output: where each part's frames go, and
 * how the parts become the output once all are done. Every format writes to `partial` and moves
 * it to `output` when complete.
 */
export interface OutputWriter {
  /** The format the soundtrack is encoded for; none for the formats without sound. */
  soundtrackFormat?: NativeOutputFormat;
  sink(part: ChunkRange): FrameSink;
  /**
   * `parts` in frame order; `audio` is asked for only by the formats that carry sound. The output
   * is joined while `cleared` is pending and appears only once it resolves; if it rejects, it
   * never appears and finish rejects with its error.
   */
  finish(parts: ChunkRange[], audio: () => Promise<Soundtrack>, cleared?: Promise<void>): Promise<{ frames: number; bytes: number }>;
}

export function outputWriter(opts: OutputWriterOptions): OutputWriter {
  switch (opts.settings.format) {
    case 'png-sequence':
      return pngSequenceWriter(opts);
    case 'gif':
      return gifWriter(opts);
    case 'hls':
      return hlsWriter(opts);
    default:
      return videoWriter(opts);
  }
}

/**
 * Parts are closed-GOP segments of the format, joined by stream copy with the soundtrack. With
 * cells, each cell is a segment of its own, whatever parts drew it.
 */
function videoWriter(opts: OutputWriterOptions): OutputWriter {
  const extension = formatExtension(opts.settings.format);
  const segmentOf = (startFrame: number) => path.join(opts.tmpDir, `part-${String(startFrame).padStart(7, '0')}${extension}`);
  const format = encoderFormat(opts.settings.format);
  /** The first frame of every segment opened. */
  const written = new Set<number>();
  const open = (startFrame: number) => {
    written.add(startFrame);
    return segmentEncoder(opts.settings, segmentOf(startFrame), opts.encoderThreads);
  };
  const cells = opts.cells && new CellEncoders(opts.cells, open);
  return {
    soundtrackFormat: format,
    sink: (part) => (cells ? cells.sink(part) : open(part.startFrame)),
    async finish(_parts, audio, cleared) {
      await cells?.finish();
      const { options, encoded } = await audio();
      const starts = [...written].sort((a, b) => a - b);
      const joined = await loadNative().concatSegments(starts.map(segmentOf), opts.partial, { faststart: true, format, audio: options }, encoded);
      await cleared;
      fs.renameSync(opts.partial, opts.output);
      return joined;
    },
  };
}

/** Every worker writes its frames into the partial directory, which becomes the output. */
function pngSequenceWriter(opts: OutputWriterOptions): OutputWriter {
  fs.mkdirSync(opts.partial);
  return {
    sink: (part) => frameFileSink(opts.partial, part.startFrame),
    async finish(parts, _audio, cleared) {
      const frames = parts.reduce((sum, p) => sum + p.endFrame - p.startFrame, 0);
      let bytes = 0;
      for (const name of fs.readdirSync(opts.partial)) bytes += fs.statSync(path.join(opts.partial, name)).size;
      await cleared;
      publishDirectory(opts.partial, opts.output);
      return { frames, bytes };
    },
  };
}

/**
 * Workers keep their frames as lossless PNG files; the palette is built from all of them in one
 * pass once every part is done, so the colours do not change where one part meets the next.
 */
function gifWriter(opts: OutputWriterOptions): OutputWriter {
  const frameDir = path.join(opts.tmpDir, 'frames');
  fs.mkdirSync(frameDir);
  return {
    sink: (part) => frameFileSink(frameDir, part.startFrame),
    async finish(parts, _audio, cleared) {
      const files = parts.flatMap((p) => Array.from({ length: p.endFrame - p.startFrame }, (_, i) => path.join(frameDir, frameFileName(p.startFrame + i))));
      const { fps } = opts.settings;
      const result = await loadNative().encodeGif(files, opts.partial, { fpsNum: fps.num, fpsDen: fps.den, loopCount: opts.gifLoop ?? 0 });
      await cleared;
      fs.renameSync(opts.partial, opts.output);
      return result;
    },
  };
}

/**
 * Parts are H.264 MP4 segments with a keyframe on every multiple of the HLS segment length
 * (counted in render frames, so every part shares one grid); they are joined with the soundtrack,
 * then cut into MPEG-TS segments on that grid.
 */
function hlsWriter(opts: OutputWriterOptions): OutputWriter {
  const seconds = opts.hlsSegmentSeconds ?? HLS_SEGMENT_SECONDS;
  const { fps } = opts.settings;
  const keyframeInterval = Math.ceil((seconds * fps.num) / fps.den);
  const segmentOf = (part: ChunkRange) => path.join(opts.tmpDir, `part-${String(part.index).padStart(4, '0')}.mp4`);
  return {
    soundtrackFormat: 'mp4',
    sink: (part) => segmentEncoder(opts.settings, segmentOf(part), opts.encoderThreads, { keyframeInterval, firstFrame: part.startFrame }),
    async finish(parts, audio, cleared) {
      const native = loadNative();
      const joinedFile = path.join(opts.tmpDir, 'joined.mp4');
      const { options, encoded } = await audio();
      const joined = await native.concatSegments(parts.map(segmentOf), joinedFile, { format: 'mp4', audio: options }, encoded);
      fs.mkdirSync(opts.partial);
      await native.packageHls(joinedFile, opts.partial, seconds);
      let bytes = 0;
      for (const name of fs.readdirSync(opts.partial)) bytes += fs.statSync(path.join(opts.partial, name)).size;
      await cleared;
      publishDirectory(opts.partial, opts.output);
      return { frames: joined.frames, bytes };
    },
  };
}
