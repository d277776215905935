import { ExitCode, VidkitError, errorMessage } from '../errors';
import { BrowserFailure } from '../render/capture/capture-session';
import { DeadlineError } from '../render/browser/deadline';

/**
 * The error the state machine retries (cloud/state-machine.asl.json, RenderChunk's Retry): a
 * chunk that may well succeed on a second attempt.
 */
export class TransientChunkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransientChunkError';
  }
}

/** What bad input fails with: the same input fails again, so the state machine does not retry it. */
export class BadChunkInput extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadInput';
  }
}

// Throttling and unavailability as S3 and the other AWS services name them.
const RETRYABLE_AWS_ERRORS = /^(SlowDown|Throttling|ThrottlingException|TooManyRequestsException|RequestLimitExceeded|RequestTimeout|ServiceUnavailable|InternalError)$/;
const RETRYABLE_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);

/**
 * A chunk's failure under the name Step Functions matches on: a browser that crashed or stopped
 * answering, a deadline, S3 throttling or a 5xx become {@link TransientChunkError}; bad input
 * becomes {@link BadChunkInput}; anything else keeps its own name and is not retried.
 */
export function classifyChunkError(err: unknown): Error {
  if (err instanceof TransientChunkError || err instanceof BadChunkInput) return err;
  const message = errorMessage(err);
  if (err instanceof BrowserFailure || err instanceof DeadlineError || isRetryableAws(err)) return new TransientChunkError(message);
  if (err instanceof VidkitError && err.exitCode === ExitCode.BadInput) return new BadChunkInput(message);
  return err instanceof Error ? err : new Error(message);
}

function isRetryableAws(err: unknown): boolean {
  const e = err as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const status = e?.$metadata?.httpStatusCode ?? 0;
  return status >= 500 || status === 429 || RETRYABLE_AWS_ERRORS.test(e?.name ?? '') || RETRYABLE_NETWORK_CODES.has(e?.code ?? '');
}
