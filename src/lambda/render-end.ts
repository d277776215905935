import { BatchCounter, RenderOutcome, readBatchRecord, readCounter, recordEnds } from '../sdk/batch-tracking';
import { causeMessage } from '../sdk/progress';
import type { RenderJob } from '../sdk/render-input';
import type { BatchWebhookPayload, RenderWebhookPayload } from '../sdk/webhook';
import type { AssembleResult } from '../sdk/render-event';
import { DeliveryResult, deliverWebhook } from './webhook-delivery';

/**
 * What the render function does once a render has ended, whichever way it ran (the state
 * machine's last step, or a direct render): post the render's webhook event when it has one, and
 * count its end in its batch; the end that completes the batch also posts the batch's event.
 * Neither ever fails the render: an undelivered event is logged.
 */

export interface RenderEnd {
  executionArn: string | null;
  output?: AssembleResult;
  failure?: { Error?: string; Cause?: string };
}

export interface RenderEndResult {
  webhook: DeliveryResult | { skipped: string };
  batch?: { counted: boolean; completed: boolean; event?: DeliveryResult | { skipped: string } };
}

export async function renderEnded(render: RenderJob, end: RenderEnd): Promise<RenderEndResult> {
  // A chunk that saw the cancel marker before its execution was stopped fails the render: it was
  // cancelled, and like an aborted execution it sends no render event.
  const wasCancelled = end.failure?.Error === 'RenderCancelled';
  const result: RenderEndResult = { webhook: wasCancelled ? { skipped: 'cancelled' } : await renderEvent(render, end) };
  if (render.batch) {
    const outcome: RenderOutcome = end.output ? 'done' : wasCancelled ? 'aborted' : 'failed';
    const { batchId } = render.batch;
    try {
      const completed = await recordEnds(render.bucket, batchId, [{ renderId: render.renderId, outcome }]);
      result.batch = { counted: true, completed: completed !== undefined, ...(completed ? { event: await sendBatchEvent(render.bucket, batchId, completed) } : {}) };
    } catch (err) {
      console.warn(`vidkit: warning: batch ${batchId}: the end of render ${render.renderId} was not counted: ${(err as Error).message}`);
      result.batch = { counted: false, completed: false };
    }
  }
  return result;
}

async function renderEvent(render: RenderJob, end: RenderEnd): Promise<DeliveryResult | { skipped: string }> {
  if (!render.webhook) return { skipped: 'no webhook' };
  const common = {
    renderId: render.renderId,
    executionArn: end.executionArn,
    bucket: render.bucket,
    outputKey: render.outputKey,
    sentAt: new Date().toISOString(),
    ...(render.batch ? { batchId: render.batch.batchId } : {}),
  };
  const payload: RenderWebhookPayload = end.output
    ? { type: 'render.succeeded', ...common, output: { url: `s3://${end.output.bucket}/${end.output.outputKey}`, frames: end.output.frames, bytes: end.output.bytes } }
    : { type: 'render.failed', ...common, error: [end.failure?.Error, causeMessage(end.failure?.Cause)].filter(Boolean).join(': ') || 'the render failed' };
  const result = await deliverWebhook(render.webhook, payload);
  if (!result.delivered) console.warn(`vidkit: warning: webhook ${render.webhook.url} not delivered after ${result.attempts} attempt(s): ${result.error}`);
  return result;
}

/**
 * The batch's event, from its counter: sent by whoever completed the count (the last render's
 * end here, or `batch-webhook` mode when render-batch's seal or a cancel completed it).
 */
export async function sendBatchEvent(bucket: string, batchId: string, counter?: BatchCounter): Promise<DeliveryResult | { skipped: string }> {
  const [record, final] = await Promise.all([readBatchRecord(bucket, batchId), counter ?? readCounter(bucket, batchId)]);
  if (!record?.webhook) return { skipped: 'no batch webhook' };
  if (!final?.completedAt) return { skipped: 'the batch has not completed' };
  const payload: BatchWebhookPayload = {
    type: 'batch.completed',
    batchId,
    bucket,
    renders: final.started ?? final.ended,
    done: final.done,
    failed: final.failed,
    aborted: final.aborted,
    sentAt: new Date().toISOString(),
  };
  const result = await deliverWebhook(record.webhook, payload);
  if (!result.delivered) console.warn(`vidkit: warning: batch webhook ${record.webhook.url} not delivered after ${result.attempts} attempt(s): ${result.error}`);
  return result;
}
