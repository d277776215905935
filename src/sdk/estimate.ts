import { badInput } from '../errors';
import { MAX_MEMORY_MB } from './defaults';
import { PRICE_LIST } from './price-list';

/**
 * What one cloud render is expected to cost, from its chunk plan (docs/guide/cloud.md, Cost estimate). The
 * render times are assumptions, not measurements of this composition: a page with heavy effects
 * takes longer, and the estimate with it.
 */

/** Capture and encode of one frame per megapixel on a 10240 MB function (6 vCPU); conservative. */
export const SECONDS_PER_MEGAPIXEL_FRAME = 0.25;
/** Start of each chunk invocation: a cold environment, the site's download, the browser's launch and the page's load. */
const CHUNK_START_SECONDS = 5;
/** The plan step: the site's download and the native planner. */
const PLAN_SECONDS = 3;
/** The assemble step: segments in, stream copy, the output out. */
const ASSEMBLE_SECONDS = 3;
const ASSEMBLE_SECONDS_PER_FRAME = 0.002;
const WEBHOOK_SECONDS = 1;
/** The function's /tmp (cloud/template.json EphemeralStorage), of which 512 MB is free. */
const EPHEMERAL_STORAGE_MB = 10240;
const FREE_STORAGE_MB = 512;
/** A chunk writes its progress record at its start, every 2 s and at its end (src/lambda/handler.ts). */
const PROGRESS_INTERVAL_SECONDS = 2;
/** States every render enters besides one RenderChunk per chunk: Plan, RenderChunks, Assemble, NotifyOnSuccess, Succeeded (cloud/state-machine.asl.json). */
const FIXED_TRANSITIONS = 5;

export interface EstimateInput {
  /** Frames of each chunk from the native planner (`validateConfig(...).chunkFrames`); undefined when the page tells the length. */
  chunkFrames: number[] | undefined;
  width: number;
  height: number;
  /** The render function's memory; default 10240. */
  memoryMb?: number;
  /** Files of the site, when it is uploaded by this render (not with --site-id). */
  uploadedSiteFiles?: number;
  /** Files every invocation downloads: the site's. */
  siteFiles: number;
  webhook?: boolean;
}

export interface RenderCostEstimate {
  totalFrames: number;
  chunks: number;
  width: number;
  height: number;
  memoryMb: number;
  assumptions: { secondsPerFrame: number; chunkStartSeconds: number };
  lambda: { invocations: number; seconds: number; gbSeconds: number; cost: number };
  stepFunctions: { stateTransitions: number; cost: number };
  s3: { putOrListRequests: number; getRequests: number; cost: number };
  /** US dollars. */
  totalCost: number;
  prices: { recorded: string; region: string };
}

/** Every invocation's seconds and requests, priced with {@link PRICE_LIST}. Makes no request. */
export function estimateRenderCost(input: EstimateInput): RenderCostEstimate {
  const { chunkFrames } = input;
  if (chunkFrames === undefined) {
    throw badInput('the composition declares no data-duration: its length is measured on the page when the render runs, so no estimate can be made before; set data-duration on the root');
  }
  const memoryMb = input.memoryMb ?? MAX_MEMORY_MB;
  // CPU is proportional to memory on Lambda: half the memory, about twice the time per frame.
  const secondsPerFrame = ((SECONDS_PER_MEGAPIXEL_FRAME * input.width * input.height) / 1e6) * (MAX_MEMORY_MB / memoryMb);
  const chunks = chunkFrames.length;
  const totalFrames = chunkFrames.reduce((a, b) => a + b, 0);
  const chunkSeconds = chunkFrames.map((frames) => CHUNK_START_SECONDS + frames * secondsPerFrame);
  const invocationSeconds = [PLAN_SECONDS, ...chunkSeconds, ASSEMBLE_SECONDS + totalFrames * ASSEMBLE_SECONDS_PER_FRAME, ...(input.webhook ? [WEBHOOK_SECONDS] : [])];
  const seconds = invocationSeconds.reduce((a, b) => a + b, 0);
  const gbSeconds = (seconds * memoryMb) / 1024;
  const storageGbSeconds = (seconds * (EPHEMERAL_STORAGE_MB - FREE_STORAGE_MB)) / 1024;
  const { lambda, stepFunctions, s3 } = PRICE_LIST;
  const lambdaCost = gbSeconds * lambda.perGbSecond + storageGbSeconds * lambda.perStorageGbSecond + invocationSeconds.length * lambda.perRequest;

  const stateTransitions = FIXED_TRANSITIONS + chunks + (input.webhook ? 1 : 0);

  // Plan, every chunk and assemble each fetch the site into a fresh environment (at worst): a LIST and a GET a file.
  const siteFetches = chunks + 2;
  const progressPuts = chunkSeconds.reduce((n, s) => n + 2 + Math.floor(s / PROGRESS_INTERVAL_SECONDS), 0);
  const putOrListRequests =
    (input.uploadedSiteFiles === undefined ? 0 : input.uploadedSiteFiles + 1) + // the site's files and its manifest
    siteFetches + // LIST of the site
    1 + // plan.json
    progressPuts +
    chunks + // segments
    1 + // the media timeline
    1; // the output
  // The cancel marker is looked for (HEAD) twice by the plan, and by each chunk at its start, at each progress report and at its end.
  const cancelChecks = 2 + progressPuts;
  const getRequests =
    1 + // HEAD of the site's manifest before uploading
    cancelChecks +
    siteFetches * input.siteFiles +
    chunks + // segments, in assemble
    1 + // the media timeline
    1; // HEAD of the output key
  const s3Cost = putOrListRequests * s3.perPutOrList + getRequests * s3.perGet;
  const sfnCost = stateTransitions * stepFunctions.perStateTransition;

  return {
    totalFrames,
    chunks,
    width: input.width,
    height: input.height,
    memoryMb,
    assumptions: { secondsPerFrame, chunkStartSeconds: CHUNK_START_SECONDS },
    lambda: { invocations: invocationSeconds.length, seconds, gbSeconds, cost: lambdaCost },
    stepFunctions: { stateTransitions, cost: sfnCost },
    s3: { putOrListRequests, getRequests, cost: s3Cost },
    totalCost: lambdaCost + sfnCost + s3Cost,
    prices: { recorded: PRICE_LIST.recorded, region: PRICE_LIST.region },
  };
}
