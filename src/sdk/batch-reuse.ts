import { createHash } from 'node:crypto';
import { differingIds } from '../composition/variables';
import { VERSION } from '../package-info';
import type { BatchItem } from './batch-dispatch';
import type { Indexed } from './map-limit';
import type { RenderPlan } from './render';
import type { RenderJob } from './render-input';

/**
 * Segment reuse in a cloud batch, the SDK's side (docs/explanation/batch-reuse.md, In the cloud).
 * The first line whose variables parse is the reference: its render draws the batch's shared
 * segments into the render bucket under a content key, and the other lines start once it has
 * ended, each joining those segments with the ones its own variables change.
 */
export interface BatchReuse {
  /** The line of the reference entry. */
  referenceLine: number;
  /** Its variables, from which the content key is made once its render is planned. */
  referenceVariables: Record<string, unknown>;
  /** Variables whose value, or whether a line sets it at all, differs between some line and the reference. */
  varying: string[];
}

/**
 * The reference and the varying variables of a batch, or undefined when it has fewer than two
 * lines whose variables parse (nothing to share). `parse` throws for a line that cannot render.
 */
export function planBatchReuse(entries: Indexed<BatchItem>, parse: (entry: BatchItem) => Record<string, unknown>): BatchReuse | undefined {
  let reference: { line: number; variables: Record<string, unknown> } | undefined;
  const varying = new Set<string>();
  let rows = 0;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries.at(i)!;
    let variables: Record<string, unknown>;
    try {
      variables = parse(entry);
    } catch {
      continue;
    }
    rows += 1;
    if (!reference) {
      reference = { line: entry.line, variables };
      continue;
    }
    for (const id of differingIds(reference.variables, variables)) varying.add(id);
  }
  if (!reference || rows < 2) return undefined;
  return { referenceLine: reference.line, referenceVariables: reference.variables, varying: [...varying].sort() };
}

/** Config fields that decide how the frames are split between invocations, never a frame's pixels or bytes. */
const NOT_IN_KEY = new Set(['chunkSize', 'maxParallelChunks', 'targetChunkFrames']);

/**
 * The content key of the shared segments of a batch whose reference renders as `plan`: the site
 * (a digest of its every file), the reference's variables, every setting of its config but how it
 * is split into chunks, the encoder settings and the vidkit that asks. Each segment's object adds
 * its frame range; the render function also checks that its own vidkit and browser drew them.
 */
export function reuseKey(plan: RenderPlan): string {
  const { render } = plan.input;
  const config = Object.fromEntries(Object.entries(render.config).filter(([field]) => field !== 'variables' && !NOT_IN_KEY.has(field)));
  const decided = {
    vidkit: VERSION,
    site: render.site.siteId,
    // Hosted or inline, the same variables give the same text.
    variables: plan.hostedVariables?.body ?? JSON.stringify(render.config.variables),
    config,
    encode: render.encode,
  };
  return createHash('sha256').update(JSON.stringify(decided)).digest('hex').slice(0, 32);
}

/** The execution input's `reuse` field of the render of `line`. */
export function reuseField(reuse: BatchReuse, key: string, line: number): NonNullable<RenderJob['reuse']> {
  return line === reuse.referenceLine ? { key, reference: { varying: reuse.varying } } : { key };
}

/**
 * Holds the other lines' starts until the reference's render is far enough along: `ready` says
 * when (its segments or its reason to share nothing are in the bucket, or it has ended). Settled
 * with the reference's render, or with nothing when it did not start.
 */
export class ReferenceGate {
  private settle!: (render: { renderId: string; executionArn: string | null } | undefined) => void;
  private readonly settled = new Promise<{ renderId: string; executionArn: string | null } | undefined>((resolve) => (this.settle = resolve));
  private opened?: Promise<void>;

  constructor(
    private readonly ready: (render: { renderId: string; executionArn: string | null }) => Promise<boolean>,
    private readonly pollMs: number,
    private readonly signal?: AbortSignal,
  ) {}

  /** The reference's render, or undefined when it did not start; later calls change nothing. */
  started(render: { renderId: string; executionArn: string | null } | undefined): void {
    this.settle(render);
  }

  /** Resolves once the reference's render is ready, or the batch is interrupted. */
  wait(): Promise<void> {
    this.opened ??= this.settled.then(async (render) => {
      while (render && !this.signal?.aborted && !(await this.ready(render).catch(() => true))) await new Promise((r) => setTimeout(r, this.pollMs));
    });
    return this.opened;
  }
}
