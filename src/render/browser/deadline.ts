import { VidkitError } from '../../errors';

/** Thrown when a step on the browser or the network outlives its deadline. */
export class DeadlineError extends VidkitError {
  constructor(message: string) {
    super(message);
    this.name = 'DeadlineError';
  }
}

/**
 * `work`, or a {@link DeadlineError} with `message` once `ms` have passed. The work itself is not
 * cancelled: the caller kills what hangs (a browser) when this throws.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(message())), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
    // The losing side may still settle; its rejection is not the caller's concern.
    work.catch(() => undefined);
  }
}
