import * as path from 'node:path';
import type { Composition } from '../../composition/composition';
import { AssetRouter } from './asset-router';
import { EgressPolicy } from './egress-policy';
import type { ProjectLinks } from '../../values/project-files';
import { serveProject } from './project-server';
import { RemoteAssets } from './remote-assets';
import { MediaProxies } from './media-proxies';

export interface AssetPolicy {
  /** A remote asset that cannot be fetched is a warning and a transparent placeholder, not an error. */
  allowMissingMedia?: boolean;
  /** The page may reach loopback, link-local and private addresses, and its remote assets come from them (refused by default). */
  allowPrivateNetwork?: boolean;
  /** The page may register service workers (refused by default). */
  allowServiceWorkers?: boolean;
  /** Bytes one remote asset may have; default 512 MiB. */
  maxAssetBytes?: number;
  /** Which symlinks of the project are followed (project-files.ts); by default those it contains. */
  links?: ProjectLinks;
  onWarning?: (message: string) => void;
}

export interface ServedComposition {
  /** The composition's page on the project server. */
  url: string;
  assets: AssetRouter;
  close(): Promise<void>;
}

/**
 * The composition's project served on loopback for a render's browsers, with the render's
 * remote-asset copies and media proxies kept under `tmpDir`.
 */
export async function serveComposition(composition: Composition, tmpDir: string, policy: AssetPolicy): Promise<ServedComposition> {
  const assetDir = path.join(tmpDir, 'assets');
  const server = await serveProject(composition.projectDir, { remoteDir: assetDir, allowServiceWorkers: policy.allowServiceWorkers, links: policy.links });
  const remote = new RemoteAssets({
    dir: assetDir,
    allowMissing: policy.allowMissingMedia ?? false,
    policy: new EgressPolicy({ allowPrivateNetwork: policy.allowPrivateNetwork, allowServiceWorkers: policy.allowServiceWorkers, projectServer: server.url }),
    maxBytes: policy.maxAssetBytes,
    origin: new URL(server.url).origin,
    onWarning: policy.onWarning,
  });
  const assets = new AssetRouter({ projectDir: composition.projectDir, serverUrl: server.url, remote, proxies: new MediaProxies(assetDir), links: policy.links });
  const url = new URL(encodeURI(path.relative(composition.projectDir, composition.entryFile).split(path.sep).join('/')), server.url).href;
  return { url, assets, close: () => server.close() };
}
