import * as os from 'node:os';

/** Each worker is one browser: about this much memory at 1080p, measured with headless shell. */
const BYTES_PER_WORKER = 600 * 1024 * 1024;
/** Below this many frames a chunk costs more in browser start-up than it saves. */
const MIN_FRAMES_PER_WORKER = 30;

export type WorkersOption = number | 'auto';

/** How many workers a render starts with, and how many it may grow to while it runs. */
export interface WorkerPlan {
  initial: number;
  max: number;
}

/**
 * `auto` starts one worker per core and may add one more (see {@link shouldAddWorker}), all limited
 * by free memory and by the frame count so that every worker gets at least
 * {@link MIN_FRAMES_PER_WORKER} frames. A fixed count is only capped by the frames.
 */
export function resolveWorkers(option: WorkersOption, totalFrames: number): WorkerPlan {
  if (option !== 'auto') {
    const n = Math.max(1, Math.min(option, totalFrames));
    return { initial: n, max: n };
  }
  const byMemory = Math.max(1, Math.floor(os.freemem() / BYTES_PER_WORKER));
  const byFrames = Math.max(1, Math.floor(totalFrames / MIN_FRAMES_PER_WORKER));
  const max = Math.max(1, Math.min(os.availableParallelism() + 1, byMemory, byFrames));
  return { initial: Math.min(os.availableParallelism(), max), max };
}

/** The share of the machine's CPU time that must sit idle for `auto` to add a worker. */
const ADD_WHEN_IDLE = 0.15;
/** How long `auto` samples the CPU, once every worker is drawing, before deciding. */
export const ADD_SAMPLE_MS = 1500;

/**
 * Whether `auto` adds a worker: only while the cores sit idle. A browser waits on round trips
 * between frames, so a composition with little to draw per round trip can leave one worker per core
 * short of filling the cores; where capture and encoding already fill them, another worker only
 * adds a browser's memory. With workers taking over each other's ranges, 2 workers on 2 cores left
 * under 15% idle on all five bench compositions at 1080p (1-2% on ui-3d-reveal, slides and
 * gsap-text), so none was added there. (Before ranges were taken
 * over, ui-3d-reveal's early-finishing last chunk left the cores 28% idle with 2 workers: 29.3 s,
 * against 21.5 s with 3.)
 */
export function shouldAddWorker(idleShare: number): boolean {
  return idleShare >= ADD_WHEN_IDLE;
}

/**
 * `vidkit render --batch`'s browsers: a number, or `auto`, one per core limited by free memory
 * (each renders a whole video, so there is no frame count to divide).
 */
export function resolveBatchConcurrency(option: WorkersOption): number {
  if (option !== 'auto') return option;
  const byMemory = Math.max(1, Math.floor(os.freemem() / BYTES_PER_WORKER));
  return Math.max(1, Math.min(os.availableParallelism(), byMemory));
}
