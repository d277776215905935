import { ExitCode, VidkitError, cliErrorText } from '../errors';
import { RenderQueueFullError } from '../template-server/render-errors';
import { DEFAULT_MAX_WAITING } from '../template-server/render-limits';
import { FIRST_RETRY_AFTER_SECONDS } from '../template-server/render-queue';

export type JobState = 'queued' | 'rendering' | 'done' | 'failed' | 'cancelled';

/** Frames so far, and the speed and time left they give. */
export interface FrameProgress {
  frames: number;
  /** Null until the render knows its length. */
  totalFrames: number | null;
  /** Frames a second since the first frame; null before two frames. */
  fps: number | null;
  etaSeconds: number | null;
}

/** One line of a rows file in a rows render. */
export interface RowProgress extends FrameProgress {
  line: number;
  outputKey: string | null;
  state: 'queued' | 'rendering' | 'rendered' | 'skipped' | 'failed';
  /** The video, a path in the project, once written. */
  output?: string;
  error?: string;
}

/** A render of the preview's queue (docs/guide/authoring.md), as the page shows it. */
export interface StudioJob {
  id: number;
  kind: 'video' | 'rows';
  /** The composition page rendered, a path in the project. */
  composition: string;
  format: string;
  quality: string;
  /** For rows: the rows file, a path in the project. */
  rowsFile?: string;
  state: JobState;
  progress: FrameProgress;
  /** For a video: the file, a path in the project, once complete. */
  output?: string;
  bytes?: number;
  rows?: RowProgress[];
  /** What `vidkit render` prints when it fails the same way. */
  error?: string;
  queuedAt: number;
  startedAt?: number;
  finishedAt?: number;
}

/** What a job's work gets: the signal that cancels it, and a meter for its frames. */
export interface JobRun {
  job: StudioJob;
  signal: AbortSignal;
  meter: FrameMeter;
  /** Tells the pages about a change (throttled). */
  changed(): void;
}

/** Counts frames and works out speed and time left. */
export class FrameMeter {
  private firstFrameAt = 0;

  constructor(readonly progress: FrameProgress) {}

  start(totalFrames: number): void {
    this.progress.totalFrames = totalFrames;
  }

  frame(now = Date.now()): void {
    const p = this.progress;
    p.frames += 1;
    if (p.frames === 1) this.firstFrameAt = now;
    const seconds = (now - this.firstFrameAt) / 1000;
    p.fps = p.frames > 1 && seconds > 0 ? (p.frames - 1) / seconds : null;
    p.etaSeconds = p.fps && p.totalFrames !== null ? Math.max(0, p.totalFrames - p.frames) / p.fps : null;
  }
}

/** The pages hear of a job's progress at most this often; a change of state goes out at once. */
const UPDATE_EVERY_MS = 250;
/** Finished jobs kept in the list. */
const KEPT_JOBS = 50;

/**
 * The preview's render queue: one render at a time (each uses every core), in the order asked,
 * each cancellable while it waits or runs, and at most `maxWaiting` waiting behind the running
 * one, as in the web templates: one more is refused at once ({@link RenderQueueFullError}).
 * `onUpdate` hears of every change.
 */
export class StudioJobs {
  private readonly jobs: StudioJob[] = [];
  private readonly work = new Map<number, { run: (r: JobRun) => Promise<void>; abort: AbortController }>();
  private nextId = 1;
  private running?: Promise<void>;
  private closed = false;
  private readonly lastSent = new Map<number, number>();

  constructor(
    private readonly onUpdate: (job: StudioJob) => void,
    readonly maxWaiting = DEFAULT_MAX_WAITING,
  ) {}

  list(): StudioJob[] {
    return this.jobs;
  }

  add(spec: Pick<StudioJob, 'kind' | 'composition' | 'format' | 'quality' | 'rowsFile' | 'rows'>, run: (r: JobRun) => Promise<void>): StudioJob {
    if (this.closed) throw new VidkitError('the preview is stopping');
    if (this.jobs.filter((j) => j.state === 'queued').length >= this.maxWaiting) throw new RenderQueueFullError(this.retryAfterSeconds(), this.maxWaiting);
    const job: StudioJob = { ...spec, id: this.nextId++, state: 'queued', progress: emptyProgress(), queuedAt: Date.now() };
    this.jobs.push(job);
    this.work.set(job.id, { run, abort: new AbortController() });
    this.trim();
    this.send(job, true);
    this.pump();
    return job;
  }

  /** Cancels a waiting or running job; false when there is no such job still to finish. */
  cancel(id: number): boolean {
    const job = this.jobs.find((j) => j.id === id);
    const work = this.work.get(id);
    if (!job || !work) return false;
    work.abort.abort();
    if (job.state === 'queued') this.finish(job, 'cancelled');
    return true;
  }

  /** Cancels everything and waits for the running render to clean up after itself. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.jobs) if (job.state === 'queued' || job.state === 'rendering') this.cancel(job.id);
    await this.running;
  }

  private pump(): void {
    if (this.running) return;
    const job = this.jobs.find((j) => j.state === 'queued');
    if (!job) return;
    this.running = this.runJob(job).finally(() => {
      this.running = undefined;
      this.pump();
    });
  }

  private async runJob(job: StudioJob): Promise<void> {
    const work = this.work.get(job.id)!;
    job.state = 'rendering';
    job.startedAt = Date.now();
    this.send(job, true);
    const run: JobRun = { job, signal: work.abort.signal, meter: new FrameMeter(job.progress), changed: () => this.send(job, false) };
    try {
      await work.run(run);
      this.finish(job, work.abort.signal.aborted ? 'cancelled' : 'done');
    } catch (err) {
      const interrupted = err instanceof VidkitError && err.exitCode === ExitCode.Interrupted;
      if (work.abort.signal.aborted || interrupted) this.finish(job, 'cancelled');
      else this.finish(job, 'failed', cliErrorText(err));
    }
  }

  private finish(job: StudioJob, state: JobState, error?: string): void {
    job.state = state;
    job.finishedAt = Date.now();
    if (error !== undefined) job.error = error;
    this.work.delete(job.id);
    this.send(job, true);
  }

  private send(job: StudioJob, now: boolean): void {
    const at = Date.now();
    if (!now && at - (this.lastSent.get(job.id) ?? 0) < UPDATE_EVERY_MS) return;
    this.lastSent.set(job.id, at);
    this.onUpdate(job);
  }

  /** A place frees when the running render ends: about as long as the last finished one took. */
  private retryAfterSeconds(): number {
    const last = this.jobs.filter((j) => j.state === 'done' && j.startedAt !== undefined).pop();
    return Math.max(1, Math.ceil(last ? (last.finishedAt! - last.startedAt!) / 1000 : FIRST_RETRY_AFTER_SECONDS));
  }

  private trim(): void {
    const finished = this.jobs.filter((j) => !this.work.has(j.id));
    for (const old of finished.slice(0, Math.max(0, finished.length - KEPT_JOBS))) {
      this.jobs.splice(this.jobs.indexOf(old), 1);
      this.lastSent.delete(old.id);
    }
  }
}

export function emptyProgress(): FrameProgress {
  return { frames: 0, totalFrames: null, fps: null, etaSeconds: null };
}
