import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { badInput } from '../errors';
import { MissingGlyphs, mergeMissingGlyphs } from '../render/missing-glyphs';
import { awsClients } from './aws-clients';
import { ChunkProgressRecord, ExecutionInput, PlanRecord, renderKeys } from './render-input';
import { resolveStateMachine } from './stack';

/**
 * Where a render stands. `planning` until the plan is written, `rendering` while chunks run,
 * `assembling` once every chunk is done, then `done`, `failed`, `timed-out` or `aborted`.
 */
export type RenderStatus = 'planning' | 'rendering' | 'assembling' | 'done' | 'failed' | 'timed-out' | 'aborted';

export interface RenderProgress {
  renderId: string;
  executionArn: string;
  status: RenderStatus;
  chunks: { done: number; total: number };
  frames: { rendered: number; total: number };
  /** Whole percent; 100 only when the output exists. */
  percent: number;
  /** When done. */
  output?: { bucket: string; key: string; url: string; frames: number; bytes: number };
  /** When failed, timed out or aborted: the execution's error and its cause. */
  error?: string;
  /** Text that no font could draw, as the chunks done so far found it (README: A composition, Fonts); absent when none. */
  missingGlyphs?: MissingGlyphs[];
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

/** Reads the execution (DescribeExecution) and the plan and chunk records the render writes to its bucket. */
export async function getRenderProgress(opts: { renderId?: string; executionArn?: string; stateMachineArn?: string; stackName?: string }): Promise<RenderProgress> {
  const id = opts.executionArn ?? opts.renderId;
  if (!id) throw badInput('getRenderProgress needs a renderId or an executionArn');
  const executionArn = await executionArnOf(id, opts.stateMachineArn, opts.stackName);
  const { sfn, s3 } = awsClients();
  let execution;
  try {
    execution = await sfn.send(new DescribeExecutionCommand({ executionArn }));
  } catch (err) {
    if ((err as { name?: string }).name === 'ExecutionDoesNotExist') throw badInput(`no render ${id}: the execution does not exist`);
    throw err;
  }
  const { render } = JSON.parse(execution.input ?? '{}') as ExecutionInput;
  const readJson = async <T>(key: string): Promise<T | undefined> => {
    try {
      const got = await s3.send(new GetObjectCommand({ Bucket: render.bucket, Key: key }));
      return JSON.parse(await got.Body!.transformToString()) as T;
    } catch (err) {
      if ((err as { name?: string }).name === 'NoSuchKey') return undefined;
      throw err;
    }
  };
  const plan = await readJson<PlanRecord>(renderKeys.plan(render.renderId));
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: render.bucket, Prefix: renderKeys.progressPrefix(render.renderId) }));
  const records = await Promise.all((listed.Contents ?? []).map((o) => readJson<ChunkProgressRecord>(o.Key!)));
  const chunks = records.filter((r): r is ChunkProgressRecord => r !== undefined);
  const done = chunks.filter((c) => c.done).length;
  const rendered = chunks.reduce((n, c) => n + c.frames, 0);
  const total = plan?.totalFrames ?? 0;
  const chunkTotal = plan?.chunks ?? 0;

  const final = FINAL[execution.status ?? ''];
  const status: RenderStatus = final ?? (!plan ? 'planning' : done === chunkTotal ? 'assembling' : 'rendering');
  const progress: RenderProgress = {
    renderId: render.renderId,
    executionArn,
    status,
    chunks: { done, total: chunkTotal },
    frames: { rendered, total },
    // Assembly is the last step: the render reaches 100% only with its output.
    percent: status === 'done' ? 100 : total > 0 ? Math.min(99, Math.floor((rendered / total) * 99)) : 0,
  };
  const missingGlyphs = mergeMissingGlyphs(chunks.map((c) => c.missingGlyphs ?? []));
  if (missingGlyphs.length > 0) progress.missingGlyphs = missingGlyphs;
  if (status === 'done') {
    const out = JSON.parse(execution.output ?? '{}') as { bucket: string; outputKey: string; frames: number; bytes: number };
    progress.output = { bucket: out.bucket, key: out.outputKey, url: `s3://${out.bucket}/${out.outputKey}`, frames: out.frames, bytes: out.bytes };
  } else if (final) {
    progress.error = [execution.error, causeMessage(execution.cause)].filter(Boolean).join(': ') || `execution ${execution.status}`;
  }
  return progress;
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
