import { ExitCode, VidkitError } from '../errors';
import { OutputFormat, assertDistributedFormat } from '../values/formats';
import { checkVariables } from '../options/input-limits';
import { DEFAULT_MAX_PARALLEL_CHUNKS } from '../values/constants';
import { configOptionValues } from '../options/config-fields';
import type { ApiOptions } from '../options/registry';
import { resolveRenderSettings } from '../options/resolve';
import type { PageTimeouts } from '../values/page-timeouts';
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

/**
 * `config.format` (and `cloudfn render --format`), read by the options check: a format the
 * distributed path can join by stream copy; src/values/formats.ts decides which.
 */
export function resolveFormat(format: OutputFormat): OutputFormat {
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
  const { values, format: given, inputLimits: limits, timeouts } = resolveRenderSettings('sdk', c);
  const format = resolveFormat(given);
  const variables = c.variables ?? {};
  if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) {
    throw configError('variables', 'must be an object of variable values');
  }
  checkVariables(variables, '[validateConfig] config.variables', limits);
  return {
    ...configOptionValues(values),
    format,
    variables,
    maxParallelChunks: values.maxParallelChunks ?? DEFAULT_MAX_PARALLEL_CHUNKS,
    ...(c.timeouts === undefined ? {} : { timeouts }),
  };
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
