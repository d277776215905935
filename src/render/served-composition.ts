import * as path from 'node:path';
import type { Composition } from '../composition/composition';
import { AssetRouter } from './asset-router';
import { serveProject } from './project-server';
import { RemoteAssets } from './remote-assets';

export interface AssetPolicy {
  /** A remote asset that cannot be fetched is a warning and a transparent placeholder, not an error. */
  allowMissingMedia?: boolean;
  /** Remote assets may be fetched from loopback, link-local and private addresses (refused by default). */
  allowPrivateNetwork?: boolean;
  /** Bytes one remote asset may have; default 512 MiB. */
  maxAssetBytes?: number;
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
 * remote-asset copies kept under `tmpDir`.
 */
export async function serveComposition(composition: Composition, tmpDir: string, policy: AssetPolicy): Promise<ServedComposition> {
  const assetDir = path.join(tmpDir, 'assets');
  const server = await serveProject(composition.projectDir, { remoteDir: assetDir });
  const remote = new RemoteAssets({
    dir: assetDir,
    allowMissing: policy.allowMissingMedia ?? false,
    allowPrivateNetwork: policy.allowPrivateNetwork,
    maxBytes: policy.maxAssetBytes,
    origin: new URL(server.url).origin,
    onWarning: policy.onWarning,
  });
  const assets = new AssetRouter({ projectDir: composition.projectDir, serverUrl: server.url, remote });
  const url = new URL(encodeURI(path.relative(composition.projectDir, composition.entryFile).split(path.sep).join('/')), server.url).href;
  return { url, assets, close: () => server.close() };
}
