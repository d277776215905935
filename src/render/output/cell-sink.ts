import type { ChunkRange, FrameSink } from '../capture/chunk-renderer';
import { VidkitError } from '../../errors';
import { FrameImage, imageBytes, releaseImage } from '../capture/frame-image';

/**
 * Bytes of drawn frames a render holds for cells whose encoders have not reached them; past it, a
 * worker drawing ahead waits. JPEG frames are a fraction of a megabyte and converted 1080p
 * pictures 3 MB, so a cell's worth stays below; PNG frames of a 4K page are about 20 MB each.
 */
const HELD_BYTES_LIMIT = 256 * 1024 * 1024;

/**
 * The encoders of a render's cells (render/plan/cell-grid.ts): each cell is encoded alone, by an
 * encoder opened at its first frame, as the same cell in any other render of the composition.
 * Workers' parts need not follow the cells: a worker that has finished takes the second half of
 * another's remainder wherever it falls, so the workers finish together. A frame drawn before the
 * frames ahead of it in its cell have reached the encoder is held until they have; each encoder
 * thus takes its cell's frames in order, whichever worker drew them. A frame is the same picture
 * whichever worker draws it, and a repeat (nothing changed) repeats that picture.
 */
export class CellEncoders {
  private readonly cells: OrderedCell[];
  private readonly held: HeldBytes;

  constructor(cells: readonly ChunkRange[], open: (cellStart: number) => FrameSink, heldLimit = HELD_BYTES_LIMIT) {
    this.held = new HeldBytes(heldLimit);
    this.cells = [...cells].sort((a, b) => a.startFrame - b.startFrame).map((c) => new OrderedCell(c, open, this.held));
  }

  /** Where a part's frames go, from its first frame on, each to its cell's encoder. */
  sink(part: ChunkRange): FrameSink {
    let frame = part.startFrame;
    const put = (image: FrameImage | null) => {
      const at = frame++;
      return this.cellOf(at).put(at, image);
    };
    return {
      push: (image) => put(image),
      pushRepeat: () => put(null),
      // A part's first frame may fall inside a cell: it is whole, since its page drew nothing
      // before it to repeat.
      opensAt: (at) => at === part.startFrame || this.cellOf(at).range.startFrame === at,
      finish: async () => ({ frames: frame - part.startFrame, bytes: 0 }),
      abort: () => this.abort(),
    };
  }

  /** Every cell's encoding, once every frame of the render has been drawn. */
  async finish(): Promise<{ frames: number; bytes: number }> {
    const unfinished = this.cells.find((c) => !c.complete);
    if (unfinished) throw new VidkitError(`internal error: the cell from frame ${unfinished.range.startFrame} got its frames up to ${unfinished.expected} only`);
    const results = await Promise.all(this.cells.map((c) => c.done!));
    return results.reduce((sum, r) => ({ frames: sum.frames + r.frames, bytes: sum.bytes + r.bytes }), { frames: 0, bytes: 0 });
  }

  /** Stops every open encoder: a failed part fails the render. */
  abort(): void {
    for (const cell of this.cells) cell.abort();
    this.held.wakeAll();
  }

  private cellOf(frame: number): OrderedCell {
    let low = 0;
    let high = this.cells.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (this.cells[middle].range.startFrame <= frame) low = middle;
      else high = middle - 1;
    }
    const cell = this.cells[low];
    if (!cell || frame < cell.range.startFrame || frame >= cell.range.endFrame) throw new VidkitError(`internal error: frame ${frame} is in no cell of the render`);
    return cell;
  }
}

/** The bytes of frames held for encoders that have not reached them, and the workers waiting for room. */
class HeldBytes {
  private bytes = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /** Counts `bytes` held; a promise to wait on while the render holds too much. */
  hold(bytes: number): Promise<void> | undefined {
    this.bytes += bytes;
    return this.bytes > this.limit ? new Promise<void>((resolve) => this.waiters.push(resolve)) : undefined;
  }

  release(bytes: number): void {
    this.bytes -= bytes;
    if (this.bytes <= this.limit) this.wakeAll();
  }

  wakeAll(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }
}

/** One cell's encoder and the frames drawn ahead of it, pushed in frame order. */
class OrderedCell {
  /** The next frame the encoder takes. */
  expected: number;
  done?: Promise<{ frames: number; bytes: number }>;
  private encoder?: FrameSink;
  private readonly held = new Map<number, FrameImage | null>();
  private aborted = false;

  constructor(
    readonly range: ChunkRange,
    private readonly open: (cellStart: number) => FrameSink,
    private readonly room: HeldBytes,
  ) {
    this.expected = range.startFrame;
  }

  get complete(): boolean {
    return this.expected === this.range.endFrame;
  }

  async put(frame: number, image: FrameImage | null): Promise<void> {
    if (this.aborted) throw new VidkitError(`the encoder of frame ${frame} was stopped`);
    // While a frame is being pushed, `expected` is that frame: any other is held, and the caller
    // pushing takes those that follow it on.
    if (frame !== this.expected) {
      this.held.set(frame, image);
      await this.room.hold(image ? imageBytes(image) : 0);
      return;
    }
    let next: FrameImage | null | undefined = image;
    for (let at = frame; next !== undefined; at = this.expected) {
      if (at === this.range.startFrame) this.encoder = this.open(at);
      if (next) await this.encoder!.push(next);
      else await this.encoder!.pushRepeat();
      this.expected = at + 1;
      if (this.complete) {
        this.done = this.encoder!.finish();
        // Awaited by CellEncoders.finish; a failure before then is not unhandled.
        this.done.catch(() => undefined);
        this.encoder = undefined;
      }
      next = this.take(this.expected);
    }
  }

  abort(): void {
    this.aborted = true;
    this.encoder?.abort();
    this.encoder = undefined;
    for (const image of this.held.values()) if (image) releaseImage(image);
    this.held.clear();
  }

  private take(frame: number): FrameImage | null | undefined {
    if (!this.held.has(frame)) return undefined;
    const image = this.held.get(frame)!;
    this.held.delete(frame);
    this.room.release(image ? imageBytes(image) : 0);
    return image;
  }
}
