import { loadNative } from '../native';
import type { CaptureSession, FrameFormat } from './capture-session';
import type { OutputFormat } from './formats';
import type { Rational } from './fps';

/** Encoder settings shared by every chunk of a render, so segments join by stream copy. */
export interface EncodeSettings {
  format: OutputFormat;
  width: number;
  height: number;
  fps: Rational;
  crf: number;
  preset: string;
  /** Extra x264 options after the preset (mp4 only). */
  x264Params?: string;
  frameFormat: FrameFormat;
}

export interface ChunkRange {
  index: number;
  startFrame: number;
  /** Exclusive. */
  endFrame: number;
}

/** Where captured frames go: the native encoder, or nowhere when measuring capture alone. */
export interface FrameSink {
  push(image: Buffer): Promise<void>;
  /** The previous frame again: the browser reported no damage. */
  pushRepeat(): Promise<void>;
  finish(): Promise<{ frames: number; bytes: number }>;
  abort(): void;
}

/**
 * A native encoder writing one closed-GOP segment of the output format on its own threads.
 * `threads` 0 lets the codec use every core, right for one encoder on the machine; workers
 * encoding side by side pass their share.
 */
export function segmentEncoder(settings: EncodeSettings, segmentPath: string, threads = 0): FrameSink {
  const { NativeEncoder } = loadNative();
  return new NativeEncoder({
    output: segmentPath,
    format: settings.format,
    width: settings.width,
    height: settings.height,
    fpsNum: settings.fps.num,
    fpsDen: settings.fps.den,
    crf: settings.crf,
    preset: settings.preset,
    x264Params: settings.x264Params,
    threads,
    input: settings.frameFormat.type,
  });
}

/** Counts frames and drops them: the capture-only limit the benchmarks compare against. */
export function discardingSink(): FrameSink {
  let frames = 0;
  return {
    push: async () => void frames++,
    pushRepeat: async () => void frames++,
    finish: async () => ({ frames, bytes: 0 }),
    abort: () => undefined,
  };
}

/**
 * Renders one chunk: seeks the session to each frame of the range, captures it and streams it into
 * the sink. With the native encoder, capture and encoding overlap: it decodes and encodes on its
 * own threads while the next frame is being captured.
 * Used unchanged by local workers and by the cloud chunk function.
 */
export async function renderChunk(
  session: CaptureSession,
  chunk: ChunkRange,
  encoder: FrameSink,
  onFrame: (frame: number) => void,
): Promise<{ frames: number; bytes: number }> {
  try {
    // `endFrame` is read before every frame: another worker may take the rest of the range.
    for (let frame = chunk.startFrame; frame < chunk.endFrame; frame++) {
      const image = await session.capture(frame, frame === chunk.startFrame);
      if (image) await encoder.push(image);
      else await encoder.pushRepeat();
      onFrame(frame);
    }
    return await encoder.finish();
  } catch (err) {
    encoder.abort();
    throw err;
  }
}
