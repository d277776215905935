import type { FrameSink } from '../capture/chunk-renderer';

/**
 * A worker's part encoded cell by cell: from `startFrame`, each frame where `cellStarts` says a
 * cell begins finishes the encoder of the cell before (its last frames encode on its own threads
 * while the next cell draws) and opens the next with `open(frame)`. Every cell is then encoded
 * alone, as the same cell in any other render of the composition.
 */
export function cellSink(startFrame: number, cellStarts: ReadonlySet<number>, open: (cellStart: number) => FrameSink): FrameSink {
  let frame = startFrame;
  let current: FrameSink | undefined;
  const finished: Array<Promise<{ frames: number; bytes: number }>> = [];
  const sinkFor = (): FrameSink => {
    if (current && cellStarts.has(frame)) {
      const done = current.finish();
      // Awaited by finish(); a failure before then is not unhandled.
      done.catch(() => undefined);
      finished.push(done);
      current = undefined;
    }
    current ??= open(frame);
    frame += 1;
    return current;
  };
  return {
    push: (image) => sinkFor().push(image),
    pushRepeat: () => sinkFor().pushRepeat(),
    opensAt: (at) => at === startFrame || cellStarts.has(at),
    async finish() {
      if (current) finished.push(current.finish());
      current = undefined;
      const results = await Promise.all(finished);
      return results.reduce((sum, r) => ({ frames: sum.frames + r.frames, bytes: sum.bytes + r.bytes }), { frames: 0, bytes: 0 });
    },
    abort() {
      current?.abort();
      current = undefined;
    },
  };
}
