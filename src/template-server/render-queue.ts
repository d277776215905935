import { RenderQueueFullError } from './render-errors';

/** What `Retry-After` says before this process has seen a render finish. */
export const FIRST_RETRY_AFTER_SECONDS = 30;

/**
 * One render at a time in this process, at most `maxWaiting` more waiting their turn in arrival
 * order; one more is refused at once rather than held open. A render uses every core, so running
 * two side by side would only make both slower.
 */
export class RenderQueue {
  private running = false;
  private readonly waiting: (() => void)[] = [];
  private lastSeconds: number | undefined;

  constructor(private readonly maxWaiting: number) {}

  async run<T>(render: () => Promise<T>): Promise<T> {
    if (this.running) {
      if (this.waiting.length >= this.maxWaiting) throw new RenderQueueFullError(this.retryAfterSeconds(), this.maxWaiting);
      // The finishing render hands its turn over directly, so `running` stays true in between.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.running = true;
    const started = Date.now();
    try {
      return await render();
    } finally {
      this.lastSeconds = (Date.now() - started) / 1000;
      const next = this.waiting.shift();
      if (next) next();
      else this.running = false;
    }
  }

  /** A place frees when the running render ends: about as long as the last one took. */
  private retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.lastSeconds ?? FIRST_RETRY_AFTER_SECONDS));
  }
}
