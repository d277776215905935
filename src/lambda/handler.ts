import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadComposition } from '../composition/composition';
import { loadNative } from '../native';
import { CaptureSession, MediaElementTiming } from '../render/capture-session';
import { SessionSlot, renderChunk, segmentEncoder } from '../render/chunk-renderer';
import { encoderFormat, formatContentType, formatExtension } from '../render/formats';
import { fpsToRational } from '../render/fps';
import { RenderContextOptions, createRenderContext, framesOfPage, planRender } from '../render/render-context';
import { serveComposition } from '../render/served-composition';
import { soundtrackOf } from '../render/soundtrack';
import { deleteKeys, download, exists, getJson, listKeys, putJson, upload } from '../sdk/bucket-files';
import { causeMessage } from '../sdk/progress';
import { ChunkProgressRecord, ChunkSpec, PlanRecord, RenderJob, renderKeys, siteKeys } from '../sdk/render-input';
import type { WebhookPayload } from '../sdk/webhook';
import { classifyChunkError } from './chunk-errors';
import { injectedFault } from './fault-injection';
import { portableTimeline, timelineAssets } from './site-media';
import { DeliveryResult, deliverWebhook } from './webhook-delivery';

/**
 * The render function (cloud/handler.js is its entry). One function, four modes, each a step of
 * the state machine in cloud/state-machine.asl.json:
 *   plan      read the site, plan the chunks (the native planner local renders use)
 *   chunk     render one frame range exactly as a local worker does, upload the segment; the chunk
 *             with the last frame also writes the page's media timeline
 *   assemble  join the segments (native concat, stream copy), mix the soundtrack from that
 *             timeline, and write the output key once complete
 *   webhook   post the render's outcome to its webhook, when it has one; never fails the render
 */
export type RenderEvent =
  | { mode: 'plan'; render: RenderJob }
  | { mode: 'chunk'; render: RenderJob; chunk: ChunkSpec }
  | { mode: 'assemble'; render: RenderJob; totalFrames: number; segments: ChunkResult[] }
  | { mode: 'webhook'; render: RenderJob; executionArn: string; output?: AssembleResult; failure?: { Error?: string; Cause?: string } };

type AssembleResult = { bucket: string; outputKey: string; frames: number; bytes: number };

export interface ChunkResult {
  index: number;
  frames: number;
  segmentKey: string;
}

const WORK_ROOT = process.env.VIDKIT_WORK_DIR ?? '/tmp/vidkit';
const PROGRESS_INTERVAL_MS = 2000;

export async function handler(event: RenderEvent): Promise<unknown> {
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
      return notify(event);
    default:
      throw new Error(`unknown mode ${JSON.stringify((event as { mode?: unknown }).mode)}: expected plan, chunk, assemble or webhook`);
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

/** The render context's options of a cloud render: the same for the plan and every chunk. */
function renderOptions(render: RenderJob, siteDir: string): RenderContextOptions {
  return {
    projectDir: siteDir,
    overrides: render.config.variables,
    strictVariables: false,
    format: render.config.format,
    fps: render.config.fps,
    width: render.config.width,
    height: render.config.height,
    ...render.encode,
    capture: 'auto',
    allowGpu: false,
    seed: render.config.seed,
    epochMs: render.config.epochMs,
  };
}

async function plan(render: RenderJob): Promise<{ totalFrames: number; chunks: ChunkSpec[] }> {
  const siteDir = await fetchSite(render);
  const totalFrames = planRender(renderOptions(render, siteDir)).totalFrames ?? (await pageFrames(render, siteDir));
  const chunks = loadNative()
    .planChunks({
      totalFrames,
      maxParallelChunks: render.config.maxParallelChunks,
      chunkSize: render.config.chunkSize,
      targetChunkFrames: render.config.targetChunkFrames,
    })
    .map(({ index, startFrame, endFrame }) => ({ index, startFrame, endFrame, totalFrames }));
  await putJson(render.bucket, renderKeys.plan(render.renderId), { totalFrames, chunks: chunks.length } satisfies PlanRecord);
  return { totalFrames, chunks };
}

/**
 * The frames of a composition whose root declares no data-duration: its page, opened once in the
 * plan step, tells its length; the chunks get it from the plan.
 */
async function pageFrames(render: RenderJob, siteDir: string): Promise<number> {
  const context = await createRenderContext(renderOptions(render, siteDir));
  const workDir = path.join(WORK_ROOT, 'renders', render.renderId, 'plan');
  const server = await serveComposition(context.composition, workDir, {});
  let session: CaptureSession | undefined;
  try {
    session = await CaptureSession.open(context.sessionOptions(server.url, server.assets, path.join(workDir, 'profile')));
    return await framesOfPage(context, session);
  } finally {
    await session?.close();
    await server.close();
    fs.rmSync(workDir, { recursive: true, force: true, maxRetries: 3 });
  }
}

async function chunk(render: RenderJob, range: ChunkSpec): Promise<ChunkResult> {
  await injectedFault(render, range.index);
  const siteDir = await fetchSite(render);
  const { format } = render.config;
  const context = await createRenderContext({ ...renderOptions(render, siteDir), totalFrames: range.totalFrames });
  for (const w of context.warnings) console.warn(`vidkit: warning: ${w}`);
  const workDir = path.join(WORK_ROOT, 'renders', render.renderId, `chunk-${range.index}`);
  const segmentFile = path.join(workDir, `segment${formatExtension(format)}`);
  fs.mkdirSync(workDir, { recursive: true });
  const totalFrames = range.endFrame - range.startFrame;
  const record = (frames: number, done: boolean) =>
    putJson(render.bucket, renderKeys.progress(render.renderId, range.index), { index: range.index, frames, totalFrames, done } satisfies ChunkProgressRecord);
  await record(0, false);

  // The cloud path has no --allow-missing-media, --allow-private-network or --max-asset-bytes: a
  // remote asset that cannot be fetched, on a private address or over 512 MiB fails the render.
  const server = await serveComposition(context.composition, workDir, {});
  let profiles = 0;
  const slot = new SessionSlot(() => CaptureSession.open(context.sessionOptions(server.url, server.assets, path.join(workDir, `profile-${profiles++}`))));
  try {
    const encoder = segmentEncoder(context.settings, segmentFile);
    let frames = 0;
    let lastReport = Date.now();
    let reporting: Promise<void> = Promise.resolve();
    const result = await renderChunk(slot, range, encoder, {
      onFrame: () => {
        frames += 1;
        if (Date.now() - lastReport >= PROGRESS_INTERVAL_MS) {
          lastReport = Date.now();
          reporting = reporting.then(() => record(frames, false)).catch(() => undefined);
        }
      },
      onRelaunch: (message) => console.warn(`vidkit: warning: chunk ${range.index}: ${message}`),
    });
    await reporting;
    // The page stepped through every earlier frame, so the last chunk's page has seen every media element.
    if (range.endFrame === context.totalFrames) {
      await putJson(render.bucket, renderKeys.mediaTimeline(render.renderId), portableTimeline(await (await slot.current()).mediaTimeline(), server.url));
    }
    const segmentKey = renderKeys.segment(render.renderId, range.index, formatExtension(format));
    await upload(render.bucket, segmentKey, segmentFile, formatContentType(format));
    await record(result.frames, true);
    return { index: range.index, frames: result.frames, segmentKey };
  } finally {
    await slot.close();
    await server.close();
    fs.rmSync(workDir, { recursive: true, force: true, maxRetries: 3 });
  }
}

async function assemble(render: RenderJob, totalFrames: number, segments: ChunkResult[]): Promise<AssembleResult> {
  const { format } = render.config;
  const extension = formatExtension(format);
  const dir = path.join(WORK_ROOT, 'renders', render.renderId, 'assemble');
  fs.mkdirSync(dir, { recursive: true });
  const partial = path.join(dir, `output.partial${extension}`);
  try {
    const ordered = [...segments].sort((a, b) => a.index - b.index);
    const files: string[] = [];
    for (const s of ordered) {
      const file = path.join(dir, `chunk-${s.index}${extension}`);
      await download(render.bucket, s.segmentKey, file);
      files.push(file);
    }
    const timelineKey = renderKeys.mediaTimeline(render.renderId);
    const timeline = (await getJson(render.bucket, timelineKey)) as MediaElementTiming[];
    const siteDir = await fetchSite(render);
    const fps = fpsToRational(render.config.fps ?? loadComposition(siteDir).fps);
    const audio = await soundtrackOf(timeline, {
      assets: timelineAssets(siteDir, path.join(dir, 'assets')),
      durationSeconds: (totalFrames * fps.den) / fps.num,
    });
    const joined = await loadNative().concatSegments(files, partial, { faststart: true, format: encoderFormat(format), audio });
    if (joined.frames !== totalFrames) throw new Error(`assembled ${joined.frames} frames, expected ${totalFrames}: not writing ${render.outputKey}`);
    if (await exists(render.bucket, render.outputKey)) console.warn(`vidkit: warning: replacing s3://${render.bucket}/${render.outputKey}`);
    await upload(render.bucket, render.outputKey, partial, formatContentType(format));
    await deleteKeys(render.bucket, [...ordered.map((s) => s.segmentKey), timelineKey]);
    return { bucket: render.bucket, outputKey: render.outputKey, frames: joined.frames, bytes: joined.bytes };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The state machine's last step when the render has a webhook: the outcome, signed, retried; logged when undelivered. */
async function notify(event: Extract<RenderEvent, { mode: 'webhook' }>): Promise<DeliveryResult | { skipped: string }> {
  const { render } = event;
  if (!render.webhook) return { skipped: 'no webhook' };
  const common = { renderId: render.renderId, executionArn: event.executionArn, bucket: render.bucket, outputKey: render.outputKey, sentAt: new Date().toISOString() };
  const payload: WebhookPayload = event.output
    ? { type: 'render.succeeded', ...common, output: { url: `s3://${event.output.bucket}/${event.output.outputKey}`, frames: event.output.frames, bytes: event.output.bytes } }
    : { type: 'render.failed', ...common, error: [event.failure?.Error, causeMessage(event.failure?.Cause)].filter(Boolean).join(': ') || 'the render failed' };
  const result = await deliverWebhook(render.webhook, payload);
  if (!result.delivered) console.warn(`vidkit: warning: webhook ${render.webhook.url} not delivered after ${result.attempts} attempt(s): ${result.error}`);
  return result;
}
