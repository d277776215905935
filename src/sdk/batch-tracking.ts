import { randomBytes } from 'node:crypto';
import { getJsonTagged, listKeys, putJson, putJsonIf } from './bucket-files';
import type { WebhookOptions } from './webhook';

/**
 * A batch run's record in the render bucket, kept by the cloud side so that it outlives the
 * client that started it (docs/guide/cloud-batch.md): the render function counts each render's end
 * there, and whichever write completes the count sends the batch's webhook event, once.
 *
 *   batches/<batchId>/batch.json                     {@link BatchRecord}, written once by render-batch
 *   batches/<batchId>/counter.json                   {@link BatchCounter}, updated by conditional writes
 *   batches/<batchId>/ended/<renderId>               one claim per ended render, created only if absent
 *   batches/<batchId>/outcomes/<renderId>.<outcome>  how it ended, written by the claim's winner
 *
 * The claim makes a render count once however often, and however, its end is reported (a retried
 * step, a cancel racing the render's own end); the counter's ETag makes concurrent updates
 * serialise. The outcomes are keys, so that one listing tells a thousand of them.
 * `started` stays null until render-batch has started its last line and seals the count: only
 * then can an end be the last one.
 */

export type RenderOutcome = 'done' | 'failed' | 'aborted';

export interface BatchRecord {
  batchId: string;
  createdAt: string;
  /** The batch's event goes here, signed like each render's (docs/guide/cloud.md, Completion webhook). */
  webhook?: WebhookOptions;
}

export interface BatchCounter {
  /** Renders the run started; null until it has started its last line. */
  started: number | null;
  ended: number;
  done: number;
  failed: number;
  aborted: number;
  /** Set by the write that made `ended` reach `started`; its writer sends the batch event. */
  completedAt?: string;
}

export const batchKeys = {
  record: (batchId: string) => `batches/${batchId}/batch.json`,
  counter: (batchId: string) => `batches/${batchId}/counter.json`,
  ended: (batchId: string, renderId: string) => `batches/${batchId}/ended/${renderId}`,
  outcomesPrefix: (batchId: string) => `batches/${batchId}/outcomes/`,
  outcome: (batchId: string, renderId: string, outcome: RenderOutcome) => `batches/${batchId}/outcomes/${renderId}.${outcome}`,
};

const OUTCOMES: readonly RenderOutcome[] = ['done', 'failed', 'aborted'];

export function newBatchId(): string {
  return randomBytes(8).toString('hex');
}

/** Creates the batch's record and an open counter, before its first render starts. */
export async function openBatch(bucket: string, record: BatchRecord): Promise<void> {
  await putJson(bucket, batchKeys.record(record.batchId), record);
  const counter: BatchCounter = { started: null, ended: 0, done: 0, failed: 0, aborted: 0 };
  await putJson(bucket, batchKeys.counter(record.batchId), counter);
}

export async function readBatchRecord(bucket: string, batchId: string): Promise<BatchRecord | undefined> {
  return (await getJsonTagged<BatchRecord>(bucket, batchKeys.record(batchId)))?.value;
}

export async function readCounter(bucket: string, batchId: string): Promise<BatchCounter | undefined> {
  return (await getJsonTagged<BatchCounter>(bucket, batchKeys.counter(batchId)))?.value;
}

/**
 * Counts each render's end once (a claim per render, created only where none exists). Returns
 * the counter when this call's update was the one that completed the batch: its caller sends the
 * batch's event.
 */
export async function recordEnds(bucket: string, batchId: string, ends: { renderId: string; outcome: RenderOutcome }[]): Promise<BatchCounter | undefined> {
  const fresh: RenderOutcome[] = [];
  for (const end of ends) {
    if (!(await putJsonIf(bucket, batchKeys.ended(batchId, end.renderId), { outcome: end.outcome }, { ifNoneMatch: '*' }))) continue;
    await putJson(bucket, batchKeys.outcome(batchId, end.renderId, end.outcome), {});
    fresh.push(end.outcome);
  }
  if (fresh.length === 0) return undefined;
  const count = (outcome: RenderOutcome) => fresh.filter((o) => o === outcome).length;
  return updateCounter(bucket, batchId, (c) => ({ ...c, ended: c.ended + fresh.length, done: c.done + count('done'), failed: c.failed + count('failed'), aborted: c.aborted + count('aborted') }));
}

/** Fixes the number of renders the run started; returns the counter when they had all ended already. */
export async function sealBatch(bucket: string, batchId: string, started: number): Promise<BatchCounter | undefined> {
  return updateCounter(bucket, batchId, (c) => ({ ...c, started }));
}

/** The renders whose end the batch has counted, with how each ended. */
export async function endedRenders(bucket: string, batchId: string): Promise<Map<string, RenderOutcome>> {
  const prefix = batchKeys.outcomesPrefix(batchId);
  const ended = new Map<string, RenderOutcome>();
  for (const key of await listKeys(bucket, prefix)) {
    const [renderId, outcome] = key.slice(prefix.length).split('.');
    if (OUTCOMES.includes(outcome as RenderOutcome)) ended.set(renderId, outcome as RenderOutcome);
  }
  return ended;
}

/** Enough for hundreds of renders ending in the same second; each retry waits a random while. */
const COUNTER_ATTEMPTS = 40;

async function updateCounter(bucket: string, batchId: string, change: (c: BatchCounter) => BatchCounter): Promise<BatchCounter | undefined> {
  for (let attempt = 0; attempt < COUNTER_ATTEMPTS; attempt++) {
    const got = await getJsonTagged<BatchCounter>(bucket, batchKeys.counter(batchId));
    if (!got) throw new Error(`batch ${batchId} has no counter in bucket ${bucket}: it was not opened, or was removed`);
    const next = change(got.value);
    const completes = got.value.completedAt === undefined && next.started !== null && next.ended >= next.started;
    if (completes) next.completedAt = new Date().toISOString();
    if (await putJsonIf(bucket, batchKeys.counter(batchId), next, { ifMatch: got.etag })) return completes ? next : undefined;
    await new Promise((r) => setTimeout(r, Math.random() * Math.min(2000, 25 * 2 ** attempt)));
  }
  throw new Error(`batch ${batchId}: its counter stayed contended for ${COUNTER_ATTEMPTS} attempts`);
}
