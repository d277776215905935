import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { VidkitError, errorMessage } from '../errors';
import { loadNative } from '../native';

/**
 * All-intra H.264 copies of the videos a composition plays, made once per render (see
 * crates/vidkit-media/src/proxy.rs): the page seeks to every frame, and a browser seek decodes
 * from the previous keyframe, so a proxy with every frame a keyframe makes each seek one decode.
 */
export class VideoProxies {
  private readonly proxies = new Map<string, Promise<string | null>>();

  /** `dir` is where proxies are written; it is served to the page. */
  constructor(private readonly dir: string) {}

  /** The proxy's file name under `dir` for the media file `file`, or null to play the file itself (no video, or alpha). */
  of(file: string, url: string): Promise<string | null> {
    let proxy = this.proxies.get(file);
    if (!proxy) {
      proxy = this.make(file, url);
      this.proxies.set(file, proxy);
    }
    return proxy;
  }

  private async make(file: string, url: string): Promise<string | null> {
    const name = `${createHash('sha256').update(file).digest('hex').slice(0, 32)}.proxy.mp4`;
    try {
      const made = await loadNative().makeIntraProxy(file, path.join(this.dir, name));
      return made ? name : null;
    } catch (err) {
      throw new VidkitError(`video ${url} could not be decoded: ${errorMessage(err)}`);
    }
  }
}
