import { DeclarationSet, checkOverrides } from '../composition/variables';
import { badInput } from '../errors';
import { BatchItem, BatchManifestRow, dispatchBatch } from './batch-dispatch';
import type { BatchFile } from './batch-file';
import { RenderPlan, RenderToLambdaInput, preflightWarnings, startRender, validateBeforeRequests, validateConfig } from './render';
import { resolveTarget } from './stack';
import type { RenderConfigInput } from './validate-config';
import { DEFAULT_MAX_CONCURRENT } from './defaults';

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
  onRow?: (row: BatchManifestRow) => void;
  onWarning?: (message: string) => void;
  signal?: AbortSignal;
}

/**
 * One render per batch entry (SPEC.md 1.7, 4.1 rules 1–2). Every entry is validated without a
 * request (variables, the 256 KiB input); a bad entry becomes a failed-to-start row and the others
 * go on. A throttled or failing StartExecution is retried with backoff by the SFN client (see
 * aws-clients.ts) before its row is failed-to-start. Rows come back in line order.
 */
export async function renderBatchToLambda(input: RenderBatchInput): Promise<BatchManifestRow[]> {
  const maxConcurrent = input.maxConcurrent ?? DEFAULT_MAX_CONCURRENT;
  if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) throw badInput(`maxConcurrent must be a whole number of at least 1, got ${maxConcurrent}`);
  // A dry run makes no request at all: entries are checked as they would be with the longest bucket name.
  const target = input.dryRun ? undefined : await resolveTarget(input);
  const stateMachineArn = target?.stateMachineArn ?? '';
  const check = (config: Parameters<typeof validateConfig>[0]) => (target ? validateConfig({ ...config, bucketName: target.bucketName }) : validateBeforeRequests(config));
  let preflight: Promise<void> | undefined;

  const prepare = (entry: BatchItem): RenderPlan => {
    const variables = JSON.parse(entry.variablesJson) as Record<string, unknown>;
    const issues = input.declarations ? checkOverrides(input.declarations, variables) : [];
    if (input.strictVariables && issues.length > 0) {
      throw badInput(`strict variables: ${issues.map((i) => i.message).join('; ')}`);
    }
    for (const issue of issues) input.onWarning?.(`line ${entry.line} (${entry.outputKey}): ${issue.message}`);
    return check({ siteHandle: input.siteHandle, bucketName: input.bucketName, outputKey: entry.outputKey, config: { ...input.config, variables } });
  };

  const start = async (plan: RenderPlan) => {
    // The SPEC.md 7 warnings depend on the chunk plan, the same for every entry: checked once.
    preflight ??= preflightWarnings(plan, stateMachineArn, (message) => input.onWarning?.(message));
    await preflight;
    try {
      return await startRender(plan, stateMachineArn);
    } catch (err) {
      // The row's reason: name the AWS error ("ThrottlingException: Rate exceeded"), as the CLI does.
      const e = err as Error & { $metadata?: unknown };
      throw e.$metadata ? new Error(`${e.name}: ${e.message}`) : err;
    }
  };

  return dispatchBatch({
    entries: input.batch.entries,
    problems: input.batch.problems,
    maxConcurrent,
    dryRun: input.dryRun ?? false,
    prepare,
    start,
    onRow: (row) => input.onRow?.(row),
    signal: input.signal,
  });
}
