// tier: unit
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ExitCode, VidkitError, badInput } from '../errors';
import { RenderQueueFullError } from '../template-server/render-errors';
import { FrameMeter, JobRun, StudioJob, StudioJobs, emptyProgress } from './studio-jobs';

const spec = { kind: 'video' as const, composition: 'index.html', format: 'mp4', quality: 'draft' };

/** A job's work that waits until it is let go (or cancelled, as a render stops at its next frame). */
function held(): { run: (r: JobRun) => Promise<void>; release: () => void; started: Promise<void> } {
  let release = () => undefined as void;
  let started = () => undefined as void;
  const began = new Promise<void>((resolve) => (started = resolve));
  const run = (r: JobRun) =>
    new Promise<void>((resolve, reject) => {
      started();
      release = resolve;
      r.signal.addEventListener('abort', () => reject(new VidkitError('render interrupted', { exitCode: ExitCode.Interrupted })));
    });
  return { run, release: () => release(), started: began };
}

test('one render at a time, in order; a waiting one cancelled never runs; a running one cancelled stops; a failure reads as the CLI prints it', async () => {
  const seen: string[] = [];
  const jobs = new StudioJobs((job: StudioJob) => seen.push(`${job.id} ${job.state}`));
  const first = held();
  const second = held();
  let thirdRan = false;
  const a = jobs.add(spec, first.run);
  const b = jobs.add(spec, second.run);
  const c = jobs.add(spec, async () => {
    thirdRan = true;
  });
  const d = jobs.add(spec, async () => {
    throw badInput('index.html: no composition root');
  });
  await first.started;
  assert.equal([a.state, b.state, c.state, d.state], ['rendering', 'queued', 'queued', 'queued']);
  assert.ok(jobs.cancel(c.id));
  assert.is(c.state, 'cancelled');
  first.release();
  await second.started;
  assert.is(a.state, 'done');
  assert.ok(jobs.cancel(b.id));
  while (d.state !== 'failed') await new Promise((r) => setTimeout(r, 5));
  assert.is(b.state, 'cancelled');
  assert.not.ok(thirdRan);
  assert.is(d.error, 'vidkit: error: index.html: no composition root');
  assert.not.ok(jobs.cancel(a.id), 'a finished job is not cancelled');
  assert.equal(seen.filter((e) => e.startsWith('1 ')), ['1 queued', '1 rendering', '1 done']);
  assert.equal(seen.filter((e) => e.startsWith('3 ')), ['3 queued', '3 cancelled']);
  await jobs.close();
});

test('at most maxWaiting wait behind the running render: one more is refused with Retry-After, and a place freed by a cancel or a finished render is taken again', async () => {
  const jobs = new StudioJobs(() => undefined, 2);
  const running = held();
  jobs.add(spec, running.run);
  await running.started;
  const waiting = [held(), held()].map((h) => jobs.add(spec, h.run));
  const refused = (() => {
    try {
      jobs.add(spec, async () => undefined);
    } catch (err) {
      return err;
    }
  })();
  assert.instance(refused, RenderQueueFullError);
  assert.is((refused as RenderQueueFullError).message, 'the render queue is full (2 waiting, RENDER_MAX_WAITING); retry after 30 s');
  assert.is(jobs.list().length, 3, 'the refused render is not listed');
  assert.ok(jobs.cancel(waiting[0].id));
  const third = held();
  assert.is(jobs.add(spec, third.run).state, 'queued');
  assert.throws(() => jobs.add(spec, async () => undefined), /queue is full \(2 waiting/);
  // Once the running one finishes, the next runs and a place is free; Retry-After is then as long as it took.
  running.release();
  await new Promise((r) => setTimeout(r, 20));
  const next = jobs.add(spec, async () => undefined);
  assert.is(next.state, 'queued');
  try {
    jobs.add(spec, async () => undefined);
    assert.unreachable('a third waiting render was accepted');
  } catch (err) {
    assert.is((err as RenderQueueFullError).retryAfterSeconds, 1);
  }
  await jobs.close();
});

test('frames, speed and time left', () => {
  const progress = emptyProgress();
  const meter = new FrameMeter(progress);
  meter.start(100);
  meter.frame(1000);
  assert.equal(progress, { frames: 1, totalFrames: 100, fps: null, etaSeconds: null });
  for (let i = 1; i <= 20; i++) meter.frame(1000 + i * 50);
  assert.is(progress.frames, 21);
  assert.is(progress.fps, 20);
  assert.is(progress.etaSeconds, 79 / 20);
});

test.run();
