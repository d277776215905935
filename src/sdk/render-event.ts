import { Static, TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ChunkSpecSchema, PAYLOAD_VERSION, RenderJobSchema, payloadVersionMismatch } from './render-input';

/**
 * The events the render function is invoked with, one schema per mode: the four steps of the
 * state machine (cloud/state-machine.asl.json builds them from the execution input and the steps'
 * outputs) and the two the SDK invokes directly. The handler reads every event through
 * {@link readRenderEvent}, so a payload of another shape fails at once, naming the field, instead
 * of deep inside a render. Objects accept fields they do not name: Step Functions may add some.
 */

/** What a chunk step returns, and the assemble step receives as `segments`. */
export const ChunkResultSchema = Type.Object({
  index: Type.Integer({ minimum: 0 }),
  frames: Type.Integer({ minimum: 0 }),
  segmentKey: Type.String({ minLength: 1 }),
});
export type ChunkResult = Static<typeof ChunkResultSchema>;

/** What the assemble step returns, and the success webhook step receives as `output`. */
export const AssembleResultSchema = Type.Object({
  bucket: Type.String(),
  outputKey: Type.String(),
  frames: Type.Integer({ minimum: 0 }),
  bytes: Type.Integer({ minimum: 0 }),
});
export type AssembleResult = Static<typeof AssembleResultSchema>;

const version = Type.Literal(PAYLOAD_VERSION);

const MODES = {
  plan: Type.Object({ version, mode: Type.Literal('plan'), render: RenderJobSchema }),
  chunk: Type.Object({ version, mode: Type.Literal('chunk'), render: RenderJobSchema, chunk: ChunkSpecSchema }),
  assemble: Type.Object({ version, mode: Type.Literal('assemble'), render: RenderJobSchema, totalFrames: Type.Integer({ minimum: 1 }), segments: Type.Array(ChunkResultSchema) }),
  webhook: Type.Object({
    version,
    mode: Type.Literal('webhook'),
    render: RenderJobSchema,
    executionArn: Type.String(),
    output: Type.Optional(AssembleResultSchema),
    /** A Catch's result: the error's name and its cause. */
    failure: Type.Optional(Type.Object({ Error: Type.Optional(Type.String()), Cause: Type.Optional(Type.String()) })),
  }),
  direct: Type.Object({ version, mode: Type.Literal('direct'), render: RenderJobSchema }),
  'batch-webhook': Type.Object({ version, mode: Type.Literal('batch-webhook'), bucket: Type.String({ minLength: 1 }), batchId: Type.String({ minLength: 1 }) }),
} satisfies Record<string, TSchema>;

export type RenderMode = keyof typeof MODES;

export const RenderEventSchema = Type.Union(Object.values(MODES) as Array<(typeof MODES)[RenderMode]>, { title: 'vidkit render function event' });
export type RenderEvent = Static<typeof RenderEventSchema>;

/** An event from an SDK of another payload version: the function cannot read it, and retrying cannot help. */
export class PayloadVersionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PayloadVersionError';
  }
}

/** An event of this version whose fields do not match its mode's schema: a bug or a hand-made event; retrying cannot help. */
export class PayloadShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PayloadShapeError';
  }
}

/** The most field errors one message names. */
const MAX_NAMED = 5;

/**
 * `event` as the render function reads it. The version is checked first, so an SDK of another
 * version is told which one to upgrade whatever its events look like; then the mode's schema.
 */
export function readRenderEvent(event: unknown): RenderEvent {
  const fields = (event ?? {}) as { version?: unknown; mode?: unknown };
  const mismatch = payloadVersionMismatch(fields.version);
  if (mismatch) throw new PayloadVersionError(mismatch);
  const mode = fields.mode;
  if (typeof mode !== 'string' || !Object.hasOwn(MODES, mode)) {
    throw new PayloadShapeError(`unknown mode ${JSON.stringify(mode)}: expected ${Object.keys(MODES).join(', ')}`);
  }
  const schema = MODES[mode as RenderMode];
  if (Value.Check(schema, event)) return event;
  const errors = [...Value.Errors(schema, event)];
  const named = errors.slice(0, MAX_NAMED).map((e) => `${e.path || '/'}: ${e.message}`);
  const more = errors.length > MAX_NAMED ? ` (and ${errors.length - MAX_NAMED} more)` : '';
  throw new PayloadShapeError(`the ${mode} event does not match its schema (docs/reference/schemas/render-event.schema.json): ${named.join('; ')}${more}`);
}
