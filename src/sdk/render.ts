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
import { resolveOutputSize } from '../render/output-size';
import type { ExecutionInput } from './render-input';
import { SiteHandle, requireBucket } from './site';
import { RenderConfigInput, checkInputSize, resolveConfig } from './validate-config';

export interface RenderToLambdaInput {
  siteHandle: Pick<SiteHandle, 'siteId' | 'prefix' | 'composition'>;
  /** Default: VIDKIT_BUCKET. */
  bucketName?: string;
  /** Default: VIDKIT_SFN_ARN. */
  stateMachineArn?: string;
  config?: RenderConfigInput;
  outputKey: string;
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
  /** Output size. */
  width: number;
  height: number;
}

/** Conservative capture-and-encode cost of one frame per megapixel on a 10 GB function (6 vCPU). */
const SECONDS_PER_MEGAPIXEL_FRAME = 0.25;
const CHUNK_CAP_SECONDS = 15 * 60;
/** Warn well before the cap: cold starts and slow pages eat the rest. */
const CHUNK_WARN_SECONDS = 0.8 * CHUNK_CAP_SECONDS;

export function requireStateMachine(stateMachineArn: string | undefined): string {
  const arn = stateMachineArn ?? process.env.VIDKIT_SFN_ARN;
  if (!arn) throw badInput('no state machine: pass stateMachineArn (--state-machine-arn) or set VIDKIT_SFN_ARN to the RenderStateMachineArn that `vidkit cloudfn deploy` printed');
  return arn;
}

/**
 * Everything about a render that can be known without a request: the resolved config, the
 * execution input (size-checked) and the chunk plan. `[validateConfig] config:` errors come from here.
 */
export function validateConfig(input: Omit<RenderToLambdaInput, 'onWarning' | 'stateMachineArn'>): RenderPlan {
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
  const chunks =
    totalFrames === undefined
      ? { length: config.maxParallelChunks }
      : loadNative().planChunks({
          totalFrames,
          maxParallelChunks: config.maxParallelChunks,
          chunkSize: config.chunkSize,
          targetChunkFrames: config.targetChunkFrames,
        });
  const executionInput: ExecutionInput = {
    render: {
      renderId: randomBytes(8).toString('hex'),
      bucket,
      site: { siteId: input.siteHandle.siteId, prefix: input.siteHandle.prefix },
      outputKey: input.outputKey,
      config,
      encode: QUALITY_SETTINGS.standard,
    },
  };
  const body = checkInputSize(executionInput);
  return { input: executionInput, body, totalFrames, chunks: chunks.length, width: size.width, height: size.height };
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

/** Starts one Standard execution of the render state machine and returns at once. */
export async function renderToLambda(input: RenderToLambdaInput): Promise<RenderHandle> {
  const plan = validateConfig(input);
  const stateMachineArn = requireStateMachine(input.stateMachineArn);
  await preflightWarnings(plan, stateMachineArn, (message) => input.onWarning?.(message));
  return startRender(plan, stateMachineArn);
}
