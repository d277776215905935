import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { badInput } from '../errors';
import { MissingGlyphs, mergeMissingGlyphs } from '../render/capture/missing-glyphs';
import { awsClients } from './aws-clients';
import { ChunkProgressRecord, DirectRecord, DirectResult, ExecutionInput, PlanRecord, PlannedReuse, RenderJob, renderKeys } from './render-input';
import { resolveBucket, resolveStateMachine } from './stack';

/**
 * Where a render stands. `planning` until the plan is written, `rendering` while chunks run,
 * `assembling` once every chunk is done, then `done`, `failed`, `timed-out` or `aborted`.
 */
export type RenderStatus = 'planning' | 'rendering' | 'assembling' | 'done' | 'failed' | 'timed-out' | 'aborted';

export interface RenderProgress {
  renderId: string;
  /** Null for a direct render: it runs without an execution. */
  executionArn: string | null;
  status: RenderStatus;
  chunks: { done: number; total: number };
  frames: { rendered: number; total: number };
  /** Whole percent; 100 only when the output exists. */
  percent: number;
  /** When done. */
  output?: { bucket: string; key: string; url: string; frames: number; bytes: number };
  /** When failed, timed out or aborted: the execution's error and its cause. */
  error?: string;
  /** Text that no font could draw, as the chunks done so far found it (docs/explanation/fonts.md); absent when none. */
  missingGlyphs?: MissingGlyphs[];
  /** A render of a batch that shares segments, once planned: what it takes from them (docs/guide/cloud-batch.md). */
  reuse?: Omit<PlannedReuse, 'own' | 'missingGlyphs'>;
}

const FINAL: Record<string, RenderStatus> = { SUCCEEDED: 'done', FAILED: 'failed', TIMED_OUT: 'timed-out', ABORTED: 'aborted' };

/** An execution ARN from either identifier: a render id is the execution's name. */
export async function executionArnOf(id: string, stateMachineArn?: string, stackName?: string): Promise<string> {
  if (id.startsWith('arn:')) {
    if (!/^arn:[^:]+:states:[^:]*:[^:]*:execution:[^:]+:[^:]+$/.test(id)) throw badInput(`not a Step Functions execution ARN: ${id}`);
    return id;
  }
  if (!/^[0-9a-f]{16}$/.test(id)) throw badInput(`expected a render id (16 hex digits) or an execution ARN, got "${id}"`);
  const machine = await resolveStateMachine(stateMachineArn, stackName);
  return `${machine.replace(':stateMachine:', ':execution:')}:${id}`;
}

/**
 * Reads the execution (DescribeExecution) and the plan and chunk records the render writes to its
 * bucket. A render id that names no execution may name a direct render: its records in the bucket
 * (`bucketName`, else VIDKIT_BUCKET, else the stack's) tell the same.
 */
export async function getRenderProgress(opts: { renderId?: string; executionArn?: string; stateMachineArn?: string; stackName?: string; bucketName?: string }): Promise<RenderProgress> {
  const id = opts.executionArn ?? opts.renderId;
  if (!id) throw badInput('getRenderProgress needs a renderId or an executionArn');
  const executionArn = await executionArnOf(id, opts.stateMachineArn, opts.stackName);
  let execution;
  try {
    execution = await awsClients().sfn.send(new DescribeExecutionCommand({ executionArn }));
  } catch (err) {
    if ((err as { name?: string }).name !== 'ExecutionDoesNotExist') throw err;
    const direct = id.startsWith('arn:') ? undefined : await directProgress(await resolveBucket(opts.bucketName, opts.stackName), id);
    if (direct) return direct;
    throw badInput(`no render ${id}: the execution does not exist`);
  }
  const { render } = JSON.parse(execution.input ?? '{}') as ExecutionInput;
  const final = FINAL[execution.status ?? ''];
  const progress = await bucketProgress(render, executionArn, final);
  if (progress.status === 'done') {
    const out = JSON.parse(execution.output ?? '{}') as { bucket: string; outputKey: string; frames: number; bytes: number };
    progress.output = { bucket: out.bucket, key: out.outputKey, url: `s3://${out.bucket}/${out.outputKey}`, frames: out.frames, bytes: out.bytes };
  } else if (final) {
    progress.error = [execution.error, causeMessage(execution.cause)].filter(Boolean).join(': ') || `execution ${execution.status}`;
  }
  return progress;
}

/** Whether a render still runs, and if not how it ended: one request for an execution, a few reads for a direct render. */
export type RenderState = 'running' | 'done' | 'failed' | 'aborted';

export async function renderState(ref: { renderId: string; executionArn: string | null }, bucket: string): Promise<RenderState> {
  if (ref.executionArn) {
    const { status } = await awsClients().sfn.send(new DescribeExecutionCommand({ executionArn: ref.executionArn }));
    return status === 'RUNNING' || status === 'PENDING_REDRIVE' ? 'running' : status === 'SUCCEEDED' ? 'done' : status === 'ABORTED' ? 'aborted' : 'failed';
  }
  const progress = await directProgress(bucket, ref.renderId);
  if (!progress) return 'failed';
  return progress.status === 'done' ? 'done' : progress.status === 'aborted' ? 'aborted' : ['failed', 'timed-out'].includes(progress.status) ? 'failed' : 'running';
}

/** A Lambda invocation lasts at most 15 minutes: a direct render with no outcome after this has died. */
const DIRECT_DEADLINE_MS = 16 * 60 * 1000;

/** A direct render's progress from its records, or undefined when the bucket has none of that id. */
async function directProgress(bucket: string, renderId: string): Promise<RenderProgress | undefined> {
  const record = await readJsonIn<DirectRecord>(bucket, renderKeys.direct(renderId));
  if (!record) return undefined;
  const { render } = record;
  const [result, cancelled] = await Promise.all([readJsonIn<DirectResult>(bucket, renderKeys.result(renderId)), readJsonIn<unknown>(bucket, renderKeys.cancel(renderId))]);
  const overdue = Date.now() - Date.parse(record.startedAt) > DIRECT_DEADLINE_MS;
  const final: RenderStatus | undefined = result
    ? ({ done: 'done', failed: 'failed', aborted: 'aborted' } as const)[result.status]
    : cancelled
      ? 'aborted'
      : overdue
        ? 'timed-out'
        : undefined;
  const progress = await bucketProgress(render, null, final);
  if (result?.output) {
    const out = result.output;
    progress.output = { bucket: out.bucket, key: out.outputKey, url: `s3://${out.bucket}/${out.outputKey}`, frames: out.frames, bytes: out.bytes };
  } else if (final) {
    progress.error = result?.error ?? (final === 'aborted' ? `render ${renderId} was cancelled` : 'the render function ended without writing an outcome (it ran past 15 minutes, or crashed)');
  }
  return progress;
}

async function readJsonIn<T>(bucket: string, key: string): Promise<T | undefined> {
  try {
    const got = await awsClients().s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return JSON.parse(await got.Body!.transformToString()) as T;
  } catch (err) {
    if ((err as { name?: string }).name === 'NoSuchKey') return undefined;
    throw err;
  }
}

/** Status, chunks and frames from the records the render writes, given how the render ended (if it has). */
async function bucketProgress(render: RenderJob, executionArn: string | null, final: RenderStatus | undefined): Promise<RenderProgress> {
  const plan = await readJsonIn<PlanRecord>(render.bucket, renderKeys.plan(render.renderId));
  const listed = await awsClients().s3.send(new ListObjectsV2Command({ Bucket: render.bucket, Prefix: renderKeys.progressPrefix(render.renderId) }));
  const records = await Promise.all((listed.Contents ?? []).map((o) => readJsonIn<ChunkProgressRecord>(render.bucket, o.Key!)));
  const chunks = records.filter((r): r is ChunkProgressRecord => r !== undefined);
  const done = chunks.filter((c) => c.done).length;
  const total = plan?.totalFrames ?? 0;
  // The reference of a batch draws the frames its plan then counts as shared: never more than the whole.
  const rendered = Math.min(total, chunks.reduce((n, c) => n + c.frames, 0) + (plan?.reuse?.framesReused ?? 0));
  const chunkTotal = plan?.chunks ?? 0;
  const status: RenderStatus = final ?? (!plan ? 'planning' : done === chunkTotal ? 'assembling' : 'rendering');
  const missingGlyphs = mergeMissingGlyphs([...chunks.map((c) => c.missingGlyphs ?? []), plan?.reuse?.missingGlyphs ?? []]);
  const { own: _own, missingGlyphs: _shared, ...reuse } = plan?.reuse ?? {};
  return {
    renderId: render.renderId,
    executionArn,
    status,
    chunks: { done, total: chunkTotal },
    frames: { rendered, total },
    // Assembly is the last step: the render reaches 100% only with its output.
    percent: status === 'done' ? 100 : total > 0 ? Math.min(99, Math.floor((rendered / total) * 99)) : 0,
    ...(missingGlyphs.length > 0 ? { missingGlyphs } : {}),
    ...(plan?.reuse ? { reuse: reuse as NonNullable<RenderProgress['reuse']> } : {}),
  };
}

/** A failed Lambda task's cause is the function's JSON error payload; its message is what a user needs. */
export function causeMessage(cause: string | undefined): string | undefined {
  if (!cause) return undefined;
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: unknown };
    if (typeof parsed.errorMessage === 'string') return parsed.errorMessage;
  } catch {
    // Not JSON: the cause is already plain text.
  }
  return cause;
}
