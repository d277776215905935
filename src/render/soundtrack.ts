import type { SoundtrackOptions } from '../native';
import type { AssetRouter } from './asset-router';
import type { MediaElementTiming } from './capture-session';

/**
 * The soundtrack of a render from the media elements the page showed: every unmuted `<audio>`
 * and `<video>` with a volume above 0, read from the project directory or from the render's
 * fetched copy of a remote URL. A video without an audio stream simply adds nothing; `data:` and
 * `blob:` sources are not mixed.
 */
export async function soundtrackOf(
  timeline: MediaElementTiming[],
  opts: { assets: AssetRouter; durationSeconds: number },
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
