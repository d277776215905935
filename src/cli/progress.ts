import { SingleBar } from 'cli-progress';

export interface FrameProgress {
  start(totalFrames: number): void;
  frame(): void;
  stop(): void;
}

/**
 * Frames, fps and ETA: a live bar on a terminal, otherwise a plain line every few seconds so that
 * CI logs stay readable. Both write to stderr; stdout carries results only.
 */
export function frameProgress(stream: NodeJS.WriteStream | NodeJS.WritableStream): FrameProgress {
  const tty = 'isTTY' in stream && stream.isTTY === true;
  return tty ? barProgress(stream as NodeJS.WriteStream) : lineProgress(stream);
}

function barProgress(stream: NodeJS.WriteStream): FrameProgress {
  const bar = new SingleBar({
    stream,
    format: 'vidkit: {bar} {percentage}% | {value}/{total} frames | {fps} fps | ETA {eta_formatted}',
    hideCursor: true,
    etaBuffer: 60,
  });
  let started = 0;
  let done = 0;
  return {
    start(total) {
      started = Date.now();
      bar.start(total, 0, { fps: '0.0' });
    },
    frame() {
      done += 1;
      bar.update(done, { fps: rate(done, started) });
    },
    stop() {
      bar.stop();
    },
  };
}

const LINE_INTERVAL_MS = 2000;

function lineProgress(stream: NodeJS.WritableStream): FrameProgress {
  let total = 0;
  let done = 0;
  let started = 0;
  let lastLine = 0;
  const write = () => {
    const fps = Number(rate(done, started));
    const eta = fps > 0 ? Math.ceil((total - done) / fps) : 0;
    stream.write(`vidkit: ${done}/${total} frames (${Math.floor((done / total) * 100)}%), ${fps.toFixed(1)} fps, ETA ${eta}s\n`);
    lastLine = Date.now();
  };
  return {
    start(t) {
      total = t;
      started = lastLine = Date.now();
    },
    frame() {
      done += 1;
      if (done === total || Date.now() - lastLine >= LINE_INTERVAL_MS) write();
    },
    stop() {},
  };
}

/**
 * A batch's progress: the bar counts videos (rendered, skipped or failed: a skipped one draws no
 * frame), with the frames drawn so far and their rate beside it.
 */
export interface BatchProgress {
  start(totalRenders: number): void;
  frame(): void;
  render(): void;
  stop(): void;
}

export function batchProgress(stream: NodeJS.WriteStream | NodeJS.WritableStream): BatchProgress {
  let total = 0;
  let renders = 0;
  let frames = 0;
  let started = 0;
  let lastLine = 0;
  const tty = 'isTTY' in stream && stream.isTTY === true;
  const bar = tty
    ? new SingleBar({
        stream: stream as NodeJS.WriteStream,
        format: 'vidkit: {bar} {percentage}% | {value}/{total} videos | {frames} frames | {fps} fps | ETA {eta_formatted}',
        hideCursor: true,
        etaBuffer: 60,
      })
    : undefined;
  const line = () => {
    stream.write(`vidkit: ${renders}/${total} videos (${Math.floor((renders / total) * 100)}%), ${frames} frames, ${rate(frames, started)} fps\n`);
    lastLine = Date.now();
  };
  const update = () => {
    if (bar) bar.update(renders, { frames, fps: rate(frames, started) });
    else if (renders === total || Date.now() - lastLine >= LINE_INTERVAL_MS) line();
  };
  return {
    start(t) {
      total = t;
      started = lastLine = Date.now();
      bar?.start(t, 0, { frames: 0, fps: '0.0' });
    },
    frame() {
      frames += 1;
      update();
    },
    render() {
      renders += 1;
      update();
    },
    stop() {
      bar?.stop();
    },
  };
}

function rate(done: number, started: number): string {
  const s = (Date.now() - started) / 1000;
  return s > 0 ? (done / s).toFixed(1) : '0.0';
}
