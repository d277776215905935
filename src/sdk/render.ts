import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { GetFunctionConcurrencyCommand, InvokeCommand } from '@aws-sdk/client-lambda';
import { DescribeStateMachineCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { totalFrames as framesOf } from '../composition/composition';
import { badInput } from '../errors';
import { loadNative } from '../native';
import { formatExtension } from '../values/formats';
import { QUALITY_SETTINGS } from '../values/quality';
import { awsClients } from './aws-clients';
import { SECONDS_PER_MEGAPIXEL_FRAME } from './estimate';
import { resolveOutputSize } from '../values/output-size';
import { putJson } from './bucket-files';
import { DirectRecord, ExecutionInput, PAYLOAD_VERSION, renderKeys } from './render-input';
import { SiteHandle, requireBucket } from './site';
import { resolveTarget } from './stack';
import { RenderConfigInput, checkInputSize, fitsExecutionInput, resolveConfig } from './validate-config';
import { WebhookOptions, checkWebhook } from './webhook';
import type { RenderEvent } from './render-event';

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
  /** Posted by the render function when the render succeeds or fails, signed with `secret` (docs/guide/cloud.md, Completion webhook). */
  webhook?: WebhookOptions;
  /** Warnings found before starting (reserved concurrency, the 15-minute chunk cap). */
  onWarning?: (message: string) => void;
  /**
   * When the execution input would exceed 256 KiB, put the variables in the render bucket and pass
   * their key instead (docs/guide/cloud.md, Large variables); without it such a render is refused.
   */
  hostLargeVariables?: boolean;
  /**
   * Run a render that plans to one chunk as one invocation of the render function, without the
   * state machine (docs/guide/cloud.md, Direct renders): no execution, so `executionArn` is null.
   */
  direct?: boolean;
  /** The batch run the render belongs to (render-batch sets it): its end is counted there. */
  batch?: { batchId: string };
  /** The segments its batch shares between rows (render-batch sets it: batch-reuse.ts). */
  reuse?: ExecutionInput['render']['reuse'];
}

/** What `renderToLambda` returns; `getRenderProgress` takes the renderId or the executionArn. */
export interface RenderHandle {
  renderId: string;
  /** Null for a direct render, which runs without an execution: its renderId names it. */
  executionArn: string | null;
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
  /** The variables object to put in the bucket before starting, when it is hosted there. */
  hostedVariables?: { key: string; body: string };
  /** Runs as one function invocation, without the state machine. */
  direct: boolean;
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
  const renderId = randomBytes(8).toString('hex');
  const chunks = chunkFrames?.length ?? config.maxParallelChunks;
  if (input.direct && chunks !== 1) {
    throw badInput(
      chunkFrames === undefined
        ? 'direct renders need a known length: the composition declares no data-duration, so its chunks are planned on the page; render it through the state machine (without direct)'
        : `a direct render runs as one chunk, and this one plans to ${chunks} (${totalFrames} frames): raise the chunk size (cloudfn render --chunk-size, SDK config.chunkSize) to at least ${totalFrames}, or render it without direct`,
    );
  }
  const executionInput: ExecutionInput = {
    version: PAYLOAD_VERSION,
    render: {
      renderId,
      bucket,
      site: { siteId: input.siteHandle.siteId, prefix: input.siteHandle.prefix },
      outputKey: input.outputKey,
      config,
      encode: QUALITY_SETTINGS.standard,
      ...(input.webhook === undefined ? {} : { webhook: checkWebhook(input.webhook) }),
      ...(input.batch === undefined ? {} : { batch: { batchId: input.batch.batchId } }),
      ...(input.reuse === undefined ? {} : { reuse: input.reuse }),
    },
  };
  let hostedVariables: RenderPlan['hostedVariables'];
  if (input.hostLargeVariables && !fitsExecutionInput(executionInput)) {
    const body = JSON.stringify(config.variables);
    const key = renderKeys.variables(renderId);
    hostedVariables = { key, body };
    executionInput.render = { ...executionInput.render, config: { ...config, variables: {} }, hostedVariables: { key, bytes: Buffer.byteLength(body, 'utf8') } };
  }
  const body = checkInputSize(executionInput);
  return { input: executionInput, body, totalFrames, chunks, chunkFrames, width: size.width, height: size.height, hostedVariables, direct: input.direct ?? false };
}

/** Seconds one invocation takes by estimate to draw `frames` frames of `width` x `height`. */
export function invocationSeconds(frames: number, width: number, height: number): number {
  return frames * ((width * height) / 1e6) * SECONDS_PER_MEGAPIXEL_FRAME;
}

/** Whether one invocation drawing `frames` frames would likely outrun the 15-minute function cap. */
export function overInvocationCap(frames: number, width: number, height: number): boolean {
  return invocationSeconds(frames, width, height) > CHUNK_WARN_SECONDS;
}

/** A warning for a chunk plan whose chunks would likely outrun the 15-minute function cap. */
export function chunkTimeWarning(plan: RenderPlan): string | undefined {
  if (plan.totalFrames === undefined) return undefined;
  const framesPerChunk = Math.ceil(plan.totalFrames / plan.chunks);
  const { width, height } = plan;
  if (!overInvocationCap(framesPerChunk, width, height)) return undefined;
  const estimate = invocationSeconds(framesPerChunk, width, height);
  return (
    `chunks of ${framesPerChunk} frames at ${width}x${height} may outrun the 15-minute function cap (about ${Math.round(estimate / 60)} min each by estimate); ` +
    'use more, shorter chunks: raise --max-parallel-chunks, or set --target-chunk-frames'
  );
}

/** The render function the state machine invokes, read from its definition once per process. */
const renderFunctions = new Map<string, Promise<string | undefined>>();

export function renderFunctionOf(stateMachineArn: string): Promise<string | undefined> {
  let name = renderFunctions.get(stateMachineArn);
  if (!name) {
    name = awsClients()
      .sfn.send(new DescribeStateMachineCommand({ stateMachineArn }))
      .then((sm) => JSON.parse(sm.definition ?? '{}')?.States?.Plan?.Parameters?.FunctionName as string | undefined);
    renderFunctions.set(stateMachineArn, name);
    name.catch(() => renderFunctions.delete(stateMachineArn));
  }
  return name;
}

/** The render function, or an error saying it cannot be found (a direct render, a batch's event). */
export async function requireRenderFunction(stateMachineArn: string): Promise<string> {
  const name = await renderFunctionOf(stateMachineArn);
  if (!name) throw new Error(`the state machine ${stateMachineArn} names no render function in its Plan step: redeploy it with \`vidkit cloudfn deploy\``);
  return name;
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

/** The warnings that apply before starting: the 15-minute chunk cap (no request needed), then reserved concurrency. */
export async function preflightWarnings(plan: RenderPlan, stateMachineArn: string, onWarning: (message: string) => void): Promise<void> {
  const slow = chunkTimeWarning(plan);
  if (slow) onWarning(slow);
  const throttled = await concurrencyWarning(stateMachineArn, plan.chunks);
  if (throttled) onWarning(throttled);
}

/**
 * Starts a validated render and returns at once: one Standard execution, or for a direct render
 * one asynchronous invocation of the render function (its input written first where `progress`
 * reads it). Hosted variables are put in the bucket before either.
 */
export async function startRender(plan: RenderPlan, stateMachineArn: string): Promise<RenderHandle> {
  const { render } = plan.input;
  if (plan.hostedVariables) await putJson(render.bucket, plan.hostedVariables.key, JSON.parse(plan.hostedVariables.body));
  const handle = { renderId: render.renderId, bucketName: render.bucket, outputKey: render.outputKey, totalFrames: plan.totalFrames, chunks: plan.chunks };
  if (plan.direct) {
    const functionName = await requireRenderFunction(stateMachineArn);
    await putJson(render.bucket, renderKeys.direct(render.renderId), { ...plan.input, startedAt: new Date().toISOString() } satisfies DirectRecord);
    await awsClients().lambda.send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'Event', Payload: JSON.stringify({ version: PAYLOAD_VERSION, mode: 'direct', render } satisfies RenderEvent) }));
    return { ...handle, executionArn: null };
  }
  const started = await awsClients().sfn.send(new StartExecutionCommand({ stateMachineArn, name: render.renderId, input: plan.body }));
  return { ...handle, executionArn: started.executionArn! };
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
