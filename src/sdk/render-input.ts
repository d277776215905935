import type { MissingGlyphs } from '../runtime/glyph-check';
/**
 * What a render execution carries and where its objects live in the render bucket: the contract
 * between the SDK (which starts executions and reads progress) and the render function (which
 * plans, renders chunks and assembles). Both sides import it; nothing else defines these shapes.
 */
import type { OutputFormat } from '../render/formats';
import type { QualitySettings } from '../render/quality';
import type { WebhookOptions } from './webhook';

/** The SDK's render `config`, with its defaults applied. */
export interface RenderConfig {
  fps?: number;
  width?: number;
  height?: number;
  /** mp4, webm or mov: HDR is refused in distributed mode, before any request. */
  format: OutputFormat;
  variables: Record<string, unknown>;
  /** Frames per chunk; left unset, the plan uses DEFAULT_CHUNK_SIZE (src/options/constants.ts) and honours targetChunkFrames. */
  chunkSize?: number;
  maxParallelChunks: number;
  targetChunkFrames?: number;
  /** Seeds the page's Math.random and crypto; unset, the runtime's default (src/runtime/boot.ts). */
  seed?: string;
  /** What the page's Date reads at time 0; unset, the runtime's default epoch. */
  epochMs?: number;
}

export interface SiteRef {
  siteId: string;
  /** Key prefix of the site's files, ending in `/`. */
  prefix: string;
}

/** The `render` field of the execution input, handed to every invocation of the render function. */
export interface RenderJob {
  renderId: string;
  bucket: string;
  site: SiteRef;
  outputKey: string;
  config: RenderConfig;
  encode: QualitySettings;
  /** Posted by the render function when the render succeeds or fails (docs/guide/cloud.md, Completion webhook). */
  webhook?: WebhookOptions;
  /** The batch run this render belongs to: its end is counted there (batch-tracking.ts). */
  batch?: { batchId: string };
  /**
   * Where `config.variables` is when they did not fit the execution input (`hostLargeVariables`):
   * a JSON object in the render bucket, read once by each invocation; `config.variables` is empty.
   */
  hostedVariables?: { key: string; bytes: number };
}

/**
 * The version of what the SDK sends the render function: the execution input, and the events the
 * state machine and the SDK invoke it with, which carry the input's `version` on. Raise it with
 * any change to their shape that a function deployed before would misread: the function refuses
 * any version but its own.
 */
export const PAYLOAD_VERSION = 1;

export interface ExecutionInput {
  version: number;
  render: RenderJob;
}

/** Why the function cannot take a payload of version `sent`; undefined when it speaks it. */
export function payloadVersionMismatch(sent: unknown): string | undefined {
  if (sent === PAYLOAD_VERSION) return undefined;
  const speaks = `this function speaks version ${PAYLOAD_VERSION}`;
  if (typeof sent !== 'number') return `${speaks}, the SDK sent no version (a vidkit older than the function): upgrade vidkit, or redeploy with its vidkit cloudfn deploy`;
  if (sent > PAYLOAD_VERSION) return `${speaks}, the SDK sent version ${sent}: redeploy with vidkit cloudfn deploy`;
  return `${speaks}, the SDK sent version ${sent}: upgrade vidkit, or redeploy with its vidkit cloudfn deploy`;
}

export interface ChunkSpec {
  index: number;
  startFrame: number;
  endFrame: number;
  /**
   * Frames of the whole render, as the plan step found them (the page tells them when the root
   * declares no data-duration); absent, the root's data-duration gives them.
   */
  totalFrames?: number;
}

/** Written by the plan step. */
export interface PlanRecord {
  totalFrames: number;
  chunks: number;
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

export const siteKeys = {
  prefix: (siteId: string) => `sites/${siteId}/`,
  /** Written last: a site without it is incomplete and is uploaded again. */
  manifest: (siteId: string) => `sites/${siteId}/.vidkit-site.json`,
};

function pad(index: number): string {
  return String(index).padStart(4, '0');
}
