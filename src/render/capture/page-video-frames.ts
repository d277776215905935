import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CDPSession } from 'puppeteer-core';
import { ExitCode, VidkitError, errorMessage } from '../../errors';
import { VideoFrames, loadNative } from '../../native';
import type { VideoAnswer, VideoReply, VideoRequest } from '../../runtime/protocol';
import type { AssetRouter } from '../serve/asset-router';
import { trackPath, untrackPath } from '../browser/leftovers';
import { makeRunDir } from '../browser/run-dir';
import { runtimeCall } from './runtime-call';

/** The DevTools binding the page runtime asks through (src/runtime/page/video-frames.ts). */
export const VIDEO_FRAMES_BINDING = '__vidkitVideoFrames';

interface OpenVideo {
  src: string;
  frames: VideoFrames | null;
  /** How messages name the source: its path in the project, or its URL. */
  name: string;
  /** The local file read, when there is one. */
  file?: string;
  /** The element's hidden file input, as a protocol object. */
  input?: string;
  /**
   * The file each picture is written over (the decoder rewrites it in place, so its pages stay in
   * the page cache), and whether an answer that handed it over is still being read.
   */
  picture?: string;
  pictureHeld?: boolean;
  /** Its folder under a picture store: named by the file's path, size and modification time. */
  storeName?: string;
}

/**
 * A capture session's side of the page's `<video>` pictures (docs/reference/formats.md, "Media on the timeline"):
 * answers the page runtime's requests with pictures from the native decoder, one reader per
 * element, each picture written as RGBA to a file in this session's directory and handed to the
 * element's hidden file input. A failure (a source libav cannot decode, a remote one that cannot
 * be fetched) is reported to `onError`, which fails the capture naming the source, and to the page,
 * so that its wait ends at once.
 */
export class PageVideoFrames {
  private readonly videos = new Map<string, OpenVideo>();
  /** Where pictures are written: made with the first one, removed once no document has a video open. */
  private dir?: string;
  private nextFile = 0;
  private closed = false;
  /** Where the sources' pictures are kept for other pages, one folder each; none: every picture is decoded. */
  private store?: string;

  private constructor(
    private readonly client: CDPSession,
    private readonly assets: AssetRouter,
    private readonly pageOrigin: string,
    private readonly onError: (error: Error) => void,
  ) {
  }

  /** Installs the binding on `client`'s page: every document it loads from now on asks here. */
  static async attach(client: CDPSession, assets: AssetRouter, pageUrl: string, onError: (error: Error) => void): Promise<PageVideoFrames> {
    const feed = new PageVideoFrames(client, assets, new URL(pageUrl).origin, onError);
    client.on('Runtime.bindingCalled', (event) => {
      if (event.name === VIDEO_FRAMES_BINDING) void feed.answer(event.executionContextId, event.payload);
    });
    // A document's videos go with it (a navigation, a warm pool's reset).
    client.on('Runtime.executionContextDestroyed', (event) => feed.forget(`${event.executionContextId}:`));
    client.on('Runtime.executionContextsCleared', () => feed.forget(''));
    await client.send('Runtime.enable');
    await client.send('Runtime.addBinding', { name: VIDEO_FRAMES_BINDING });
    return feed;
  }

  /** Keeps pictures under `dir` from the next request on, and answers from those kept there. */
  keepPicturesIn(dir: string | undefined): void {
    // The browser reads the files it is handed from a folder of its own.
    this.store = dir === undefined ? undefined : path.resolve(dir);
  }

  private async answer(context: number, payload: string): Promise<void> {
    const { call, videos } = JSON.parse(payload) as { call: number; videos: VideoRequest[] };
    const handed: Handed = { files: [], held: [] };
    let reply: VideoReply;
    try {
      reply = { items: await Promise.all(videos.map((video) => this.serve(context, video, handed))) };
    } catch (err) {
      this.onError(err instanceof Error ? err : new VidkitError(errorMessage(err)));
      reply = { error: errorMessage(err) };
    }
    try {
      // The page has read the files once this settles.
      const result = await this.client.send('Runtime.evaluate', {
        expression: runtimeCall('__videoReply', call, reply).expression,
        contextId: context,
        awaitPromise: true,
      });
      if (result.exceptionDetails && !this.closed) {
        this.onError(new VidkitError(`a video picture could not be shown: ${result.exceptionDetails.exception?.description ?? result.exceptionDetails.text}`));
      }
    } catch {
      // The document went away meanwhile: nothing waits for this answer any more.
    } finally {
      for (const file of handed.files) fs.rmSync(file, { force: true });
      for (const video of handed.held) video.pictureHeld = false;
    }
  }

  private async serve(context: number, request: VideoRequest, handed: Handed): Promise<VideoAnswer> {
    const key = `${context}:${request.id}`;
    const answer: VideoAnswer = { id: request.id };
    if (request.src !== undefined) {
      const previous = this.videos.get(key);
      if (previous) closeVideo(previous);
      this.videos.delete(key);
      const opened = await this.open(request.src);
      const video = { src: request.src, ...opened };
      this.videos.set(key, video);
      if (video.frames) answer.info = video.frames.info;
    }
    if (request.time !== undefined) {
      const video = this.videos.get(key);
      if (!video?.frames) return answer;
      // The video's own file, unless an earlier answer's is still being read: then one of its own.
      const reused = !video.pictureHeld;
      const file = reused ? (video.picture ??= this.newPicturePath()) : this.newPicturePath();
      if (reused) {
        video.pictureHeld = true;
        handed.held.push(video);
      } else {
        handed.files.push(file);
      }
      const store = this.store === undefined || video.file === undefined ? undefined : path.join(this.store, (video.storeName ??= storeName(video.file)));
      // A picture kept in the store is answered as the store's file, which never changes once kept.
      const shown = await video.frames.frameAt(request.time, file, store).catch((err) => {
        throw unplayable(`${video.name} at ${request.time!.toFixed(3)} s`, video.file, err);
      });
      answer.written = shown !== null;
      if (shown !== null) {
        video.input ??= await this.inputOf(context, request.id);
        await this.client.send('DOM.setFileInputFiles', { files: [shown], objectId: video.input });
      }
    }
    return answer;
  }

  /** The source's reader (null when it is missing under --allow-missing-media, or has no video) and how messages name it. */
  private async open(src: string): Promise<{ frames: VideoFrames | null; name: string; file?: string }> {
    const file = await this.assets.localFile(src);
    const name = this.assets.nameOf(src, file);
    if (file === undefined) {
      if (new URL(src).origin === this.pageOrigin) {
        throw new VidkitError(`media ${decodeURI(new URL(src).pathname.slice(1))} cannot be played: the project has no such file`, { exitCode: ExitCode.BadInput });
      }
      return { frames: null, name };
    }
    try {
      return { frames: await loadNative().openVideoFrames(file), name, file };
    } catch (err) {
      throw unplayable(name, file, err);
    }
  }

  private async inputOf(context: number, id: number): Promise<string> {
    const result = await this.client.send('Runtime.evaluate', { expression: runtimeCall('__videoInput', id).expression, contextId: context });
    if (!result.result.objectId) throw new VidkitError(`internal error: video ${id} of the page has no file input`);
    return result.result.objectId;
  }

  private newPicturePath(): string {
    return path.join(this.pictureDir(), `${this.nextFile++}.rgba`);
  }

  /** A run directory of its own (run-dir.ts), so that a killed vidkit's is removed by the next run. */
  private pictureDir(): string {
    if (this.dir === undefined) {
      this.dir = makeRunDir('video');
      trackPath(this.dir);
    }
    return this.dir;
  }

  /**
   * Closes the readers of the videos whose key starts with `prefix`; with none left (a warm
   * browser's page reset for the next render), their directory goes too.
   */
  private forget(prefix: string): void {
    for (const [key, video] of this.videos) {
      if (!key.startsWith(prefix)) continue;
      closeVideo(video);
      this.videos.delete(key);
    }
    if (this.videos.size === 0 && this.dir !== undefined) {
      fs.rmSync(this.dir, { recursive: true, force: true, maxRetries: 3 });
      untrackPath(this.dir);
      this.dir = undefined;
    }
  }

  /** Ends every reader and removes the session's picture files. */
  close(): void {
    this.closed = true;
    this.forget('');
  }
}

/**
 * Ends a video's reader and removes its own picture file; one an answer is still handing to the
 * page stays until the session's directory is removed.
 */
function closeVideo(video: OpenVideo): void {
  video.frames?.close();
  if (video.picture !== undefined && !video.pictureHeld) fs.rmSync(video.picture, { force: true });
}

/** A source's folder in a picture store: another file, or the same one changed, gets another. */
function storeName(file: string): string {
  const stat = fs.statSync(file);
  return createHash('sha256').update(`${path.resolve(file)}\0${stat.size}\0${stat.mtimeMs}`).digest('hex').slice(0, 24);
}

/** What one answer handed to the page: files to remove, and videos whose own file it holds. */
interface Handed {
  files: string[];
  held: OpenVideo[];
}

/** A source libav cannot decode: named as the page names it, with libav's reason without the local path it starts with. */
function unplayable(name: string, file: string | undefined, err: unknown): VidkitError {
  const reason = file === undefined ? errorMessage(err) : errorMessage(err).replace(`${file}: `, '');
  return new VidkitError(`media ${name} cannot be played: ${reason}`, { exitCode: ExitCode.BadInput });
}
