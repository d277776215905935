import * as path from 'node:path';
import type { SoundtrackOptions } from '../native';
import type { MediaElementTiming } from './capture-session';
import { REMOTE_PREFIX } from './project-server';
import type { RemoteAssets } from './remote-assets';

/**
 * The soundtrack of a render from the media elements the page showed: every unmuted `<audio>`
 * and `<video>` with a volume above 0, read from the project directory or from the render's
 * fetched copy of a remote URL. A video without an audio stream simply adds nothing.
 */
export async function soundtrackOf(
  timeline: MediaElementTiming[],
  opts: { projectDir: string; serverUrl: string; remoteAssets: RemoteAssets; durationSeconds: number },
): Promise<SoundtrackOptions> {
  const local = new URL(opts.serverUrl).origin;
  const tracks = [];
  for (const element of timeline) {
    if (element.muted || element.volume <= 0) continue;
    const url = new URL(element.src);
    let source: string;
    if (url.origin === local && url.pathname.startsWith(REMOTE_PREFIX)) {
      continue; // The page never sees these URLs; its requests are only rewritten to them.
    } else if (url.origin === local) {
      // The project server serves the directory itself, so the path maps back onto it.
      source = path.join(opts.projectDir, decodeURIComponent(url.pathname));
    } else {
      source = await opts.remoteAssets.file(element.src);
      if (opts.remoteAssets.isMissing(element.src)) continue;
    }
    tracks.push({
      source,
      start: element.start,
      offset: element.offset,
      playbackRate: element.playbackRate,
      looped: element.loop,
      volume: element.volume,
    });
  }
  return { tracks, durationSeconds: opts.durationSeconds };
}
