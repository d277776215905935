import { InvokeCommand } from '@aws-sdk/client-lambda';
import { DescribeExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { badInput } from '../errors';
import { awsClients } from './aws-clients';
import { deleteKeys, getJsonTagged, listKeys, putJson } from './bucket-files';
import { recordEnds } from './batch-tracking';
import { mapWithLimit } from './map-limit';
import { RenderState, renderState } from './progress';
import { DirectRecord, ExecutionInput, PAYLOAD_VERSION, RenderJob, renderKeys } from './render-input';
import { requireRenderFunction } from './render';
import type { RenderEvent } from './render-event';

/**
 * `cloudfn cancel`: stops renders and removes what their chunks wrote (docs/guide/cloud.md, Cancelling).
 * A marker is written first, so that a chunk still running (Lambda lets an invocation finish after
 * its execution stops) sees it at its next progress report, stops, and removes its own objects;
 * then the execution is stopped (a direct render has none: the marker alone stops it), the render's
 * partial objects are removed, and a running render's end is counted in its batch as aborted.
 */

export interface CancelTarget {
  renderId: string;
  /** Null for a direct render. */
  executionArn: string | null;
}

export interface CancelResult {
  renderId: string;
  executionArn: string | null;
  /** False when the render had ended already: nothing was stopped, its output stays. */
  wasRunning: boolean;
  /** Partial objects removed (segments, progress and plan records, media timeline). */
  removed: number;
  batchId?: string;
}

const IN_FLIGHT = 16;
/** A chunk looks for the marker every 2 s (src/lambda/handler.ts); a sweep after that catches what raced it. */
const SETTLE_MS = 3000;

/** Objects of a render that a cancel keeps: the marker, and what `progress` needs to say "aborted". */
const kept = (renderId: string) => new Set([renderKeys.cancel(renderId), renderKeys.direct(renderId), renderKeys.result(renderId)]);

export async function cancelRenders(targets: readonly CancelTarget[], opts: { bucketName: string; stateMachineArn?: string; settleMs?: number }): Promise<CancelResult[]> {
  const stopped = await mapWithLimit(targets, IN_FLIGHT, (t) => stopOne(t, opts.bucketName));
  const running = stopped.filter((s) => s.result.wasRunning);
  if (running.length > 0) {
    await new Promise((r) => setTimeout(r, opts.settleMs ?? SETTLE_MS));
    await mapWithLimit(running, IN_FLIGHT, async (s) => (s.result.removed += await removePartials(s.bucket, s.result.renderId)));
  }
  const byBatch = new Map<string, { bucket: string; renderIds: string[] }>();
  for (const s of running) {
    if (!s.result.batchId) continue;
    const group = byBatch.get(s.result.batchId) ?? { bucket: s.bucket, renderIds: [] };
    group.renderIds.push(s.result.renderId);
    byBatch.set(s.result.batchId, group);
  }
  for (const [batchId, group] of byBatch) {
    const completed = await recordEnds(group.bucket, batchId, group.renderIds.map((renderId) => ({ renderId, outcome: 'aborted' as const })));
    if (completed && opts.stateMachineArn) {
      const payload = JSON.stringify({ version: PAYLOAD_VERSION, mode: 'batch-webhook', bucket: group.bucket, batchId } satisfies RenderEvent);
      await awsClients().lambda.send(new InvokeCommand({ FunctionName: await requireRenderFunction(opts.stateMachineArn), InvocationType: 'Event', Payload: payload }));
    }
  }
  return stopped.map((s) => s.result);
}

async function stopOne(target: CancelTarget, bucketName: string): Promise<{ bucket: string; result: CancelResult }> {
  const { render, state } = await describe(target, bucketName);
  await putJson(render.bucket, renderKeys.cancel(render.renderId), { cancelledAt: new Date().toISOString() });
  let wasRunning = state === 'running';
  if (wasRunning && target.executionArn) {
    try {
      await awsClients().sfn.send(new StopExecutionCommand({ executionArn: target.executionArn, error: 'Cancelled', cause: 'cloudfn cancel' }));
    } catch (err) {
      // It ended between the look and the stop: its own last step counted it.
      if (!/not running|does not exist/i.test((err as Error).message)) throw err;
      wasRunning = false;
    }
  }
  const removed = wasRunning ? await removePartials(render.bucket, render.renderId) : 0;
  return { bucket: render.bucket, result: { renderId: render.renderId, executionArn: target.executionArn, wasRunning, removed, ...(render.batch ? { batchId: render.batch.batchId } : {}) } };
}

/** The render's input and whether it runs, from its execution or (direct) its record in the bucket. */
async function describe(target: CancelTarget, bucketName: string): Promise<{ render: RenderJob; state: RenderState }> {
  if (target.executionArn) {
    const execution = await awsClients().sfn.send(new DescribeExecutionCommand({ executionArn: target.executionArn }));
    const { render } = JSON.parse(execution.input ?? '{}') as ExecutionInput;
    return { render, state: execution.status === 'RUNNING' ? 'running' : execution.status === 'SUCCEEDED' ? 'done' : 'failed' };
  }
  const record = (await getJsonTagged<DirectRecord>(bucketName, renderKeys.direct(target.renderId)))?.value;
  if (!record) throw badInput(`no render ${target.renderId}: no execution, and no direct render of that id in bucket ${bucketName}`);
  return { render: record.render, state: await renderState(target, bucketName) };
}

async function removePartials(bucket: string, renderId: string): Promise<number> {
  const keep = kept(renderId);
  const partial = (await listKeys(bucket, renderKeys.prefix(renderId))).filter((k) => !keep.has(k));
  await deleteKeys(bucket, partial);
  return partial.length;
}
