import { VidkitError } from '../../errors';
import { loadNative } from '../../native';
import { BrowserFailure, CaptureSession } from './capture-session';
import type { FrameFormat } from '../../values/quality';
import { OutputFormat, encoderFormat } from '../../values/formats';
import type { Rational } from '../../values/fps';
import { DeadlineError } from '../browser/deadline';
import type { MissingGlyphs } from './missing-glyphs';
import { checkTempSpace } from '../browser/run-dir';
import type { RuntimeBoot } from '../../runtime/runtime';
import { FrameImage, releaseImage } from './frame-image';

/** Encoder settings shared by every chunk of a render, so segments join by stream copy. */
export interface EncodeSettings {
  format: OutputFormat;
  width: number;
  height: number;
  fps: Rational;
  crf: number;
  preset: string;
  /** Extra x264 options after the preset (mp4 only). */
  x264Params?: string;
  frameFormat: FrameFormat;
}

export interface ChunkRange {
  index: number;
  startFrame: number;
  /** Exclusive. */
  endFrame: number;
}

/** Where captured frames go: the native encoder, or nowhere when measuring capture alone. */
export interface FrameSink {
  push(image: FrameImage): Promise<void>;
  /** The previous frame again: the browser reported no damage. */
  pushRepeat(): Promise<void>;
  finish(): Promise<{ frames: number; bytes: number }>;
  abort(): void;
  /** Whether the sink opens a new encoder at `frame`, which then needs the whole picture: it has no frame before to repeat. */
  opensAt?(frame: number): boolean;
}

/**
 * A native encoder writing one closed-GOP segment of the output format on its own threads.
 * `threads` 0 lets the codec use every core, right for one encoder on the machine; workers
 * encoding side by side pass their share. x264 always runs on one thread: its output depends on
 * its thread count, and a cell must encode to the same bits at any worker count, in a batch and
 * on every machine (docs/explanation/batch-reuse.md).
 */
export function segmentEncoder(
  settings: EncodeSettings,
  segmentPath: string,
  threads = 0,
  keyframes?: { keyframeInterval: number; firstFrame: number },
): FrameSink {
  const { NativeEncoder } = loadNative();
  const format = encoderFormat(settings.format);
  return new NativeEncoder({
    output: segmentPath,
    format,
    width: settings.width,
    height: settings.height,
    fpsNum: settings.fps.num,
    fpsDen: settings.fps.den,
    crf: settings.crf,
    preset: settings.preset,
    x264Params: settings.x264Params,
    threads: format === 'mp4' ? 1 : threads,
    input: settings.frameFormat.type,
    ...keyframes,
  });
}

/** Counts frames and drops them: the capture-only limit the benchmarks compare against. */
export function discardingSink(): FrameSink {
  let frames = 0;
  return {
    push: async (image) => {
      releaseImage(image);
      frames++;
    },
    pushRepeat: async () => void frames++,
    finish: async () => ({ frames, bytes: 0 }),
    abort: () => undefined,
  };
}

/** Relaunches of a failed browser per range before the render fails. */
export const MAX_RELAUNCHES = 2;

/**
 * A worker's browser session, opened on first use. After the browser fails the worker drops it
 * and the next {@link current} opens a new one.
 */
export class SessionSlot {
  private session?: CaptureSession;
  /** The session being opened: its browser may be starting while the slot is closed. */
  private opening?: Promise<CaptureSession>;
  private closing: Promise<void> = Promise.resolve();
  private stopped = false;
  /** The last frame the open page showed: a page only steps forward. */
  pageFrame = -1;

  constructor(private open: () => Promise<CaptureSession>) {}

  /**
   * Points the slot at another render of the same page (a warm pool's next row): an open session
   * is reset to `boot` in its browser (unless its page navigated away: then it is closed), and
   * `open` opens any later one. A session whose browser died is closed, and the next
   * {@link current} opens a new one; one whose page hangs is closed and the error thrown (the row's
   * page loops); any other error is the row's and leaves the browser open.
   */
  async reset(open: () => Promise<CaptureSession>, boot: RuntimeBoot): Promise<void> {
    this.open = open;
    this.pageFrame = -1;
    if (!this.session) return;
    // A page that navigated away may have left its tab anywhere: the next render gets a new browser.
    if (!this.session.reusable) return this.close();
    try {
      await this.session.reset(boot);
    } catch (err) {
      if (err instanceof BrowserFailure || err instanceof DeadlineError) await this.close();
      if (!(err instanceof BrowserFailure)) throw err;
    }
  }

  /**
   * The open session, else one opened now; callers that ask while it opens share it. A session
   * whose slot was closed while it opened is closed by that close, and this asks again (or throws
   * once the slot is stopped).
   */
  async current(): Promise<CaptureSession> {
    if (this.stopped) throw new VidkitError('the render stopped: no new browser is opened');
    if (this.session) return this.session;
    const opening = (this.opening ??= this.open());
    let session: CaptureSession;
    try {
      session = await opening;
    } catch (err) {
      // The next call launches again (a browser that failed to start is the caller's to retry).
      if (this.opening === opening) this.opening = undefined;
      throw err;
    }
    if (this.opening !== opening) return this.current();
    this.opening = undefined;
    this.session = session;
    return session;
  }

  /** Closes the session for good: a render that failed or was interrupted relaunches nothing. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.close();
  }

  get isOpen(): boolean {
    return this.session !== undefined;
  }

  /**
   * Closes the open session, or the one opening once it has opened (a render timed out or stopped
   * while its browser started); a call while one is closing waits for it, so nothing outlives it.
   */
  async close(): Promise<void> {
    const { session, opening } = this;
    this.session = undefined;
    this.opening = undefined;
    this.pageFrame = -1;
    if (session) this.closing = session.close();
    // A launch that failed left nothing to close; the caller awaiting it gets its error.
    else if (opening) this.closing = opening.then((s) => s.close(), () => undefined);
    await this.closing;
  }
}

export interface ChunkHooks {
  /** `frame` is in the sink; `painted`: drawn anew, not repeated from the frame before (nothing on the page changed). */
  onFrame(frame: number, painted: boolean): void;
  /** A browser failed and is being relaunched to render on from `frame`. */
  onRelaunch?(message: string): void;
  /** Where the page's video pictures are kept for other pages to show ({@link CaptureSession.keepVideoPicturesIn}). */
  videoPictures?: string;
  /**
   * The caller draws more parts in this session and settles its requests once, after its last
   * ({@link settleSession}): each settle waits for the page's requests to go quiet (up to 300 ms),
   * and a worker settling between parts drew nothing meanwhile while the others drew on.
   */
  settleLater?: boolean;
}

/**
 * Waits for the requests the open page has sent to get the egress gate's verdict, failing the
 * render if one was refused, and reports what failed to load: a session's last frames are then
 * the render's. Costs nothing more when nothing ran since the last settle.
 */
export async function settleSession(slot: SessionSlot): Promise<void> {
  if (!slot.isOpen) return;
  const session = await slot.current();
  await session.settleRequests();
  await session.reportFailedLoads();
}

/**
 * Renders one chunk: seeks the session to each frame of the range, captures it and streams it into
 * the sink. With the native encoder, capture and encoding overlap: it decodes and encodes on its
 * own threads while the next frame is being captured. A browser that dies or stops answering is
 * relaunched, at most {@link MAX_RELAUNCHES} times a range, and the range goes on from the frame it
 * was at, so the segment still holds every frame once. It returns the text of the range's frames
 * that no font could draw, as the page's glyph check found it (a page lost with its browser takes
 * its findings with it; the relaunched page checks the frames it draws).
 * Used unchanged by local workers and by the cloud chunk function.
 */
export async function renderChunk(
  slot: SessionSlot,
  chunk: ChunkRange,
  encoder: FrameSink,
  hooks: ChunkHooks,
): Promise<{ frames: number; bytes: number; missingGlyphs: MissingGlyphs[] }> {
  let relaunches = 0;
  try {
    // A new page has no frame before it to repeat, so its first capture is whole.
    let fresh = true;
    // `endFrame` is read before every frame: another worker may take the rest of the range.
    for (let frame = chunk.startFrame; frame < chunk.endFrame; ) {
      if (slot.pageFrame >= frame) {
        // The page only steps forward: this part starts over in a new one, and what the old one sent is settled first.
        await settleSession(slot);
        await slot.close();
      }
      let image: FrameImage | null;
      try {
        fresh ||= !slot.isOpen;
        const session = await slot.current();
        session.keepVideoPicturesIn(hooks.videoPictures);
        image = await session.capture(frame, fresh || frame === chunk.startFrame || encoder.opensAt?.(frame) === true);
      } catch (err) {
        if (!(err instanceof BrowserFailure)) throw err;
        await slot.close();
        // A full TMPDIR kills browsers (their profiles and shared memory live there): say that, not "relaunching".
        checkTempSpace();
        if (relaunches === MAX_RELAUNCHES) {
          throw new VidkitError(`frame ${frame}: ${err.message}, and again after ${MAX_RELAUNCHES} relaunches; the render stops here`);
        }
        relaunches += 1;
        hooks.onRelaunch?.(`${err.message}; relaunching it to render on from frame ${frame} (${relaunches} of ${MAX_RELAUNCHES})`);
        continue;
      }
      fresh = false;
      slot.pageFrame = frame;
      if (image) await encoder.push(image);
      else await encoder.pushRepeat();
      hooks.onFrame(frame, image !== null);
      frame += 1;
    }
    let missingGlyphs: MissingGlyphs[] = [];
    if (slot.isOpen) {
      const session = await slot.current();
      if (hooks.settleLater) await session.reportFailedLoads();
      else await settleSession(slot);
      missingGlyphs = await session.missingGlyphs();
    }
    return { ...(await encoder.finish()), missingGlyphs };
  } catch (err) {
    encoder.abort();
    throw err;
  }
}
