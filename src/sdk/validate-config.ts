import { ExitCode, VidkitError } from '../errors';
import { OutputFormat, assertDistributedFormat } from '../values/formats';
import { FPS_RULE, TIMEOUT_RULE, isValidFps, isValidTimeoutSeconds } from '../options/checks';
import { InputLimits, checkVariables, inputLimits } from '../options/input-limits';
import { DEFAULT_MAX_PARALLEL_CHUNKS } from '../values/constants';
import type { ApiOptions } from '../options/registry';
import type { PageTimeouts } from '../values/page-timeouts';
import { EPOCH_FORMS, parseEpoch } from '../runtime/boot';
import type { ExecutionInput, RenderConfig } from './render-input';

/** Standard workflow executions take at most this many bytes of input. */
export const EXECUTION_INPUT_LIMIT = 262144;
/**
 * The SDK's `config` as a caller writes it: the render options the table marks for cloud renders
 * (docs/reference/render-options.md), validated by {@link resolveConfig}. Format and variables are
 * typed loosely here because they arrive from JSON and are checked below.
 */
export interface RenderConfigInput extends Omit<ApiOptions<'sdk'>, 'format' | 'variables'> {
  format?: string;
  variables?: Record<string, unknown>;
  /** Page deadlines of each chunk in milliseconds, as render() takes them; default 60 s to load, 30 s a frame. */
  timeouts?: Partial<PageTimeouts>;
}

function configError(field: string, message: string): VidkitError {
  return new VidkitError(`[validateConfig] config${field ? `.${field}` : ''}: ${message}`, { exitCode: ExitCode.BadInput });
}

function positiveInt(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw configError(field, `must be a whole number of at least 1, got ${JSON.stringify(value)}`);
  return value;
}

function evenPixels(value: unknown, field: string): number | undefined {
  const n = positiveInt(value, field);
  if (n !== undefined && n % 2 !== 0) throw configError(field, `must be an even number of pixels (H.264 yuv420p), got ${n}`);
  return n;
}

/** `config.epoch` in ms, or undefined when unset. */
function epochOf(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const ms = typeof value === 'string' || typeof value === 'number' ? parseEpoch(value) : undefined;
  if (ms === undefined) throw configError('epoch', `must be ${EPOCH_FORMS}, got ${JSON.stringify(value)}`);
  return ms;
}

/**
 * `config.format` (and `cloudfn render --format`): a name of `vidkit render --format` that the
 * distributed path can join by stream copy; src/values/formats.ts decides which.
 */
export function resolveFormat(value: unknown): OutputFormat {
  const format = value ?? 'mp4';
  if (typeof format !== 'string') throw configError('format', `must be a string, got ${JSON.stringify(format)}`);
  try {
    assertDistributedFormat(format);
  } catch (err) {
    if (err instanceof VidkitError) throw configError('format', err.message);
    throw err;
  }
  return format;
}

/** Checks each field and applies the documented defaults. Makes no request. */
export function resolveConfig(input: RenderConfigInput | undefined): RenderConfig {
  const c = input ?? {};
  if (typeof c !== 'object' || Array.isArray(c)) throw configError('', 'must be an object');
  const format = resolveFormat(c.format);
  const variables = c.variables ?? {};
  if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) {
    throw configError('variables', 'must be an object of variable values');
  }
  const limits = checkedLimits(c);
  checkVariables(variables, '[validateConfig] config.variables', limits);
  if (c.fps !== undefined && !isValidFps(c.fps)) throw configError('fps', `must be ${FPS_RULE}, got ${JSON.stringify(c.fps)}`);
  if (c.seed !== undefined && typeof c.seed !== 'string') throw configError('seed', `must be a string, got ${JSON.stringify(c.seed)}`);
  return {
    fps: c.fps,
    width: evenPixels(c.width, 'width'),
    height: evenPixels(c.height, 'height'),
    format,
    variables,
    chunkSize: positiveInt(c.chunkSize, 'chunkSize'),
    maxParallelChunks: positiveInt(c.maxParallelChunks, 'maxParallelChunks') ?? DEFAULT_MAX_PARALLEL_CHUNKS,
    targetChunkFrames: positiveInt(c.targetChunkFrames, 'targetChunkFrames'),
    seed: c.seed,
    epochMs: epochOf(c.epoch),
    ...(c.maxVariableBytes === undefined ? {} : { maxVariableBytes: limits.variableBytes }),
    ...(c.maxVariablesBytes === undefined ? {} : { maxVariablesBytes: limits.variablesBytes }),
    ...(c.timeouts === undefined ? {} : { timeouts: timeoutsOf(c.timeouts) }),
  };
}

/** `config.maxVariableBytes` and `config.maxVariablesBytes`, or the defaults. */
function checkedLimits(c: RenderConfigInput): InputLimits {
  try {
    return inputLimits(c);
  } catch (err) {
    if (err instanceof VidkitError) throw configError('', err.message);
    throw err;
  }
}

/** `config.timeouts`: milliseconds of each page deadline, within the CLI's range. */
function timeoutsOf(value: unknown): Partial<PageTimeouts> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw configError('timeouts', 'must be an object {loadMs?, frameMs?}');
  const timeouts: Partial<PageTimeouts> = {};
  for (const [key, ms] of Object.entries(value)) {
    if (key !== 'loadMs' && key !== 'frameMs') throw configError('timeouts', `has unknown field ${JSON.stringify(key)}; it takes loadMs and frameMs`);
    if (typeof ms !== 'number' || !isValidTimeoutSeconds(ms / 1000)) throw configError(`timeouts.${key}`, `must be milliseconds: ${TIMEOUT_RULE}, times 1000, got ${JSON.stringify(ms)}`);
    timeouts[key] = ms;
  }
  return timeouts;
}

/**
 * The whole serialised execution input must fit a Standard execution. Checked before any request,
 * so an oversized render fails here with advice rather than in StartExecution.
 */
export function checkInputSize(input: ExecutionInput): string {
  const body = JSON.stringify(input);
  const bytes = Buffer.byteLength(body, 'utf8');
  if (bytes > EXECUTION_INPUT_LIMIT) {
    throw configError(
      '',
      `the serialised execution input is ${bytes} bytes, over the limit of ${EXECUTION_INPUT_LIMIT} bytes (256 KiB) of a workflow execution; ` +
        'pass media as URL references (the chunk function fetches them while rendering) instead of inlining them, e.g. as base64, in variables; ' +
        'or host the variables in the render bucket with --host-large-variables (SDK hostLargeVariables: true)',
    );
  }
  return body;
}

/** Whether the serialised input fits a Standard execution. */
export function fitsExecutionInput(input: ExecutionInput): boolean {
  return Buffer.byteLength(JSON.stringify(input), 'utf8') <= EXECUTION_INPUT_LIMIT;
}
