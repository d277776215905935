import { VidkitError } from '../errors';
import { loadNative } from '../native';
import type { CaptureSession, FrameFormat } from './capture-session';
import type { Rational } from './fps';

/** Encoder settings shared by every chunk of a render, so segments join by stream copy. */
export interface EncodeSettings {
  width: number;
  height: number;
  fps: Rational;
  crf: number;
  preset: string;
  frameFormat: FrameFormat;
}

export interface ChunkRange {
  index: number;
  startFrame: number;
  /** Exclusive. */
  endFrame: number;
}

/**
 * Renders one chunk: seeks the session to each frame of the range, captures it and streams it into
 * a native encoder writing one closed-GOP segment. Capture and encoding overlap: the encoder
 * decodes and encodes on its own threads while the next frame is being captured.
 * Used unchanged by local workers and by the cloud chunk function.
 */
export async function renderChunk(
  session: CaptureSession,
  chunk: ChunkRange,
  settings: EncodeSettings,
  segmentPath: string,
  onFrame: () => void,
): Promise<{ frames: number; bytes: number }> {
  const { NativeEncoder } = loadNative();
  const encoder = new NativeEncoder({
    output: segmentPath,
    width: settings.width,
    height: settings.height,
    fpsNum: settings.fps.num,
    fpsDen: settings.fps.den,
    crf: settings.crf,
    preset: settings.preset,
    input: settings.frameFormat.type,
  });
  let haveFrame = false;
  try {
    for (let frame = chunk.startFrame; frame < chunk.endFrame; frame++) {
      const image = await session.capture(frame);
      if (image) {
        await encoder.push(image);
        haveFrame = true;
      } else if (haveFrame) {
        await encoder.pushRepeat();
      } else {
        throw new VidkitError(`the browser drew nothing for frame ${frame}, the first of chunk ${chunk.index}`);
      }
      onFrame();
    }
    return await encoder.finish();
  } catch (err) {
    encoder.abort();
    throw err;
  }
}
