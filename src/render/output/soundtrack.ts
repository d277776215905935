import { createHash } from 'node:crypto';
import { type EncodedSoundtrack, type NativeOutputFormat, type SoundtrackOptions, loadNative } from '../../native';
import type { AssetRouter } from '../serve/asset-router';
import { BrowserFailure, type CaptureSession, type MediaElementTiming } from '../capture/capture-session';
import type { SessionSlot } from '../capture/chunk-renderer';

/** What the soundtrack of a render is made against: its assets and its length. */
export interface SoundtrackContext {
  assets: AssetRouter;
  durationSeconds: number;
}

/**
 * The soundtrack of a render from the media elements the page showed: every unmuted `<audio>`
 * and `<video>` with a volume above 0, read from the project directory or from the render's
 * fetched copy of a remote URL. A video without an audio stream simply adds nothing; `data:` and
 * `blob:` sources are not mixed.
 */
export async function soundtrackOf(
  timeline: MediaElementTiming[],
  opts: SoundtrackContext,
): Promise<SoundtrackOptions> {
  const tracks = [];
  for (const element of timeline) {
    if (element.muted || (element.volume <= 0 && !element.volumes)) continue;
    // A missing source (placeholder) is silent.
    const source = await opts.assets.localFile(element.src);
    if (source === undefined) continue;
    tracks.push({
      source,
      start: element.start,
      offset: element.offset,
      playbackRate: element.playbackRate,
      looped: element.loop,
      volume: element.volume,
      ...(element.end === undefined ? {} : { end: element.end }),
      ...(element.volumes === undefined ? {} : { volumes: element.volumes }),
    });
  }
  return { tracks, durationSeconds: opts.durationSeconds };
}

/**
 * What names a soundtrack kept for a batch's reusing rows (in its work folder, or under its reuse
 * key in the bucket): the timeline it is mixed from, its length and the output format.
 */
export function soundtrackDigest(timeline: MediaElementTiming[], durationSeconds: number, format: NativeOutputFormat): string {
  return createHash('sha256').update(JSON.stringify({ timeline, durationSeconds, format })).digest('hex').slice(0, 24);
}

/** What an output writer muxes: the soundtrack, and its encoding where one was made ahead for it. */
export interface Soundtrack {
  options: SoundtrackOptions;
  encoded?: EncodedSoundtrack;
}

/**
 * A soundtrack mixed and encoded while the frames are drawn, from the media the page has once it
 * is ready. The AAC encoder took 0.7 to 2.1 s for 30 s of sound here, which at the end of a
 * render is time with all but one core idle. The encoding is used only where the render ends with
 * the same soundtrack: a script may still add media, or move a volume, on the way.
 */
export class EarlySoundtrack {
  private constructor(
    private readonly options: SoundtrackOptions,
    private readonly encoded: Promise<EncodedSoundtrack | null>,
  ) {}

  /** Starts the encoding for a `format` output on the native pool. */
  static start(options: SoundtrackOptions, format: NativeOutputFormat): EarlySoundtrack {
    // A failure here comes again, with its message, where the soundtrack is made at the end.
    return new EarlySoundtrack(options, loadNative().encodeSoundtrack(options, format).catch(() => null));
  }

  /** `final` with the early encoding, when that was made of the same tracks. */
  async settle(final: SoundtrackOptions): Promise<Soundtrack> {
    if (JSON.stringify(final) !== JSON.stringify(this.options)) return { options: final };
    const encoded = await this.encoded;
    return encoded ? { options: final, encoded } : { options: final };
  }
}

/**
 * Starts the soundtrack of the media the slot's page has once it is ready, opening the page (which
 * then draws the first frames). A browser that fails to open is left to the chunk renderer, which
 * relaunches it; a timeline that cannot be read now is read again at the end.
 */
export async function earlySoundtrack(
  slot: SessionSlot,
  format: NativeOutputFormat,
  opts: SoundtrackContext,
): Promise<EarlySoundtrack | undefined> {
  let session: CaptureSession;
  try {
    session = await slot.current();
  } catch (err) {
    if (err instanceof BrowserFailure) return undefined;
    throw err;
  }
  try {
    return EarlySoundtrack.start(await soundtrackOf(await session.mediaTimeline(), opts), format);
  } catch {
    return undefined;
  }
}

/** The render's soundtrack from the timeline it ended with, encoded early where that was of the same tracks. */
export async function renderSoundtrack(
  timeline: MediaElementTiming[],
  opts: SoundtrackContext,
  early?: EarlySoundtrack,
): Promise<Soundtrack> {
  const final = await soundtrackOf(timeline, opts);
  return early ? early.settle(final) : { options: final };
}
