import { createHash } from 'node:crypto';
import { InvokeCommand } from '@aws-sdk/client-lambda';
import { DeclarationSet, checkOverrides } from '../composition/variables';
import { badInput } from '../errors';
import { inputLimits, parseCheckedVariables } from '../options/input-limits';
import { Admission, AdmissionPlan, StartPacer, isThrottling, planAdmission } from './admission';
import { awsClients } from './aws-clients';
import { BatchItem, BatchManifestRow, StartedRender, dispatchBatch } from './batch-dispatch';
import type { BatchFile } from './batch-file';
import { RENDER_STATUSES } from './batch-manifest';
import { ReferenceGate, planBatchReuse, reuseField, reuseKey } from './batch-reuse';
import { RenderOutcome, endedRenders, newBatchId, openBatch, sealBatch } from './batch-tracking';
import { RenderPlan, RenderToLambdaInput, preflightWarnings, renderFunctionOf, requireRenderFunction, startRender, validateBeforeRequests, validateConfig } from './render';
import { renderState } from './progress';
import { PAYLOAD_VERSION, reuseKeys } from './render-input';
import { exists } from './bucket-files';
import { resolveTarget } from './stack';
import type { RenderConfigInput } from './validate-config';
import { DEFAULT_MAX_CONCURRENT } from './defaults';
import type { WebhookOptions } from './webhook';
import type { RenderEvent } from './render-event';

export { DEFAULT_MAX_CONCURRENT };

export interface RenderBatchInput {
  siteHandle: RenderToLambdaInput['siteHandle'];
  /** Default: VIDKIT_BUCKET, else the stack's RenderBucketName (a dry run reads no stack). */
  bucketName?: string;
  /** Default: VIDKIT_SFN_ARN, else the stack's RenderStateMachineArn. */
  stateMachineArn?: string;
  /** The deployed stack the bucket and state machine are read from when not given (default vidkit-render). */
  stackName?: string;
  /** Applied to every entry; each entry brings its own `variables` and `outputKey`. */
  config?: Omit<RenderConfigInput, 'variables'>;
  /** The parsed batch (see batch-file.ts): entries and the lines that cannot be rendered. */
  batch: BatchFile;
  /** The composition's declarations: a mismatch warns, or fails the entry under `strictVariables`. */
  declarations?: DeclarationSet;
  strictVariables?: boolean;
  /** Most StartExecution calls in flight (default 50). */
  maxConcurrent?: number;
  /** Validate every entry and start nothing: rows are `would-invoke`. */
  dryRun?: boolean;
  /**
   * The rows of earlier runs of this batch (its manifest file): a line whose latest row started a
   * render with the same settings that is still running or succeeded is skipped, not started.
   */
  previous?: readonly BatchManifestRow[];
  /** Start every line, whatever earlier runs did. */
  force?: boolean;
  /** Each render's event, and the batch's once its last render ends, sent by the render function. */
  webhook?: WebhookOptions;
  /** Host the variables of an entry whose execution input would exceed 256 KiB in the bucket. */
  hostLargeVariables?: boolean;
  /** Run each entry as one function invocation, without the state machine (each must plan to one chunk). */
  direct?: boolean;
  /** Give up on a start after this long throttled with no start succeeding (default 10 minutes). */
  throttlePatienceMs?: number;
  /** How often a start that waits for a place looks whether running renders have ended (default 2 s). */
  pollMs?: number;
  onRow?: (row: BatchManifestRow) => void;
  onWarning?: (message: string) => void;
  /** Each entry's validated plan, as it is made (the CLI estimates the cost of one from it). */
  onPlan?: (plan: RenderPlan) => void;
  /** The pace read from the account once, before the first start. */
  onAdmission?: (plan: AdmissionPlan) => void;
  signal?: AbortSignal;
}

const THROTTLE_PATIENCE_MS = 10 * 60 * 1000;
const POLL_MS = 2000;

/**
 * One render per batch entry, its starts capped by `maxConcurrent`. Every entry is validated without a
 * request (variables, the 256 KiB input); a bad entry becomes a failed-to-start row and the others
 * go on. A line an earlier run started with the same settings, still running or done, is skipped.
 * Starts are paced by the account ({@link planAdmission}): at most the renders it can run at once,
 * and throttled starts slow down rather than fail. The renders form one batch in the bucket
 * (batch-tracking.ts), whose count the cloud keeps. Rows come back in line order.
 */
export async function renderBatchToLambda(input: RenderBatchInput): Promise<BatchManifestRow[]> {
  const maxConcurrent = input.maxConcurrent ?? DEFAULT_MAX_CONCURRENT;
  if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) throw badInput(`maxConcurrent must be a whole number of at least 1, got ${maxConcurrent}`);
  // A dry run makes no request at all: entries are checked as they would be with the longest bucket name.
  const target = input.dryRun ? undefined : await resolveTarget(input);
  const stateMachineArn = target?.stateMachineArn ?? '';
  const batchId = target ? newBatchId() : undefined;
  const check = (config: Parameters<typeof validateConfig>[0]) => (target ? validateConfig({ ...config, bucketName: target.bucketName }) : validateBeforeRequests(config));
  const previous = input.force ? new Map<string, BatchManifestRow>() : latestByKey(input.previous ?? []);
  const ended = target ? await endedEarlier(target.bucketName, previous) : new Map<string, RenderOutcome>();
  const pacer = new StartPacer(input.throttlePatienceMs ?? THROTTLE_PATIENCE_MS);
  let admission: Promise<Admission> | undefined;
  let preflight: Promise<void> | undefined;
  let started = 0;
  const parse = (entry: BatchItem) => parseCheckedVariables(entry.variablesJson, `line ${entry.line}: "variables"`, inputLimits(input.config));
  // A direct render runs one invocation per line: nothing is shared between them.
  const reuse = input.direct ? undefined : planBatchReuse(input.batch.entries, parse);
  let key: string | undefined;
  // The other lines need the reference's segments, or its word that nothing can be shared; not its output.
  const ready = async (r: { renderId: string; executionArn: string | null }, bucket: string) =>
    (key !== undefined && ((await exists(bucket, reuseKeys.record(key))) || (await exists(bucket, reuseKeys.unshared(key))))) || (await renderState(r, bucket)) !== 'running';
  const gate = target && reuse ? new ReferenceGate((r) => ready(r, target.bucketName), input.pollMs ?? POLL_MS, input.signal) : undefined;

  const prepare = (entry: BatchItem): RenderPlan => {
    try {
      return prepareEntry(entry);
    } catch (err) {
      if (entry.line === reuse?.referenceLine) gate?.started(undefined);
      throw err;
    }
  };

  const prepareEntry = (entry: BatchItem): RenderPlan => {
    const variables = parse(entry);
    const issues = input.declarations ? checkOverrides(input.declarations, variables) : [];
    if (input.strictVariables && issues.length > 0) {
      throw badInput(`strict variables: ${issues.map((i) => i.message).join('; ')}`);
    }
    for (const issue of issues) input.onWarning?.(`line ${entry.line} (${entry.outputKey}): ${issue.message}`);
    const plan = (fields: Partial<Parameters<typeof check>[0]>) =>
      check({
        siteHandle: input.siteHandle,
        bucketName: input.bucketName,
        outputKey: entry.outputKey,
        config: { ...input.config, variables },
        webhook: input.webhook,
        hostLargeVariables: input.hostLargeVariables,
        direct: input.direct,
        ...(batchId ? { batch: { batchId } } : {}),
        ...fields,
      });
    // Entries are prepared in line order, the reference first: its plan makes the content key.
    if (reuse && entry.line === reuse.referenceLine) key = reuseKey(plan({}));
    const planned = plan(reuse && key ? { reuse: reuseField(reuse, key, entry.line) } : {});
    input.onPlan?.(planned);
    return planned;
  };

  /** A line that need not start; the reference's, skipped, holds the other lines until its render has ended. */
  const skip = async (plan: RenderPlan, entry: BatchItem): Promise<BatchManifestRow | undefined> => {
    const row = await skipEarlier(plan, entry).catch((err) => {
      if (entry.line === reuse?.referenceLine) gate?.started(undefined);
      throw err;
    });
    if (row && entry.line === reuse?.referenceLine) gate?.started(row.renderId ? { renderId: row.renderId, executionArn: row.executionArn } : undefined);
    return row;
  };

  const skipEarlier = async (plan: RenderPlan, entry: BatchItem): Promise<BatchManifestRow | undefined> => {
    const earlier = previous.get(entry.outputKey);
    const settings = settingsDigest(plan);
    if (!earlier?.renderId || earlier.settings !== settings || !target) return undefined;
    const state = ended.get(earlier.renderId) ?? (await renderState({ renderId: earlier.renderId, executionArn: earlier.executionArn }, target.bucketName).catch(() => 'failed' as const));
    if (state !== 'running' && state !== 'done') return undefined;
    return { line: entry.line, outputKey: entry.outputKey, status: 'skipped', executionArn: earlier.executionArn, renderId: earlier.renderId, settings, ...(earlier.batchId ? { batchId: earlier.batchId } : {}) };
  };

  /** Starts a line: the reference's at once, every other once the reference's render has ended. */
  const start = async (plan: RenderPlan, entry: BatchItem): Promise<StartedRender> => {
    if (entry.line !== reuse?.referenceLine) {
      await gate?.wait();
      return startEntry(plan);
    }
    try {
      const handle = await startEntry(plan);
      gate?.started(handle);
      return handle;
    } catch (err) {
      gate?.started(undefined);
      throw err;
    }
  };

  const startEntry = async (plan: RenderPlan): Promise<StartedRender> => {
    // The pre-start warnings (chunk time, reserved concurrency) and the pace depend on the chunk plan, the same for every entry: read once.
    preflight ??= preflightWarnings(plan, stateMachineArn, (message) => input.onWarning?.(message));
    await preflight;
    admission ??= renderFunctionOf(stateMachineArn)
      .then((fn) => planAdmission(fn, input.batch.entries.length, plan.chunks))
      .then((p) => {
        input.onAdmission?.(p);
        return new Admission(p.atOnce, async (r) => (await renderState(r, plan.input.render.bucket)) !== 'running', input.pollMs ?? POLL_MS);
      });
    const gate = await admission;
    await gate.enter(input.signal);
    try {
      const handle = await startPaced(plan);
      gate.started(handle);
      started += 1;
      return { renderId: handle.renderId, executionArn: handle.executionArn, settings: settingsDigest(plan), ...(batchId ? { batchId } : {}) };
    } catch (err) {
      gate.release();
      // The row's reason: name the AWS error ("ThrottlingException: Rate exceeded"), as the CLI does.
      const e = err as Error & { $metadata?: unknown };
      throw e.$metadata ? new Error(`${e.name}: ${e.message}`) : err;
    }
  };

  /** A start tried until it is not throttled, every start slowing down meanwhile. */
  const startPaced = async (plan: RenderPlan) => {
    for (;;) {
      await pacer.ready();
      try {
        const handle = await startRender(plan, stateMachineArn);
        pacer.succeeded();
        return handle;
      } catch (err) {
        if (!isThrottling(err) || !pacer.throttled()) throw err;
      }
    }
  };

  if (target && batchId) await openBatch(target.bucketName, { batchId, createdAt: new Date().toISOString(), ...(input.webhook ? { webhook: input.webhook } : {}) });
  const rows = await dispatchBatch({
    entries: input.batch.entries,
    problems: input.batch.problems,
    maxConcurrent,
    dryRun: input.dryRun ?? false,
    prepare,
    skip,
    start,
    onRow: (row) => input.onRow?.(row),
    signal: input.signal,
  });
  if (target && batchId) await sealAndNotify(target.bucketName, stateMachineArn, batchId, started);
  return rows;
}

/**
 * Fixes the batch's count once its last line has started. When every render had ended already,
 * the seal completes the batch: the render function is asked to send its event, so that it comes
 * from the cloud like every other. A run that started nothing has no event.
 */
async function sealAndNotify(bucket: string, stateMachineArn: string, batchId: string, started: number): Promise<void> {
  const completed = await sealBatch(bucket, batchId, started);
  if (!completed || started === 0) return;
  await awsClients().lambda.send(
    new InvokeCommand({ FunctionName: await requireRenderFunction(stateMachineArn), InvocationType: 'Event', Payload: JSON.stringify({ version: PAYLOAD_VERSION, mode: 'batch-webhook', bucket, batchId } satisfies RenderEvent) }),
  );
}

/**
 * A digest of what decides a render's output: the site (its files, so its page and defaults), the
 * variables, size, format, frame rate, seed and epoch. Chunking and the webhook do not change the
 * output, so they are left out.
 */
export function settingsDigest(plan: RenderPlan): string {
  const { render } = plan.input;
  const { config } = render;
  const decided = {
    site: render.site.siteId,
    // Hosted or inline, the same variables give the same text.
    variables: plan.hostedVariables?.body ?? JSON.stringify(config.variables),
    width: plan.width,
    height: plan.height,
    format: config.format,
    fps: config.fps,
    seed: config.seed,
    epochMs: config.epoch,
  };
  return createHash('sha256').update(JSON.stringify(decided)).digest('hex').slice(0, 32);
}

/**
 * Each outputKey's latest row, when it names a render that was not cancelled. Rows are appended as
 * decided, so file order is time order; keys, not lines, tie runs together, so lines may move.
 */
function latestByKey(rows: readonly BatchManifestRow[]): Map<string, BatchManifestRow> {
  const byKey = new Map<string, BatchManifestRow>();
  for (const row of rows) {
    if (row.outputKey === null) continue;
    if (RENDER_STATUSES.includes(row.status) && row.status !== 'cancelled') byKey.set(row.outputKey, row);
    else byKey.delete(row.outputKey);
  }
  return byKey;
}

/** How the earlier runs' renders ended, from their batches' records: one listing per thousand, not a request per render. */
async function endedEarlier(bucket: string, previous: Map<string, BatchManifestRow>): Promise<Map<string, RenderOutcome>> {
  const batchIds = new Set([...previous.values()].flatMap((r) => (r.batchId ? [r.batchId] : [])));
  const ended = new Map<string, RenderOutcome>();
  for (const batchId of batchIds) for (const [renderId, outcome] of await endedRenders(bucket, batchId)) ended.set(renderId, outcome);
  return ended;
}
