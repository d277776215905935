/** Every place in the queue is taken: the templates answer 429 with `Retry-After` (templates/README.md). */
export class RenderQueueFullError extends Error {
  constructor(
    readonly retryAfterSeconds: number,
    maxWaiting: number,
  ) {
    super(`the render queue is full (${maxWaiting} waiting, RENDER_MAX_WAITING); retry after ${retryAfterSeconds} s`);
    this.name = 'RenderQueueFullError';
  }
}

/** The render ran past RENDER_TIMEOUT_SECONDS and was stopped: the templates answer 504. */
export class RenderTimeoutError extends Error {
  constructor(timeoutSeconds: number) {
    super(`render timed out after ${timeoutSeconds} s (RENDER_TIMEOUT_SECONDS) and was stopped; render a shorter or smaller composition, or raise the limit`);
    this.name = 'RenderTimeoutError';
  }
}

/** A `vidkit render` that exited non-zero, named by the last line of its stderr (`vidkit: error: ...`). */
export function renderFailed(stderr: string, exitCode: number | null): Error {
  const last = stderr.trim().split('\n').filter(Boolean).pop() ?? '';
  return new Error(`render failed (exit ${exitCode}): ${last}`);
}

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: { error: string };
}

/**
 * How `POST /api/render` answers an error: 400 bad request, 429 queue full, 504 timeout, else 500.
 * Errors are told apart by name, not class: a bundled template (Next.js) holds its own copy of
 * these classes beside the one the renderer, loaded by Node, throws.
 */
export function renderErrorAnswer(err: unknown): ErrorAnswer {
  const error = err instanceof Error ? err.message : String(err);
  const name = err instanceof Error ? err.name : '';
  if (name === 'RenderRequestError') return { status: 400, headers: {}, body: { error } };
  if (name === 'RenderQueueFullError') return { status: 429, headers: { 'retry-after': String((err as RenderQueueFullError).retryAfterSeconds) }, body: { error } };
  if (name === 'RenderTimeoutError') return { status: 504, headers: {}, body: { error } };
  return { status: 500, headers: {}, body: { error } };
}
