import type { MediaElementTiming } from '../render/capture/capture-session';
import { AssetRouter } from '../render/serve/asset-router';
import { RemoteAssets } from '../render/serve/remote-assets';
import { MediaProxies } from '../render/serve/media-proxies';

/**
 * Chunks and assemble run in different invocations, each serving the site on its own loopback
 * port. The media timeline travels between them naming site files under this fixed origin instead.
 */
const SITE_ORIGIN = 'http://site.vidkit.invalid/';

/** How an invocation's page reaches the site's media: project files, fetched remote URLs, media proxies. */
export function siteAssets(siteDir: string, assetDir: string, serverUrl: string): AssetRouter {
  // The cloud path has no --allow-missing-media, --allow-private-network or --max-asset-bytes: a
  // remote asset that cannot be fetched, on a private address or over 512 MiB fails the render.
  const remote = new RemoteAssets({ dir: assetDir, allowMissing: false, origin: new URL(serverUrl).origin });
  return new AssetRouter({ projectDir: siteDir, serverUrl, remote, proxies: new MediaProxies(assetDir), links: 'inside' });
}

/** The timeline a chunk read from its page, with its server's origin replaced by {@link SITE_ORIGIN}. */
export function portableTimeline(timeline: MediaElementTiming[], serverUrl: string): MediaElementTiming[] {
  const origin = new URL(serverUrl).origin;
  return timeline.map((element) => {
    const src = new URL(element.src);
    return src.origin === origin ? { ...element, src: new URL(`${src.pathname}${src.search}`, SITE_ORIGIN).href } : element;
  });
}

/** Assets for mixing a portable timeline: site files from `siteDir`, remote URLs fetched into `assetDir`. */
export function timelineAssets(siteDir: string, assetDir: string): AssetRouter {
  return siteAssets(siteDir, assetDir, SITE_ORIGIN);
}
