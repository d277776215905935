import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadComposition } from '../composition/composition';
import { EncodedSoundtrack, SoundtrackOptions, loadNative } from '../native';
import { RenderOptionSettings, resolveRenderSettings } from '../options/resolve';
import { CaptureSession, MediaElementTiming } from '../render/capture/capture-session';
import { SessionSlot, renderChunk, segmentEncoder } from '../render/capture/chunk-renderer';
import { encoderFormat, formatContentType, formatExtension } from '../values/formats';
import { fpsToRational } from '../values/fps';
import { RenderContextOptions, createRenderContext, framesOfPage, planRender, profileFor } from '../render/render-context';
import { MissingGlyphs, describeMissingGlyphs } from '../render/capture/missing-glyphs';
import { serveComposition } from '../render/serve/served-composition';
import { soundtrackDigest, soundtrackOf } from '../render/output/soundtrack';
import { deleteKeys, download, exists, getJson, listKeys, putJson, upload } from '../sdk/bucket-files';
import { ChunkProgressRecord, ChunkSpec, DirectResult, PlanRecord, PlannedReuse, RenderJob, renderKeys, reuseKeys, siteKeys } from '../sdk/render-input';
import { TransientChunkError, classifyChunkError } from './chunk-errors';
import { injectedFault } from './fault-injection';
import { RenderEndResult, renderEnded, sendBatchEvent } from './render-end';
import { AssembleResult, ChunkResult, RenderEvent, readRenderEvent } from '../sdk/render-event';
import { portableTimeline, timelineAssets } from './site-media';
import { planReuse, renderShared, reusedParts, unsharedReason } from './segment-reuse';

/**
 * The render function (cloud/handler.js is its entry). The first four modes are the steps of
 * the state machine in cloud/state-machine.asl.json:
 *   plan      read the site, plan the chunks (the native planner local renders use); in a batch
 *             that shares segments, the segments this row draws itself (segment-reuse.ts)
 *   chunk     render one frame range exactly as a local worker does, upload the segment; the chunk
 *             with the last frame also writes the page's media timeline. A batch's reference
 *             draws its whole video here, as the segments every row shares
 *   assemble  join the segments (native concat, stream copy), the shared ones too, mix the
 *             soundtrack from that timeline, and write the output key once complete
 *   webhook   the render has ended: post its outcome to its webhook, count it in its batch
 *             (render-end.ts); never fails the render
 * and two are invoked without it:
 *   direct        a whole render in this one invocation: plan, its chunk, assemble, then the same
 *                 end, with its outcome written where `progress` reads it (`direct: true`)
 *   batch-webhook post a batch's event, once render-batch's seal or a cancel completed its count
 */
const WORK_ROOT = process.env.VIDKIT_WORK_DIR ?? '/tmp/vidkit';
const PROGRESS_INTERVAL_MS = 2000;

/** A render `cloudfn cancel` stopped: its chunks stop and remove what they wrote. */
class RenderCancelled extends Error {
  constructor(renderId: string) {
    super(`render ${renderId} was cancelled`);
    this.name = 'RenderCancelled';
  }
}

const cancelled = (render: RenderJob) => exists(render.bucket, renderKeys.cancel(render.renderId));

/** Hosted variables by key: an environment that renders several chunks of a render reads them once. */
const hostedVariables = new Map<string, Promise<Record<string, unknown>>>();

/** The render with its variables in place: read from the bucket when they were hosted there. */
async function withVariables(render: RenderJob): Promise<RenderJob> {
  const hosted = render.hostedVariables;
  if (!hosted) return render;
  let variables = hostedVariables.get(hosted.key);
  if (!variables) {
    variables = getJson(render.bucket, hosted.key) as Promise<Record<string, unknown>>;
    hostedVariables.set(hosted.key, variables);
    variables.catch(() => hostedVariables.delete(hosted.key));
  }
  return { ...render, config: { ...render.config, variables: await variables } };
}

export async function handler(raw: unknown): Promise<unknown> {
  let event: RenderEvent;
  try {
    event = readRenderEvent(raw);
  } catch (err) {
    // A direct render is invoked asynchronously: its outcome goes where `progress` reads it, as its failures do.
    const sent = raw as { mode?: unknown; render?: { bucket?: unknown; renderId?: unknown } } | null;
    const render = sent?.mode === 'direct' ? sent.render : undefined;
    if (typeof render?.bucket === 'string' && typeof render.renderId === 'string') {
      const error = err as Error;
      return putJson(render.bucket, renderKeys.result(render.renderId), { status: 'failed', error: `${error.name}: ${error.message}` } satisfies DirectResult);
    }
    throw err;
  }
  switch (event.mode) {
    case 'plan':
      return plan(event.render);
    case 'chunk':
      return chunk(event.render, event.chunk).catch((err) => {
        throw classifyChunkError(err);
      });
    case 'assemble':
      return assemble(event.render, event.totalFrames, event.segments);
    case 'webhook':
      return renderEnded(event.render, { executionArn: event.executionArn, output: event.output, failure: event.failure });
    case 'direct':
      return direct(event.render);
    case 'batch-webhook':
      return sendBatchEvent(event.bucket, event.batchId);
  }
}

/**
 * The site's files under the work dir, downloaded once per execution environment: into a private
 * directory first, then renamed into place, so an environment sharing the disk never reads a half-written site.
 */
async function fetchSite(render: RenderJob): Promise<string> {
  const dir = path.join(WORK_ROOT, 'sites', render.site.siteId);
  if (fs.existsSync(dir)) return dir;
  const manifest = siteKeys.manifest(render.site.siteId);
  const keys = await listKeys(render.bucket, render.site.prefix);
  if (!keys.includes(manifest)) throw new Error(`site ${render.site.siteId} is incomplete or missing in bucket ${render.bucket}`);
  const partial = `${dir}.${process.pid}.partial`;
  fs.rmSync(partial, { recursive: true, force: true });
  for (const key of keys) await download(render.bucket, key, path.join(partial, key.slice(render.site.prefix.length)));
  try {
    fs.renameSync(partial, dir);
  } catch (err) {
    // Another environment on this disk finished first: its copy holds the same bytes.
    if (!['ENOTEMPTY', 'EEXIST'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
    fs.rmSync(partial, { recursive: true, force: true });
  }
  return dir;
}

/**
 * The settings of a cloud render: its config read again by the option table, as every surface's
 * options are, so each option the SDK sends arrives checked.
 */
export function cloudRenderSettings(render: RenderJob): RenderOptionSettings {
  return resolveRenderSettings('sdk', render.config);
}

/** The browser of every cloud render: the capture mode it supports, software GL. */
const CLOUD_BROWSER = { capture: 'auto', allowGpu: false } as const;

/** A render of a batch that shares segments between its rows (segment-reuse.ts). */
const isReusing = (render: RenderJob): render is RenderJob & { reuse: NonNullable<RenderJob['reuse']> } => render.reuse !== undefined;

/** The render context's options of a cloud render: the same for the plan and every chunk. */
function renderOptions(render: RenderJob, siteDir: string): RenderContextOptions {
  const settings = cloudRenderSettings(render);
  const { values } = settings;
  return {
    projectDir: siteDir,
    overrides: render.config.variables,
    strictVariables: false,
    inputLimits: settings.inputLimits,
    timeouts: settings.timeouts,
    format: settings.format,
    fps: values.fps,
    width: values.width,
    height: values.height,
    ...render.encode,
    ...CLOUD_BROWSER,
    seed: values.seed,
    epochMs: values.epoch,
  };
}

async function plan(job: RenderJob): Promise<{ totalFrames: number; chunks: ChunkSpec[] }> {
  if (await cancelled(job)) throw new RenderCancelled(job.renderId);
  const render = await withVariables(job);
  const siteDir = await fetchSite(render);
  const planned = planRender(renderOptions(render, siteDir));
  const totalFrames = planned.totalFrames ?? (await pageFrames(render, siteDir));
  let chunks: ChunkSpec[] = loadNative()
    .planChunks({
      totalFrames,
      maxParallelChunks: render.config.maxParallelChunks,
      chunkSize: render.config.chunkSize,
      targetChunkFrames: render.config.targetChunkFrames,
    })
    .map(({ index, startFrame, endFrame }) => ({ index, startFrame, endFrame, totalFrames }));
  let reuse: PlannedReuse | undefined;
  if (isReusing(render)) ({ chunks, reuse } = await planReuse(render, planned, totalFrames, await profileFor(CLOUD_BROWSER), chunks));
  await putJson(render.bucket, renderKeys.plan(render.renderId), { totalFrames, chunks: chunks.length, ...(reuse ? { reuse } : {}) } satisfies PlanRecord);
  // A cancel that came while planning has removed what it saw: the record goes here.
  if (await cancelled(render)) {
    await deleteKeys(render.bucket, [renderKeys.plan(render.renderId)]);
    throw new RenderCancelled(render.renderId);
  }
  return { totalFrames, chunks };
}

/**
 * The frames of a composition whose root declares no data-duration: its page, opened once in the
 * plan step, tells its length; the chunks get it from the plan.
 */
async function pageFrames(render: RenderJob, siteDir: string): Promise<number> {
  const context = await createRenderContext(renderOptions(render, siteDir));
  const workDir = path.join(WORK_ROOT, 'renders', render.renderId, 'plan');
  // A cloud site's upload resolved the project's links into files: a link there is not the author's.
  const server = await serveComposition(context.composition, workDir, { links: 'inside' });
  let session: CaptureSession | undefined;
  try {
    session = await CaptureSession.open({
      ...context.sessionOptions(server.url, server.assets, path.join(workDir, 'profile')),
      onWarning: (message) => console.warn(`vidkit: warning: ${message}`),
    });
    return await framesOfPage(context, session);
  } finally {
    await session?.close();
    await server.close();
    fs.rmSync(workDir, { recursive: true, force: true, maxRetries: 3 });
  }
}

async function chunk(job: RenderJob, range: ChunkSpec): Promise<ChunkResult> {
  await injectedFault(job, range.index);
  if (await cancelled(job)) throw new RenderCancelled(job.renderId);
  const render = await withVariables(job);
  const siteDir = await fetchSite(render);
  const { format } = render.config;
  const context = await createRenderContext({ ...renderOptions(render, siteDir), totalFrames: range.totalFrames });
  for (const w of context.warnings) console.warn(`vidkit: warning: ${w}`);
  const workDir = path.join(WORK_ROOT, 'renders', render.renderId, `chunk-${range.index}`);
  const segmentFile = path.join(workDir, `segment${formatExtension(format)}`);
  fs.mkdirSync(workDir, { recursive: true });
  const totalFrames = range.endFrame - range.startFrame;
  const progressKey = renderKeys.progress(render.renderId, range.index);
  const record = (frames: number, done: boolean, missingGlyphs: MissingGlyphs[] = []) =>
    putJson(render.bucket, progressKey, {
      index: range.index,
      frames,
      totalFrames,
      done,
      ...(missingGlyphs.length > 0 ? { missingGlyphs } : {}),
    } satisfies ChunkProgressRecord);
  await record(0, false);

  // The cloud path has no --allow-missing-media, --allow-private-network or --max-asset-bytes: a
  // remote asset that cannot be fetched, on a private address or over 512 MiB fails the render.
  const server = await serveComposition(context.composition, workDir, { links: 'inside' });
  let profiles = 0;
  const slot = new SessionSlot(() =>
    CaptureSession.open({
      ...context.sessionOptions(server.url, server.assets, path.join(workDir, `profile-${profiles++}`)),
      onWarning: (message) => console.warn(`vidkit: warning: chunk ${range.index}: ${message}`),
    }),
  );
  // The renderer reads the range's end before every frame: a cancel cuts it short.
  const live = { ...range };
  let stopped = false;
  const written = [progressKey];
  try {
    let frames = 0;
    let lastReport = Date.now();
    let reporting: Promise<void> = Promise.resolve();
    const onFrame = () => {
      // The shared segments are drawn one after another: a cancel stops the next frame.
      if (stopped) throw new RenderCancelled(render.renderId);
      frames += 1;
      if (Date.now() - lastReport >= PROGRESS_INTERVAL_MS) {
        lastReport = Date.now();
        reporting = reporting
          .then(async () => {
            if (await cancelled(render)) {
              stopped = true;
              live.endFrame = 0;
            } else await record(frames, false);
          })
          .catch(() => undefined);
      }
    };
    const onWarning = (message: string) => console.warn(`vidkit: warning: chunk ${range.index}: ${message}`);
    // The reference's whole video as one chunk draws the shared segments (a reference planned as today has several).
    const drawsShared = isReusing(render) && render.reuse.reference !== undefined && range.startFrame === 0 && range.endFrame === context.totalFrames;
    if (drawsShared && (await unsharedReason({ render, context, slot })) === undefined) {
      const shared = await renderShared({ render, context, slot, serverUrl: server.url, workDir, onFrame, onWarning });
      await reporting;
      for (const m of shared.missingGlyphs) onWarning(describeMissingGlyphs(m));
      await record(shared.frames, true, shared.missingGlyphs);
      return { index: range.index, frames: shared.frames, segmentKey: reuseKeys.record(render.reuse.key) };
    }
    const result = await renderChunk(slot, live, segmentEncoder(context.settings, segmentFile), { onFrame, onRelaunch: onWarning });
    await reporting;
    if (stopped) throw new RenderCancelled(render.renderId);
    // The page stepped through every earlier frame, so the last chunk's page has seen every media element.
    if (range.endFrame === context.totalFrames) {
      written.push(renderKeys.mediaTimeline(render.renderId));
      await putJson(render.bucket, renderKeys.mediaTimeline(render.renderId), portableTimeline(await (await slot.current()).mediaTimeline(), server.url));
    }
    const segmentKey = renderKeys.segment(render.renderId, range.index, formatExtension(format));
    written.push(segmentKey);
    await upload(render.bucket, segmentKey, segmentFile, formatContentType(format));
    // Only the chunk knows, once its frames are drawn: the render's progress carries it back.
    for (const m of result.missingGlyphs) console.warn(`vidkit: warning: chunk ${range.index}: ${describeMissingGlyphs(m)}`);
    await record(result.frames, true, result.missingGlyphs);
    // A cancel that came while this chunk finished has removed what it saw: the rest goes here.
    if (await cancelled(render)) throw new RenderCancelled(render.renderId);
    return { index: range.index, frames: result.frames, segmentKey };
  } catch (err) {
    if (err instanceof RenderCancelled) await deleteKeys(render.bucket, written);
    throw err;
  } finally {
    await slot.close();
    await server.close();
    fs.rmSync(workDir, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** Attempts of a direct render's chunk, as the state machine's RenderChunk Retry allows (1 s, then 2 s). */
const DIRECT_CHUNK_ATTEMPTS = 3;

async function chunkWithRetries(render: RenderJob, range: ChunkSpec): Promise<ChunkResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await chunk(render, range);
    } catch (err) {
      const classified = classifyChunkError(err);
      if (!(classified instanceof TransientChunkError) || attempt === DIRECT_CHUNK_ATTEMPTS) throw classified;
      console.warn(`vidkit: warning: chunk ${range.index}: ${classified.message}; attempt ${attempt + 1} of ${DIRECT_CHUNK_ATTEMPTS}`);
      await new Promise((r) => setTimeout(r, 1000 * 2 ** (attempt - 1)));
    }
  }
}

/**
 * A whole render in one invocation (`direct: true`): the state machine's steps in turn, its
 * outcome written to the bucket (progress reads it there) and then the same end as the state
 * machine's last step. Never throws: Lambda would run an asynchronous invocation again.
 */
async function direct(render: RenderJob): Promise<DirectResult & { end?: RenderEndResult }> {
  const finish = async (result: DirectResult) => {
    await putJson(render.bucket, renderKeys.result(render.renderId), result);
    return result;
  };
  try {
    const planned = await plan(render);
    const segments: ChunkResult[] = [];
    for (const range of planned.chunks) segments.push(await chunkWithRetries(render, range));
    const output = await assemble(render, planned.totalFrames, segments);
    const result = await finish({ status: 'done', output });
    return { ...result, end: await renderEnded(render, { executionArn: null, output }) };
  } catch (err) {
    // A cancelled render's end is counted by the cancel; it sends no render event, as an aborted execution does not.
    if (err instanceof RenderCancelled || (await cancelled(render).catch(() => false))) return finish({ status: 'aborted', error: `render ${render.renderId} was cancelled` });
    const e = classifyChunkError(err);
    const result = await finish({ status: 'failed', error: `${e.name}: ${e.message}` });
    return { ...result, end: await renderEnded(render, { executionArn: null, failure: { Error: e.name, Cause: e.message } }) };
  }
}

/**
 * The soundtrack of the rows that reuse, encoded once per batch under the reuse key (the local
 * batch keeps it in its work folder the same way): downloaded when a row before mixed it, else
 * mixed from the reference's timeline, encoded and uploaded for the rows after. Every reusing row
 * plays the reference's media at the reference's times, so the packets are the same for each.
 * Undefined when nothing audible plays.
 */
async function sharedSoundtrack(
  render: RenderJob & { reuse: NonNullable<RenderJob['reuse']> },
  made: { timeline: MediaElementTiming[]; durationSeconds: number },
  dir: string,
  mix: () => Promise<SoundtrackOptions>,
): Promise<EncodedSoundtrack | undefined> {
  const format = encoderFormat(render.config.format);
  const key = reuseKeys.soundtrack(render.reuse.key, soundtrackDigest(made.timeline, made.durationSeconds, format));
  const file = path.join(dir, 'soundtrack.sound');
  if (await exists(render.bucket, key)) {
    await download(render.bucket, key, file);
  } else {
    const options = await mix();
    if (options.tracks.length === 0 || !(await loadNative().keepSoundtrack(options, format, file))) return undefined;
    // Rows that assemble at the same moment may each upload it: the same bytes.
    await upload(render.bucket, key, file, 'application/octet-stream');
  }
  return loadNative().readSoundtrack(file, format);
}

async function assemble(render: RenderJob, totalFrames: number, segments: ChunkResult[]): Promise<AssembleResult> {
  const { format } = render.config;
  const extension = formatExtension(format);
  const dir = path.join(WORK_ROOT, 'renders', render.renderId, 'assemble');
  fs.mkdirSync(dir, { recursive: true });
  const partial = path.join(dir, `output.partial${extension}`);
  try {
    const ordered = [...segments].sort((a, b) => a.index - b.index);
    const timelineKey = renderKeys.mediaTimeline(render.renderId);
    const reused = isReusing(render) ? await reusedParts(render, new Map(ordered.map((s) => [s.index, s.segmentKey]))) : undefined;
    const parts = reused?.keys ?? ordered.map((s) => s.segmentKey);
    const files: string[] = [];
    for (const [i, key] of parts.entries()) {
      const file = path.join(dir, `part-${i}${extension}`);
      await download(render.bucket, key, file);
      files.push(file);
    }
    const timeline = reused?.timeline ?? ((await getJson(render.bucket, timelineKey)) as MediaElementTiming[]);
    const siteDir = await fetchSite(render);
    const fps = fpsToRational(render.config.fps ?? loadComposition(siteDir).fps);
    const durationSeconds = (totalFrames * fps.den) / fps.num;
    const mix = () => soundtrackOf(timeline, { assets: timelineAssets(siteDir, path.join(dir, 'assets')), durationSeconds });
    const options = { faststart: true, format: encoderFormat(format) };
    const joined = isReusing(render) && reused
      ? await loadNative().concatSegments(files, partial, options, await sharedSoundtrack(render, { timeline, durationSeconds }, dir, mix))
      : await loadNative().concatSegments(files, partial, { ...options, audio: await mix() });
    if (joined.frames !== totalFrames) throw new Error(`assembled ${joined.frames} frames, expected ${totalFrames}: not writing ${render.outputKey}`);
    if (await exists(render.bucket, render.outputKey)) console.warn(`vidkit: warning: replacing s3://${render.bucket}/${render.outputKey}`);
    await upload(render.bucket, render.outputKey, partial, formatContentType(format));
    // The shared segments stay for the batch's other rows and its re-runs.
    await deleteKeys(render.bucket, [...(reused?.own ?? ordered.map((s) => s.segmentKey)), timelineKey, ...(render.hostedVariables ? [render.hostedVariables.key] : [])]);
    return { bucket: render.bucket, outputKey: render.outputKey, frames: joined.frames, bytes: joined.bytes };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
