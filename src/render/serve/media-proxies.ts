import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { ExitCode, VidkitError, errorMessage } from '../../errors';
import { loadNative } from '../../native';

/**
 * What the page plays for each media file the browser loads itself (audio; a `<video>`'s pictures
 * come from the native decoder, video-frames/), decided natively once per render
 * (crates/vidkit-media/src/page_media.rs): a FLAC copy of audio in a codec the browser does not
 * play (WMA, AC-3…), or the file itself. Every file is decoded natively before the page
 * gets it, so one that cannot be decoded fails the render at once, naming it and libav's reason.
 */
export class MediaProxies {
  private readonly proxies = new Map<string, Promise<string | null>>();

  /** `dir` is where proxies are written; it is served to the page. */
  constructor(private readonly dir: string) {}

  /**
   * The proxy's file name under `dir` for the media file `file`, or null to play the file itself.
   * `name` is how the error names the file: its path in the project, or its URL.
   */
  of(file: string, name: string): Promise<string | null> {
    let proxy = this.proxies.get(file);
    if (!proxy) {
      proxy = this.make(file, name);
      this.proxies.set(file, proxy);
    }
    return proxy;
  }

  private async make(file: string, name: string): Promise<string | null> {
    const stem = path.join(this.dir, `${createHash('sha256').update(file).digest('hex').slice(0, 32)}.proxy`);
    try {
      const made = await loadNative().mediaForPage(file, stem);
      return made === null ? null : path.basename(made);
    } catch (err) {
      // libav's reason without the local path it starts with: the name says which file.
      const reason = errorMessage(err).replace(`${file}: `, '');
      throw new VidkitError(`media ${name} cannot be played: ${reason}`, { exitCode: ExitCode.BadInput });
    }
  }
}
