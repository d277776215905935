import { GetAccountSettingsCommand, GetFunctionConcurrencyCommand } from '@aws-sdk/client-lambda';
import { awsClients } from './aws-clients';

/**
 * How a batch's starts are paced by what the account can run (docs/guide/cloud-batch.md): the
 * render function's reserved concurrency (`cloudfn deploy --concurrency`), else the account's
 * unreserved pool, is read once and divided by the chunks of one render, giving about how many
 * renders can run at a time. Dispatch keeps at most that many of its renders running, and a
 * throttled start slows every start down instead of failing its row.
 */

export interface AdmissionPlan {
  renders: number;
  chunks: number;
  /** The function's reserved concurrency, when it has one. */
  reserved?: number;
  /** The account's concurrency left unreserved, when it could be read. */
  unreserved?: number;
  /** Renders that can run at once; Infinity when neither limit could be read. */
  atOnce: number;
}

/** `functionName` undefined: a state machine that names no render function, whose starts are not paced. */
export async function planAdmission(functionName: string | undefined, renders: number, chunks: number): Promise<AdmissionPlan> {
  if (functionName === undefined) return { renders, chunks, atOnce: Infinity };
  const { lambda } = awsClients();
  const [reserved, account] = await Promise.all([
    lambda.send(new GetFunctionConcurrencyCommand({ FunctionName: functionName })).then((r) => r.ReservedConcurrentExecutions),
    // A role that may not read the account's settings still renders: the pace is then the reserved one, or none.
    lambda.send(new GetAccountSettingsCommand({})).then((a) => a.AccountLimit?.UnreservedConcurrentExecutions ?? a.AccountLimit?.ConcurrentExecutions, () => undefined),
  ]);
  const capacity = reserved ?? account;
  return { renders, chunks, reserved, unreserved: account, atOnce: capacity === undefined ? Infinity : Math.max(1, Math.floor(capacity / chunks)) };
}

/** `N renders x M chunks; about K at a time`, and where K comes from. */
export function admissionLine(plan: AdmissionPlan): string {
  const head = `${plan.renders} render${plan.renders === 1 ? '' : 's'} x ${plan.chunks} chunk${plan.chunks === 1 ? '' : 's'}`;
  if (plan.atOnce === Infinity) return `${head}; no concurrency limit could be read (no render function, or no reserved or account limit): starts are not paced`;
  const from = plan.reserved !== undefined ? `reserved concurrency ${plan.reserved} (cloudfn deploy --concurrency)` : `the account's unreserved concurrency ${plan.unreserved}`;
  return `${head}; about ${plan.atOnce} at a time (${from})`;
}

export interface RunningRender {
  renderId: string;
  executionArn: string | null;
}

/** Renders checked per look while dispatch waits: the oldest, which end first. */
const CHECKED_PER_LOOK = 16;

/**
 * At most `atOnce` renders of this dispatch running: a start waits for a place, looking (every
 * `pollMs`) whether the oldest running renders have ended.
 */
export class Admission {
  private running: RunningRender[] = [];
  private reserved = 0;
  private looking?: Promise<void>;

  constructor(
    private readonly atOnce: number,
    private readonly hasEnded: (render: RunningRender) => Promise<boolean>,
    private readonly pollMs: number,
  ) {}

  /** Waits for a place; the caller then calls {@link started} or {@link release}. */
  async enter(signal?: AbortSignal): Promise<void> {
    while (this.running.length + this.reserved >= this.atOnce && !signal?.aborted) {
      this.looking ??= this.look().finally(() => (this.looking = undefined));
      await this.looking;
    }
    if (signal?.aborted) throw new Error('interrupted before it started: run the batch again to start it');
    this.reserved += 1;
  }

  started(render: RunningRender): void {
    this.reserved -= 1;
    this.running.push(render);
  }

  release(): void {
    this.reserved -= 1;
  }

  private async look(): Promise<void> {
    const oldest = this.running.slice(0, CHECKED_PER_LOOK);
    const ended = await Promise.all(oldest.map((r) => this.hasEnded(r).catch(() => false)));
    const gone = new Set(oldest.filter((_, i) => ended[i]));
    this.running = this.running.filter((r) => !gone.has(r));
    if (gone.size === 0) await new Promise((r) => setTimeout(r, this.pollMs));
  }
}

/** Errors that mean "not so fast": the start is tried again later, never failed for them alone. */
export function isThrottling(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return /^(ThrottlingException|TooManyRequestsException|ExecutionLimitExceeded|RequestLimitExceeded|SlowDown)$/.test(e?.name ?? '') || e?.$metadata?.httpStatusCode === 429;
}

const SLOWEST_MS = 30_000;
const GENTLEST_MS = 250;

/**
 * One pace for every start of a dispatch: each throttled start doubles the pause before the next
 * (from 250 ms up to 30 s, with jitter), each success halves it. A start is failed for throttling
 * only after `patienceMs` without any start succeeding.
 */
export class StartPacer {
  private delayMs = 0;
  private pausedUntil = 0;
  private lastSuccess = Date.now();

  constructor(private readonly patienceMs: number) {}

  async ready(): Promise<void> {
    const wait = this.pausedUntil - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }

  /** False once no start has succeeded for the patience: the caller gives up on its start. */
  throttled(): boolean {
    this.delayMs = Math.min(SLOWEST_MS, Math.max(GENTLEST_MS, this.delayMs * 2));
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + this.delayMs * (0.5 + Math.random() / 2));
    return Date.now() - this.lastSuccess < this.patienceMs;
  }

  succeeded(): void {
    this.delayMs = this.delayMs / 2 < GENTLEST_MS ? 0 : this.delayMs / 2;
    this.lastSuccess = Date.now();
  }
}
