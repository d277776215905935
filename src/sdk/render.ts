import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { GetFunctionConcurrencyCommand } from '@aws-sdk/client-lambda';
import { DescribeStateMachineCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { totalFrames as framesOf } from '../composition/composition';
import { badInput } from '../errors';
import { loadNative } from '../native';
import { formatExtension } from '../render/formats';
import { QUALITY_SETTINGS } from '../render/quality';
import { awsClients } from './aws-clients';
import { SECONDS_PER_MEGAPIXEL_FRAME } from './estimate';
import { resolveOutputSize } from '../render/output-size';
import type { ExecutionInput } from './render-input';
import { SiteHandle, requireBucket } from './site';
import { resolveTarget } from './stack';
import { RenderConfigInput, checkInputSize, resolveConfig } from './validate-config';
import { WebhookOptions, checkWebhook } from './webhook';

export interface RenderToLambdaInput {
  siteHandle: Pick<SiteHandle, 'siteId' | 'prefix' | 'composition'>;
  /** Default: VIDKIT_BUCKET, else the stack's RenderBucketName. */
  bucketName?: string;
  /** Default: VIDKIT_SFN_ARN, else the stack's RenderStateMachineArn. */
  stateMachineArn?: string;
  /** The deployed stack the bucket and state machine are read from when not given (default vidkit-render). */
  stackName?: string;
  config?: RenderConfigInput;
  outputKey: string;
  /** Posted by the render function when the render succeeds or fails, signed with `secret` (README "Completion webhook"). */
  webhook?: WebhookOptions;
  /** Warnings found before starting (reserved concurrency, the 15-minute chunk cap). */
  onWarning?: (message: string) => void;
}

/** What `renderToLambda` returns; `getRenderProgress` takes the renderId or the executionArn. */
export interface RenderHandle {
  renderId: string;
  executionArn: string;
  bucketName: string;
  outputKey: string;
  /** Undefined when the composition declares no data-duration: the plan step measures its page. */
  totalFrames?: number;
  /** Chunks, or at most this many when `totalFrames` is undefined. */
  chunks: number;
}

/** A render as far as it can be known without a request. */
export interface RenderPlan {
  input: ExecutionInput;
  /** The serialised input, size-checked. */
  body: string;
  /** Undefined when the composition declares no data-duration: the plan step measures its page. */
  totalFrames?: number;
  /** Chunks, or at most this many when `totalFrames` is undefined. */
  chunks: number;
  /** Frames of each chunk, as the native planner splits them; undefined with `totalFrames`. */
  chunkFrames?: number[];
  /** Output size. */
  width: number;
  height: number;
}

const CHUNK_CAP_SECONDS = 15 * 60;
/** Warn well before the cap: cold starts and slow pages eat the rest. */
const CHUNK_WARN_SECONDS = 0.8 * CHUNK_CAP_SECONDS;

/** S3 bucket names are at most 63 characters: an input that fits with a name this long fits with the real one. */
const LONGEST_BUCKET_NAME = 'b'.repeat(63);

/**
 * Everything about a render that can be known without a request: the resolved config, the
 * execution input (size-checked) and the chunk plan. `[validateConfig] config:` errors come from here.
 */
export function validateConfig(input: Omit<RenderToLambdaInput, 'onWarning' | 'stateMachineArn' | 'stackName'>): RenderPlan {
  const config = resolveConfig(input.config);
  const bucket = requireBucket(input.bucketName);
  if (typeof input.outputKey !== 'string' || input.outputKey === '' || input.outputKey.startsWith('/')) {
    throw badInput(`outputKey must be an object key such as renders/name.mp4, got ${JSON.stringify(input.outputKey)}`);
  }
  const extension = formatExtension(config.format);
  if (path.posix.extname(input.outputKey).toLowerCase() !== extension) {
    throw badInput(`outputKey ${input.outputKey} does not match format ${config.format}: name a ${extension} object`);
  }
  const { composition } = input.siteHandle;
  const size = resolveOutputSize(composition, config.width, config.height);
  const fps = config.fps ?? composition.fps;
  const totalFrames = composition.durationSeconds === undefined ? undefined : framesOf(composition.durationSeconds, fps);
  const chunkFrames =
    totalFrames === undefined
      ? undefined
      : loadNative()
          .planChunks({
            totalFrames,
            maxParallelChunks: config.maxParallelChunks,
            chunkSize: config.chunkSize,
            targetChunkFrames: config.targetChunkFrames,
          })
          .map((c) => c.endFrame - c.startFrame);
  const executionInput: ExecutionInput = {
    render: {
      renderId: randomBytes(8).toString('hex'),
      bucket,
      site: { siteId: input.siteHandle.siteId, prefix: input.siteHandle.prefix },
      outputKey: input.outputKey,
      config,
      encode: QUALITY_SETTINGS.standard,
      ...(input.webhook === undefined ? {} : { webhook: checkWebhook(input.webhook) }),
    },
  };
  const body = checkInputSize(executionInput);
  return { input: executionInput, body, totalFrames, chunks: chunkFrames?.length ?? config.maxParallelChunks, chunkFrames, width: size.width, height: size.height };
}

/** SPEC.md 7: a chunk plan whose chunks would likely outrun the 15-minute function cap. */
export function chunkTimeWarning(plan: RenderPlan): string | undefined {
  if (plan.totalFrames === undefined) return undefined;
  const framesPerChunk = Math.ceil(plan.totalFrames / plan.chunks);
  const { width, height } = plan;
  const estimate = framesPerChunk * ((width * height) / 1e6) * SECONDS_PER_MEGAPIXEL_FRAME;
  if (estimate <= CHUNK_WARN_SECONDS) return undefined;
  return (
    `chunks of ${framesPerChunk} frames at ${width}x${height} may outrun the 15-minute function cap (about ${Math.round(estimate / 60)} min each by estimate); ` +
    'use more, shorter chunks: raise --max-parallel-chunks, or set --target-chunk-frames'
  );
}

/** The render function the state machine invokes, read from its definition. */
async function renderFunctionOf(stateMachineArn: string): Promise<string | undefined> {
  const sm = await awsClients().sfn.send(new DescribeStateMachineCommand({ stateMachineArn }));
  const definition = JSON.parse(sm.definition ?? '{}');
  return definition?.States?.Plan?.Parameters?.FunctionName;
}

async function concurrencyWarning(stateMachineArn: string, fanOut: number): Promise<string | undefined> {
  const functionName = await renderFunctionOf(stateMachineArn);
  if (!functionName) return undefined;
  const got = await awsClients().lambda.send(new GetFunctionConcurrencyCommand({ FunctionName: functionName }));
  const reserved = got.ReservedConcurrentExecutions;
  if (reserved === undefined || reserved >= fanOut) return undefined;
  return (
    `the render function's reserved concurrency is ${reserved}, below this render's fan-out of ${fanOut} chunks: a single render will be throttled; ` +
    `raise it with \`vidkit cloudfn deploy --concurrency=${fanOut}\` (or more, for renders at once) or lower --max-parallel-chunks`
  );
}

/** The warnings of SPEC.md 7 that apply before starting: the 15-minute chunk cap (no request needed), then reserved concurrency. */
export async function preflightWarnings(plan: RenderPlan, stateMachineArn: string, onWarning: (message: string) => void): Promise<void> {
  const slow = chunkTimeWarning(plan);
  if (slow) onWarning(slow);
  const throttled = await concurrencyWarning(stateMachineArn, plan.chunks);
  if (throttled) onWarning(throttled);
}

/** Starts the Standard execution of a validated render and returns at once. */
export async function startRender(plan: RenderPlan, stateMachineArn: string): Promise<RenderHandle> {
  const { renderId } = plan.input.render;
  const started = await awsClients().sfn.send(new StartExecutionCommand({ stateMachineArn, name: renderId, input: plan.body }));
  return {
    renderId,
    executionArn: started.executionArn!,
    bucketName: plan.input.render.bucket,
    outputKey: plan.input.render.outputKey,
    totalFrames: plan.totalFrames,
    chunks: plan.chunks,
  };
}

/**
 * {@link validateConfig} when the bucket may still have to be read from the stack: every check, the
 * 256 KiB one included, before any request (the stack's description included).
 */
export function validateBeforeRequests(input: Omit<RenderToLambdaInput, 'onWarning' | 'stateMachineArn' | 'stackName'>): RenderPlan {
  return validateConfig({ ...input, bucketName: input.bucketName ?? (process.env.VIDKIT_BUCKET || LONGEST_BUCKET_NAME) });
}

/** Starts one Standard execution of the render state machine and returns at once. */
export async function renderToLambda(input: RenderToLambdaInput): Promise<RenderHandle> {
  validateBeforeRequests(input);
  const { bucketName, stateMachineArn } = await resolveTarget(input);
  const plan = validateConfig({ ...input, bucketName });
  await preflightWarnings(plan, stateMachineArn, (message) => input.onWarning?.(message));
  return startRender(plan, stateMachineArn);
}
