import type { ChunkRange } from '../capture/chunk-renderer';

/**
 * A range of frames handed to one worker. `endFrame` shrinks when another worker takes the rest
 * of it; the worker's render loop reads it before every frame.
 */
export interface FramePart extends ChunkRange {
  /** The next frame its worker will capture. */
  next: number;
}

/**
 * Hands out the frames of a render to workers. Each worker starts with one planned range; a worker
 * that has finished its range, or one added mid-render, takes the second half of what is left of
 * the range with the most frames left. Workers finish together instead of waiting on the slowest
 * range (a composition whose last seconds hold still leaves the last worker idle otherwise).
 * A browser session only steps forward in time: a worker whose page is past the part it takes
 * opens a new one.
 */
export class FrameScheduler {
  private readonly parts: FramePart[] = [];
  private readonly unstarted: ChunkRange[];

  /**
   * `minFrames`: neither half of a split may have fewer frames than this. A split may fall inside
   * a render's cell: the cell's encoder takes the frames of both parts in order (output/cell-sink.ts).
   */
  constructor(
    planned: ChunkRange[],
    private readonly minFrames: number,
  ) {
    this.unstarted = [...planned].sort((a, b) => a.startFrame - b.startFrame);
  }

  /**
   * The next planned range, in frame order, or undefined once every planned range is out. A worker
   * takes it once its page is ready, while the worker of the part before may have drawn for a
   * while (a later browser starts once the first has drawn, about a second on a video page): the
   * boundary between the two moves so that both have as many frames left, and they finish together.
   */
  takePlanned(): FramePart | undefined {
    const range = this.unstarted.shift();
    if (!range) return undefined;
    const before = this.parts.find((part) => part.endFrame === range.startFrame && part.next < part.endFrame);
    const at = before && this.splitAt(before.next, range.endFrame);
    if (!before || at === undefined) return this.add(range.startFrame, range.endFrame);
    before.endFrame = at;
    return this.add(at, range.endFrame);
  }

  /** The second half of the largest remainder, if one is worth splitting. */
  steal(): FramePart | undefined {
    const largest = this.largestRemainder();
    if (!largest) return undefined;
    const end = largest.endFrame;
    largest.endFrame = this.splitAt(largest.next, end)!;
    return this.add(largest.endFrame, end);
  }

  /**
   * What a worker takes once its part is done, or a worker added mid-render: a planned range no
   * worker has taken yet (`auto` may leave some to the first worker, see local-render.ts), else
   * the second half of the largest remainder.
   */
  next(): FramePart | undefined {
    return this.takePlanned() ?? this.steal();
  }

  /** Whether a worker added now would find frames to take. */
  canSplit(): boolean {
    return this.unstarted.length > 0 || this.largestRemainder() !== undefined;
  }

  /** Every part handed out, in frame order: the segments join in this order. */
  inOrder(): FramePart[] {
    return [...this.parts].sort((a, b) => a.startFrame - b.startFrame);
  }

  private largestRemainder(): FramePart | undefined {
    let best: FramePart | undefined;
    for (const part of this.parts) {
      const left = part.endFrame - part.next;
      if (this.splitAt(part.next, part.endFrame) !== undefined && (!best || left > best.endFrame - best.next)) best = part;
    }
    return best;
  }

  /** Where frames [from, to) split in two halves, neither shorter than `minFrames`; undefined when they cannot. */
  private splitAt(from: number, to: number): number | undefined {
    const middle = from + Math.ceil((to - from) / 2);
    return middle - from >= this.minFrames && to - middle >= this.minFrames ? middle : undefined;
  }

  private add(startFrame: number, endFrame: number): FramePart {
    const part: FramePart = { index: this.parts.length, startFrame, endFrame, next: startFrame };
    this.parts.push(part);
    return part;
  }
}
