import { ExitCode, VidkitError } from '../errors';
import type { ExecutionInput, RenderConfig } from './render-input';

/** Standard workflow executions take at most this many bytes of input (SPEC.md 8). */
export const EXECUTION_INPUT_LIMIT = 262144;
export const DEFAULT_MAX_PARALLEL_CHUNKS = 16;
export const DEFAULT_CHUNK_SIZE = 240;
/** Formats that exist but are rendered in-process only. */
const LOCAL_ONLY_FORMATS = ['mp4-hdr', 'hdr-mp4', 'hdr'];

/** The SDK's `config` as a caller writes it (SPEC.md 2.6); validated by {@link resolveConfig}. */
export interface RenderConfigInput {
  fps?: number;
  width?: number;
  height?: number;
  format?: string;
  variables?: Record<string, unknown>;
  chunkSize?: number;
  maxParallelChunks?: number;
  targetChunkFrames?: number;
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

/** Checks each field and applies the defaults of SPEC.md 2.6. Makes no request. */
export function resolveConfig(input: RenderConfigInput | undefined): RenderConfig {
  const c = input ?? {};
  if (typeof c !== 'object' || Array.isArray(c)) throw configError('', 'must be an object');
  const format = c.format ?? 'mp4';
  if (LOCAL_ONLY_FORMATS.includes(format)) {
    throw configError('format', `HDR mp4 ("${format}") is not supported in distributed mode; render it in-process with \`vidkit render\``);
  }
  if (format !== 'mp4') throw configError('format', `must be "mp4", got ${JSON.stringify(format)}`);
  const variables = c.variables ?? {};
  if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) {
    throw configError('variables', 'must be an object of variable values');
  }
  if (c.fps !== undefined && !(typeof c.fps === 'number' && c.fps > 0 && c.fps <= 240)) {
    throw configError('fps', `must be a number above 0 and at most 240, got ${JSON.stringify(c.fps)}`);
  }
  return {
    fps: c.fps,
    width: evenPixels(c.width, 'width'),
    height: evenPixels(c.height, 'height'),
    format: 'mp4',
    variables,
    chunkSize: positiveInt(c.chunkSize, 'chunkSize'),
    maxParallelChunks: positiveInt(c.maxParallelChunks, 'maxParallelChunks') ?? DEFAULT_MAX_PARALLEL_CHUNKS,
    targetChunkFrames: positiveInt(c.targetChunkFrames, 'targetChunkFrames'),
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
        'pass media as URL references (the chunk function fetches them while rendering) instead of inlining them, e.g. as base64, in variables',
    );
  }
  return body;
}
