import * as path from 'node:path';
import { differingVariables, rowSegments } from '../batch/reuse-plan';
import { cutFrames, framesOf } from '../render/plan/cell-grid';
import { VERSION } from '../package-info';
import type { BrowserProfile } from '../render/browser/browser';
import { MediaElementTiming } from '../render/capture/capture-session';
import { ChunkRange, SessionSlot, renderChunk, segmentEncoder } from '../render/capture/chunk-renderer';
import { MissingGlyphs, mergeMissingGlyphs } from '../render/capture/missing-glyphs';
import type { PlannedRender, RenderContext } from '../render/render-context';
import type { PageReach } from '../runtime/protocol';
import { deleteKeys, exists, getJson, listKeys, putJson, upload } from '../sdk/bucket-files';
import { overInvocationCap } from '../sdk/render';
import { ChunkSpec, PlannedReuse, RenderJob, renderKeys, reuseKeys } from '../sdk/render-input';
import { formatContentType, formatExtension } from '../values/formats';
import { portableTimeline } from './site-media';

/**
 * Segment reuse in the cloud batch (docs/explanation/batch-reuse.md, In the cloud): the render
 * function's side. The batch's reference row renders its video once in one page, cut where the
 * frames the varying variables reach begin and end, into `reuse/<key>/` with a record of what the
 * variables reached ({@link SharedRecord}); every row of the batch (the reference included) then
 * renders only the segments its own differing variables reach and joins the rest from there.
 */

/** What the reference row's render left under its content key. */
export interface SharedRecord {
  /** The vidkit and browser that drew the segments ({@link rendererOf}): another one may draw other pixels. */
  renderer: string;
  totalFrames: number;
  /** The reference's variables as its page got them: a row's differing variables are found against them. */
  reference: Pick<PlannedRender['boot'], 'variables' | 'overrides'>;
  /** What the variables reached over the reference's every frame. */
  reach: PageReach;
  segments: ChunkRange[];
  /** Text no font could draw, per segment. */
  missingGlyphs: MissingGlyphs[][];
  /** The media the reference's page showed (portable: site paths): the soundtrack of every row that reuses. */
  timeline: MediaElementTiming[];
}

/** Everything about the drawing that the content key cannot know from the SDK: vidkit's version and the browser's. */
export function rendererOf(profile: Pick<BrowserProfile, 'version' | 'capture' | 'gl'>): string {
  return `vidkit ${VERSION}; ${profile.version}; ${profile.capture}; ${profile.gl}`;
}

/** The record under `key` when it and every segment it names are in the bucket. */
export async function readShared(render: RenderJob, key: string): Promise<SharedRecord | undefined> {
  const keys = new Set(await listKeys(render.bucket, reuseKeys.prefix(key)));
  if (!keys.has(reuseKeys.record(key))) return undefined;
  const record = (await getJson(render.bucket, reuseKeys.record(key))) as SharedRecord;
  const extension = formatExtension(render.config.format);
  return record.segments.every((s) => keys.has(reuseKeys.segment(key, s.startFrame, s.endFrame, extension))) ? record : undefined;
}

/** Why nothing of a batch can be shared, found when its reference's page loaded. */
interface UnsharedRecord {
  renderer: string;
  whole: string;
}

/** A render of the batch that joins nothing shared. */
function whole(totalFrames: number, why: string): PlannedReuse {
  return { segments: 1, reusedSegments: 0, framesRendered: totalFrames, framesReused: 0, whole: why };
}

/** What a row takes from `record`, drawing the segments of `own` itself. */
function joined(record: SharedRecord, own: Set<number>): PlannedReuse {
  const ownFrames = record.segments.filter((s) => own.has(s.index)).reduce((n, s) => n + s.endFrame - s.startFrame, 0);
  const shared = record.segments.filter((s) => !own.has(s.index));
  const missingGlyphs = mergeMissingGlyphs(shared.map((s) => record.missingGlyphs[s.index] ?? []));
  return {
    segments: record.segments.length,
    reusedSegments: shared.length,
    framesRendered: ownFrames,
    framesReused: record.totalFrames - ownFrames,
    own: [...own].sort((a, b) => a - b),
    ...(missingGlyphs.length > 0 ? { missingGlyphs } : {}),
  };
}

/**
 * The plan of a render that belongs to a reusing batch: the chunks it renders and what it reuses.
 * `chunks` is the plan without reuse, used when the row renders whole. The reference renders its
 * whole video as one chunk when the shared segments are not there yet (or were drawn by another
 * renderer); any other row then renders whole, as it does when its differing variables cannot
 * be bounded.
 */
export async function planReuse(
  render: RenderJob & { reuse: NonNullable<RenderJob['reuse']> },
  planned: PlannedRender,
  totalFrames: number,
  profile: BrowserProfile,
  chunks: ChunkSpec[],
): Promise<{ chunks: ChunkSpec[]; reuse: PlannedReuse }> {
  const record = await readShared(render, render.reuse.key);
  const renderer = rendererOf(profile);
  const fresh = record?.renderer === renderer ? record : undefined;
  if (!fresh) {
    // The reference draws its whole video in one invocation: one that would outrun the cap renders as today.
    if (render.reuse.reference && overInvocationCap(totalFrames, planned.size.width, planned.size.height)) {
      const why = `the first row would draw its whole video (${totalFrames} frames) in one invocation, longer than the 15-minute function cap by estimate`;
      await putJson(render.bucket, reuseKeys.unshared(render.reuse.key), { renderer, whole: why } satisfies UnsharedRecord);
      return { chunks, reuse: whole(totalFrames, why) };
    }
    if (render.reuse.reference) return { chunks: [{ index: 0, startFrame: 0, endFrame: totalFrames, totalFrames }], reuse: { segments: 1, reusedSegments: 0, framesRendered: totalFrames, framesReused: 0, own: [0] } };
    const unshared = (await exists(render.bucket, reuseKeys.unshared(render.reuse.key))) ? ((await getJson(render.bucket, reuseKeys.unshared(render.reuse.key))) as UnsharedRecord) : undefined;
    const why = record
      ? `the shared segments were drawn by ${record.renderer}, and this function draws with ${renderer}`
      : unshared?.renderer === renderer
        ? unshared.whole
        : 'the shared segments are not in the bucket (the first row of the batch did not render them)';
    return { chunks, reuse: whole(totalFrames, why) };
  }
  if (fresh.totalFrames !== totalFrames) return { chunks, reuse: whole(totalFrames, "its length differs from the first row's") };
  const decision = rowSegments(fresh.reach, differingVariables(fresh.reference, planned.boot), fresh.segments);
  if ('whole' in decision) return { chunks, reuse: whole(totalFrames, decision.whole) };
  return {
    chunks: fresh.segments.filter((s) => decision.own.has(s.index)).map((s) => ({ index: s.index, startFrame: s.startFrame, endFrame: s.endFrame, totalFrames })),
    reuse: joined(fresh, decision.own),
  };
}

export interface SharedRenderOptions {
  render: RenderJob & { reuse: NonNullable<RenderJob['reuse']> };
  context: RenderContext;
  slot: SessionSlot;
  serverUrl: string;
  workDir: string;
  /** Called after every frame; it may throw to stop the render (a cancel). */
  onFrame: () => void;
  onWarning: (message: string) => void;
}

/**
 * Why nothing can be shared, once the reference's page has loaded: every varying variable is
 * already out of bounds (reads only add up as the page plays). Then the record says so at once,
 * the other rows start without waiting and render whole, and so does the reference: its plan
 * record is rewritten and its chunk renders as any other. Undefined when something may be shared.
 */
export async function unsharedReason(opts: Pick<SharedRenderOptions, 'render' | 'context' | 'slot'>): Promise<string | undefined> {
  const { render, context, slot } = opts;
  const varying = render.reuse.reference?.varying ?? [];
  const totalFrames = context.totalFrames!;
  const reach = await (await slot.current()).reach(totalFrames);
  const reasons = varying.map((id) => framesOf(reach, id));
  if (varying.length === 0 || !reasons.every((r) => typeof r === 'string')) return undefined;
  const why = reasons[0] as string;
  await putJson(render.bucket, reuseKeys.unshared(render.reuse.key), { renderer: rendererOf(context.profile), whole: why } satisfies UnsharedRecord);
  await putJson(render.bucket, renderKeys.plan(render.renderId), { totalFrames, chunks: 1, reuse: whole(totalFrames, why) });
  return why;
}

/**
 * The reference row's chunk: its whole video in one page (every frame stepped, so every read a
 * page script makes is recorded), as the segments every row is joined from, uploaded under the
 * content key; the record goes last, so it names only segments that are there. The render's plan
 * record then says it reuses them all, as every other row that joins them does.
 */
export async function renderShared(opts: SharedRenderOptions): Promise<{ frames: number; missingGlyphs: MissingGlyphs[] }> {
  const { render, context, slot } = opts;
  const { key, reference } = render.reuse;
  const totalFrames = context.totalFrames!;
  const extension = formatExtension(render.config.format);
  const segments = cutFrames(await (await slot.current()).reach(totalFrames), reference?.varying ?? [], totalFrames);
  const missingGlyphs: MissingGlyphs[][] = [];
  // A relaunched browser's page has not seen the frames before it: the reads made there are lost.
  let relaunched = false;
  for (const s of segments) {
    const file = path.join(opts.workDir, `frames-${s.startFrame}-${s.endFrame}${extension}`);
    const done = await renderChunk(slot, s, segmentEncoder(context.settings, file), {
      onFrame: opts.onFrame,
      onRelaunch: (message) => {
        relaunched = true;
        opts.onWarning(message);
      },
    });
    missingGlyphs.push(done.missingGlyphs);
    await upload(render.bucket, reuseKeys.segment(key, s.startFrame, s.endFrame, extension), file, formatContentType(render.config.format));
  }
  const last = await slot.current();
  const reach = await last.reach(totalFrames);
  const record: SharedRecord = {
    renderer: rendererOf(context.profile),
    totalFrames,
    reference: { variables: context.boot.variables, overrides: context.boot.overrides },
    reach: relaunched ? { ...reach, whole: 'the browser was relaunched while the first row rendered, so the reads its page made before are not known' } : reach,
    segments,
    missingGlyphs,
    timeline: portableTimeline(await last.mediaTimeline(), opts.serverUrl),
  };
  await putJson(render.bucket, reuseKeys.record(key), record);
  // An earlier run's word that nothing could be shared (other varying variables) no longer holds.
  await deleteKeys(render.bucket, [reuseKeys.unshared(key)]);
  await putJson(render.bucket, renderKeys.plan(render.renderId), { totalFrames, chunks: 1, reuse: joined(record, new Set()) });
  return { frames: totalFrames, missingGlyphs: mergeMissingGlyphs(missingGlyphs) };
}

/**
 * The files an output of a reusing render is joined from, in order: its own segments (from its
 * chunks' results) and the shared ones; with the soundtrack's timeline. Undefined when the render
 * was planned whole.
 */
export async function reusedParts(render: RenderJob & { reuse: NonNullable<RenderJob['reuse']> }, ownKeys: Map<number, string>): Promise<{ keys: string[]; own: string[]; timeline: MediaElementTiming[] } | undefined> {
  const planned = (await getJson(render.bucket, renderKeys.plan(render.renderId))) as { reuse?: PlannedReuse };
  if (!planned.reuse?.own) return undefined;
  const record = await readShared(render, render.reuse.key);
  if (!record) throw new Error(`the shared segments under s3://${render.bucket}/${reuseKeys.prefix(render.reuse.key)} are gone: render the batch again`);
  const own = new Set(planned.reuse.own);
  const extension = formatExtension(render.config.format);
  const keys = record.segments.map((s) => {
    if (!own.has(s.index)) return reuseKeys.segment(render.reuse.key, s.startFrame, s.endFrame, extension);
    const key = ownKeys.get(s.index);
    if (key === undefined) throw new Error(`segment ${s.index} (frames ${s.startFrame}-${s.endFrame}) was planned for this render and not rendered`);
    return key;
  });
  return { keys, own: [...own].map((index) => ownKeys.get(index)!), timeline: record.timeline };
}
