import { projectFile } from './project-files';
import { REMOTE_PREFIX } from './project-server';
import type { RemoteAssets } from './remote-assets';

/**
 * Where the page's requests for assets are answered from: remote URLs from the render's fetched
 * copy, in the directory the project server serves under {@link REMOTE_PREFIX}; and which local
 * file a URL stands for (the native decoder and the audio mixer read those).
 */
export class AssetRouter {
  private readonly origin: string;

  constructor(
    private readonly opts: { projectDir: string; serverUrl: string; remote: RemoteAssets },
  ) {
    this.origin = new URL(opts.serverUrl).origin;
  }

  /** The local file behind a URL the page uses, or undefined for one it cannot stand for (data:, blob:). */
  async localFile(url: string): Promise<string | undefined> {
    const parsed = new URL(url);
    if (parsed.origin === this.origin) {
      if (parsed.pathname.startsWith(REMOTE_PREFIX)) return undefined;
      // The file the project server serves for this path, under the same confinement.
      return projectFile(this.opts.projectDir, parsed.pathname);
    }
    if (!/^https?:$/.test(parsed.protocol)) return undefined;
    const file = await this.opts.remote.file(url);
    return this.opts.remote.isMissing(url) ? undefined : file;
  }

  /** The URL to load instead of `url`, or undefined to load it unchanged. Throws naming the URL. */
  async route(url: string): Promise<string | undefined> {
    const parsed = new URL(url);
    const remote = /^https?:$/.test(parsed.protocol) && parsed.origin !== this.origin;
    if (!remote) return undefined;
    await this.opts.remote.file(url);
    return `${this.origin}${REMOTE_PREFIX}${this.opts.remote.nameOf(url)}`;
  }
}
