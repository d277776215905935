import { BatchCounter, readCounter } from './batch-tracking';

/** Where a batch run stands, from its counter in the bucket (one read, whatever its size). */
export interface BatchStanding {
  /** Renders the run started; until it has started its last line, those started so far. */
  started: number;
  done: number;
  failed: number;
  aborted: number;
  running: number;
  /** Ended renders a minute since `since`. */
  rendersPerMinute: number;
  /** Seconds until the last ends at that rate; undefined before the first has ended. */
  etaSeconds?: number;
  /** US dollars: ended renders times the estimate of one (docs/guide/cloud.md, Cost estimate), when given. */
  costSoFar?: number;
  finished: boolean;
}

export interface WaitForBatchInput {
  bucketName: string;
  batchId: string;
  /** Renders the run started (the seal writes the same into the counter). */
  started: number;
  /** When the first render started: the rate counts from here. */
  since: number;
  /** The estimated cost of one render, for the cost so far. */
  costPerRender?: number;
  pollMs?: number;
  onStanding?: (standing: BatchStanding) => void;
  signal?: AbortSignal;
}

export function standingOf(counter: BatchCounter, started: number, since: number, costPerRender?: number): BatchStanding {
  const total = counter.started ?? started;
  const minutes = Math.max((Date.now() - since) / 60_000, 1 / 60);
  const rate = counter.ended / minutes;
  const remaining = Math.max(0, total - counter.ended);
  return {
    started: total,
    done: counter.done,
    failed: counter.failed,
    aborted: counter.aborted,
    running: remaining,
    rendersPerMinute: rate,
    ...(counter.ended > 0 ? { etaSeconds: (remaining / rate) * 60 } : {}),
    ...(costPerRender === undefined ? {} : { costSoFar: counter.ended * costPerRender }),
    finished: counter.ended >= total,
  };
}

/** Polls the batch's counter until every render it started has ended; the last standing is returned. */
export async function waitForBatch(input: WaitForBatchInput): Promise<BatchStanding> {
  for (;;) {
    const counter = await readCounter(input.bucketName, input.batchId);
    if (!counter) throw new Error(`batch ${input.batchId} has no counter in bucket ${input.bucketName}`);
    const standing = standingOf(counter, input.started, input.since, input.costPerRender);
    input.onStanding?.(standing);
    if (standing.finished || input.signal?.aborted) return standing;
    await new Promise((r) => setTimeout(r, input.pollMs ?? 2000));
  }
}

/** One progress line: `12/40 done, 4 running, 0 failed; 8.5 renders/min; ETA 3m20s; about $0.0123 so far`. */
export function standingLine(s: BatchStanding): string {
  const failed = s.failed + s.aborted;
  const parts = [`${s.done}/${s.started} done, ${s.running} running, ${failed} failed${s.aborted > 0 ? ` (${s.aborted} cancelled)` : ''}`, `${s.rendersPerMinute.toFixed(1)} renders/min`];
  if (!s.finished) parts.push(s.etaSeconds === undefined ? 'ETA unknown' : `ETA ${duration(s.etaSeconds)}`);
  if (s.costSoFar !== undefined) parts.push(`about $${s.costSoFar >= 0.01 ? s.costSoFar.toFixed(4) : s.costSoFar.toPrecision(2)} so far`);
  return parts.join('; ');
}

function duration(seconds: number): string {
  const s = Math.round(seconds);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}
