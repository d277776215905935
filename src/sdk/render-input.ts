import type { MissingGlyphs } from '../runtime/glyph-check';
/**
 * What a render execution carries and where its objects live in the render bucket: the contract
 * between the SDK (which starts executions and reads progress) and the render function (which
 * plans, renders chunks and assembles). Both sides import it; nothing else defines these shapes.
 */
import { Static, Type } from '@sinclair/typebox';
import { configOptionFields } from '../options/config-fields';
import { OUTPUT_FORMATS } from '../values/constants';
import type { OutputFormat } from '../values/formats';
import { QualitySettingsSchema } from '../values/quality';
import { WebhookOptionsSchema } from './webhook';

/**
 * The SDK's render `config`, with its defaults applied. A field this function does not know is
 * refused, not ignored: an option added to the table after it was deployed fails the render,
 * naming the field, instead of being dropped.
 */
export const RenderConfigSchema = Type.Object(
  {
    // Every render option the table applies to the SDK's config, as its check reads it: fps, size,
    // seed, epoch, the input limits, the chunk plan (docs/reference/render-options.md).
    ...configOptionFields(),
    /** mp4, webm or mov: HDR is refused in distributed mode, before any request. */
    format: Type.Union(OUTPUT_FORMATS.map((f: OutputFormat) => Type.Literal(f))),
    variables: Type.Record(Type.String(), Type.Unknown()),
    maxParallelChunks: Type.Number({ description: 'Chunks rendered at once' }),
    /** Page deadlines of each chunk in milliseconds; unset, the local defaults. */
    timeouts: Type.Optional(Type.Object({ loadMs: Type.Optional(Type.Number()), frameMs: Type.Optional(Type.Number()) })),
  },
  { additionalProperties: false },
);
export type RenderConfig = Static<typeof RenderConfigSchema>;

export const SiteRefSchema = Type.Object({
  siteId: Type.String({ minLength: 1 }),
  /** Key prefix of the site's files, ending in `/`. */
  prefix: Type.String({ pattern: '/$' }),
});
export type SiteRef = Static<typeof SiteRefSchema>;

/** The `render` field of the execution input, handed to every invocation of the render function. */
export const RenderJobSchema = Type.Object({
  renderId: Type.String({ minLength: 1 }),
  bucket: Type.String({ minLength: 1 }),
  site: SiteRefSchema,
  outputKey: Type.String({ minLength: 1 }),
  config: RenderConfigSchema,
  encode: QualitySettingsSchema,
  /** Posted by the render function when the render succeeds or fails (docs/guide/cloud.md, Completion webhook). */
  webhook: Type.Optional(WebhookOptionsSchema),
  /** The batch run this render belongs to: its end is counted there (batch-tracking.ts). */
  batch: Type.Optional(Type.Object({ batchId: Type.String({ minLength: 1 }) })),
  /**
   * Where `config.variables` is when they did not fit the execution input (`hostLargeVariables`):
   * a JSON object in the render bucket, read once by each invocation; `config.variables` is empty.
   */
  hostedVariables: Type.Optional(Type.Object({ key: Type.String({ minLength: 1 }), bytes: Type.Integer({ minimum: 0 }) })),
  /**
   * A batch's segment reuse (docs/explanation/batch-reuse.md, In the cloud): the content key of
   * the segments the batch renders once, under `reuse/<key>/`. `reference` is set on the one row
   * that renders them, with the variables whose value differs between rows (where they are cut).
   */
  reuse: Type.Optional(
    Type.Object({
      key: Type.String({ pattern: '^[0-9a-f]{32}$' }),
      reference: Type.Optional(Type.Object({ varying: Type.Array(Type.String({ minLength: 1 }), { maxItems: 1000 }) })),
    }),
  ),
});
export type RenderJob = Static<typeof RenderJobSchema>;

/**
 * The version of what the SDK sends the render function: the execution input, and the events the
 * state machine and the SDK invoke it with, which carry the input's `version` on. Raise it with
 * any change to their shape that a function deployed before would misread: the function refuses
 * any version but its own.
 */
export const PAYLOAD_VERSION = 2;

/** What a render's execution starts with; the state machine hands `version` and `render` to each step. */
export const ExecutionInputSchema = Type.Object({
  version: Type.Literal(PAYLOAD_VERSION),
  render: RenderJobSchema,
});
export type ExecutionInput = Static<typeof ExecutionInputSchema>;

/** Why the function cannot take a payload of version `sent`; undefined when it speaks it. */
export function payloadVersionMismatch(sent: unknown): string | undefined {
  if (sent === PAYLOAD_VERSION) return undefined;
  const speaks = `this function speaks version ${PAYLOAD_VERSION}`;
  if (typeof sent !== 'number') return `${speaks}, the SDK sent no version (a vidkit older than the function): upgrade vidkit, or redeploy with its vidkit cloudfn deploy`;
  if (sent > PAYLOAD_VERSION) return `${speaks}, the SDK sent version ${sent}: redeploy with vidkit cloudfn deploy`;
  return `${speaks}, the SDK sent version ${sent}: upgrade vidkit, or redeploy with its vidkit cloudfn deploy`;
}

export const ChunkSpecSchema = Type.Object({
  index: Type.Integer({ minimum: 0 }),
  startFrame: Type.Integer({ minimum: 0 }),
  endFrame: Type.Integer({ minimum: 0 }),
  /**
   * Frames of the whole render, as the plan step found them (the page tells them when the root
   * declares no data-duration); absent, the root's data-duration gives them.
   */
  totalFrames: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type ChunkSpec = Static<typeof ChunkSpecSchema>;

/** Written by the plan step. */
export interface PlanRecord {
  totalFrames: number;
  chunks: number;
  /** A render of a batch that reuses segments: what it takes from them (its chunks are the segments it renders itself). */
  reuse?: PlannedReuse;
}

/** What a render of a reusing batch takes from the segments rendered once (docs/guide/cloud-batch.md, Segment reuse). */
export interface PlannedReuse {
  /** Segments the output is joined from (1 when it renders whole). */
  segments: number;
  /** Of those, rendered once for the batch and shared. */
  reusedSegments: number;
  /** Frames this render draws itself. */
  framesRendered: number;
  /** Frames taken from the shared segments. */
  framesReused: number;
  /** Indices of the segments this render draws itself; absent when it renders whole. */
  own?: number[];
  /** Text no font could draw in the shared segments it takes. */
  missingGlyphs?: MissingGlyphs[];
  /** Why the render is whole: its variables cannot be bounded, or the shared segments are not there. */
  whole?: string;
}

/** Written by each chunk while it renders and when it is done. */
export interface ChunkProgressRecord {
  index: number;
  frames: number;
  totalFrames: number;
  done: boolean;
  /** Once done: the chunk's text that no font could draw (docs/explanation/fonts.md); absent when none. */
  missingGlyphs?: MissingGlyphs[];
}

export const renderKeys = {
  prefix: (renderId: string) => `renders/${renderId}/`,
  plan: (renderId: string) => `renders/${renderId}/plan.json`,
  progressPrefix: (renderId: string) => `renders/${renderId}/progress/`,
  progress: (renderId: string, index: number) => `renders/${renderId}/progress/chunk-${pad(index)}.json`,
  /** `extension` is the output format's, with its dot. */
  segment: (renderId: string, index: number, extension: string) => `renders/${renderId}/segments/chunk-${pad(index)}${extension}`,
  /** The media elements the page played, written by the chunk that renders the last frame; the soundtrack is mixed from it. */
  mediaTimeline: (renderId: string) => `renders/${renderId}/media-timeline.json`,
  fault: (renderId: string, index: number) => `renders/${renderId}/faults/chunk-${pad(index)}`,
  /** The variables of a render whose input would not fit 256 KiB (`hostLargeVariables`). */
  variables: (renderId: string) => `renders/${renderId}/variables.json`,
  /** Written by `cloudfn cancel`: a chunk that sees it stops and removes what it wrote. */
  cancel: (renderId: string) => `renders/${renderId}/cancel.json`,
  /** A direct render's input and start (it has no execution to hold them): {@link DirectRecord}. */
  direct: (renderId: string) => `renders/${renderId}/direct.json`,
  /** A direct render's outcome, written when it ends: {@link DirectResult}. */
  result: (renderId: string) => `renders/${renderId}/result.json`,
};

/** What `direct` mode renders from, written by the client before it invokes the function. */
export interface DirectRecord extends ExecutionInput {
  /** When the client invoked the function (ISO 8601, UTC). */
  startedAt: string;
}

/** How a direct render ended, as the execution's output and status would say for a state-machine render. */
export interface DirectResult {
  status: 'done' | 'failed' | 'aborted';
  output?: { bucket: string; outputKey: string; frames: number; bytes: number };
  error?: string;
}

/**
 * A batch's shared segments, under a content key of everything that decides their bytes
 * (src/sdk/batch-reuse.ts): kept for re-runs and resumes, never deleted by a render.
 */
export const reuseKeys = {
  prefix: (key: string) => `reuse/${key}/`,
  /** What the reference row's page showed and what its variables reach; written last, once every segment is there. */
  record: (key: string) => `reuse/${key}/shared.json`,
  /**
   * Written instead, as soon as the reference's page has loaded, when none of the varying
   * variables can be bounded: nothing will be shared, so the other rows need not wait.
   */
  unshared: (key: string) => `reuse/${key}/unshared.json`,
  /** `extension` is the output format's, with its dot. */
  segment: (key: string, startFrame: number, endFrame: number, extension: string) => `reuse/${key}/frames-${pad(startFrame, 7)}-${pad(endFrame, 7)}${extension}`,
  /** The reusing rows' soundtrack, mixed and encoded once; `digest` names its timeline, length and format. */
  soundtrack: (key: string, digest: string) => `reuse/${key}/soundtrack-${digest}.sound`,
};

export const siteKeys = {
  prefix: (siteId: string) => `sites/${siteId}/`,
  /** Written last: a site without it is incomplete and is uploaded again. */
  manifest: (siteId: string) => `sites/${siteId}/.vidkit-site.json`,
};

function pad(index: number, width = 4): string {
  return String(index).padStart(width, '0');
}
