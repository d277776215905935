import { badInput } from '../errors';

/** How much render work one template process takes on (templates/README.md, "Load limits"). */
export interface RenderLimits {
  /** Renders that may wait behind the running one; one more is answered 429. */
  maxWaiting: number;
  /** A render running longer is stopped (its whole process tree) and answered 504. */
  timeoutSeconds: number;
}

export const DEFAULT_MAX_WAITING = 8;
export const DEFAULT_RENDER_TIMEOUT_SECONDS = 600;

function wholeNumber(env: Record<string, string | undefined>, name: string, fallback: number, min: number): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  if (!/^[0-9]+$/.test(value) || Number(value) < min) throw badInput(`${name} must be a whole number of at least ${min}, got "${value}"`);
  return Number(value);
}

/** `RENDER_MAX_WAITING`: renders that may wait behind the running one (default 8); the preview's queue is bound by it too. */
export function renderMaxWaiting(env: Record<string, string | undefined>): number {
  return wholeNumber(env, 'RENDER_MAX_WAITING', DEFAULT_MAX_WAITING, 0);
}

/** `RENDER_MAX_WAITING` (default 8) and `RENDER_TIMEOUT_SECONDS` (default 600, or the template's own). */
export function renderLimits(env: Record<string, string | undefined>, defaults: { timeoutSeconds?: number } = {}): RenderLimits {
  return {
    maxWaiting: renderMaxWaiting(env),
    timeoutSeconds: wholeNumber(env, 'RENDER_TIMEOUT_SECONDS', defaults.timeoutSeconds ?? DEFAULT_RENDER_TIMEOUT_SECONDS, 1),
  };
}
