import * as path from 'node:path';
import type { EgressPolicy } from './egress-policy';
import type { MediaProxies } from './media-proxies';
import { ProjectLinks, projectFile } from '../../values/project-files';
import { REMOTE_PREFIX } from './project-server';
import type { RemoteAssets } from './remote-assets';

/**
 * Files that may hold audio in a codec the browser does not play (WMA, AC-3, E-AC-3, ALAC): a page
 * that fetches one to decode it with WebAudio gets what an `<audio>` of it gets.
 */
const UNPLAYABLE_AUDIO = /\.(wma|asf|ac3|eac3|ec3|m4a|mka)$/i;

/**
 * Where the page's requests for assets are answered from: remote URLs from the render's fetched
 * copy, and media from what media-proxies.ts gives the page for them. Both live in the directory
 * the project server serves under {@link REMOTE_PREFIX}.
 */
export class AssetRouter {
  private readonly origin: string;

  constructor(
    private readonly opts: { projectDir: string; serverUrl: string; remote: RemoteAssets; proxies: MediaProxies; links?: ProjectLinks },
  ) {
    this.origin = new URL(opts.serverUrl).origin;
  }

  /** What the page may reach: the policy of the downloads made for it and of its browser's egress gate. */
  get egress(): EgressPolicy {
    return this.opts.remote.policy;
  }

  /** How a message names the file behind `url`: a project file by its path in the project, anything else by its URL. */
  nameOf(url: string, file: string | undefined): string {
    const parsed = new URL(url);
    if (file === undefined || parsed.origin !== this.origin || parsed.pathname.startsWith(REMOTE_PREFIX)) return url;
    return path.relative(this.opts.projectDir, file).split(path.sep).join('/');
  }

  /** The local file behind a URL the page uses, or undefined for one it cannot stand for (data:, blob:). */
  async localFile(url: string): Promise<string | undefined> {
    const parsed = new URL(url);
    if (parsed.origin === this.origin) {
      if (parsed.pathname.startsWith(REMOTE_PREFIX)) return undefined;
      // The file the project server serves for this path, under the same confinement.
      return projectFile(this.opts.projectDir, parsed.pathname, this.opts.links);
    }
    if (!/^https?:$/.test(parsed.protocol)) return undefined;
    const file = await this.opts.remote.file(url);
    return this.opts.remote.isMissing(url) ? undefined : file;
  }

  /**
   * The URL to load instead of `url`, or undefined to load it unchanged. Throws naming the URL.
   * Only downloads are answered from copies: a stream (EventSource) or a request that sends
   * something (a POST, a beacon) goes out as it is, through the browser's egress gate.
   */
  async route(url: string, resourceType: string, method = 'GET'): Promise<string | undefined> {
    if (resourceType === 'eventsource' || (method !== 'GET' && method !== 'HEAD')) return undefined;
    const parsed = new URL(url);
    const remote = /^https?:$/.test(parsed.protocol) && parsed.origin !== this.origin;
    if (resourceType === 'media' || (/^(fetch|xhr)$/.test(resourceType) && UNPLAYABLE_AUDIO.test(parsed.pathname))) {
      const file = await this.localFile(url);
      if (file === undefined && remote && this.opts.remote.isMissing(url)) return `${this.origin}${REMOTE_PREFIX}${this.opts.remote.silentMedia()}`;
      const name = this.nameOf(url, file);
      const proxy = file === undefined ? null : await this.opts.proxies.of(file, name);
      if (proxy) {
        if (remote) this.opts.remote.shareCors(url, proxy);
        return `${this.origin}${REMOTE_PREFIX}${proxy}`;
      }
    }
    if (!remote) return undefined;
    await this.opts.remote.file(url);
    return `${this.origin}${REMOTE_PREFIX}${this.opts.remote.nameOf(url)}`;
  }
}
