import * as fs from 'node:fs';
import * as path from 'node:path';
import { VidkitError } from '../../errors';
import type { FrameSink } from '../capture/chunk-renderer';
import { encodedImage } from '../capture/frame-image';

/** The file of render frame `frame` (0-based) in a frame directory: frame_000001.png for frame 0, as HyperFrames names them. */
export function frameFileName(frame: number): string {
  return `frame_${String(frame + 1).padStart(6, '0')}.png`;
}

/**
 * Writes the browser's PNG screenshots as they are, one file a frame, numbered by render frame so
 * that the parts of every worker land in one directory in order. A repeated frame is a copy of the
 * previous file.
 */
export function frameFileSink(dir: string, firstFrame: number): FrameSink {
  let next = firstFrame;
  let previous: string | undefined;
  let bytes = 0;
  const written = (file: string) => {
    previous = file;
    next += 1;
  };
  return {
    async push(image) {
      const file = path.join(dir, frameFileName(next));
      const encoded = encodedImage(image);
      await fs.promises.writeFile(file, encoded);
      bytes += encoded.length;
      written(file);
    },
    async pushRepeat() {
      if (previous === undefined) throw new VidkitError(`frame ${next}: a repeat of no earlier frame; the page's first frame must be captured whole`);
      const file = path.join(dir, frameFileName(next));
      await fs.promises.copyFile(previous, file);
      bytes += fs.statSync(file).size;
      written(file);
    },
    finish: async () => ({ frames: next - firstFrame, bytes }),
    // The files belong to the render's directory, which is removed with it.
    abort: () => undefined,
  };
}
