import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { Composition, loadComposition } from '../composition/composition';
import type { DeclarationSet } from '../composition/variables';
import { badInput } from '../errors';
import { projectPathStats } from '../values/project-files';
import { awsClients } from './aws-clients';
import { deleteKeys, exists, getJson, listObjects } from './bucket-files';
import { mapWithLimit } from './map-limit';
import { siteKeys } from './render-input';
import { resolveBucket } from './stack';

/** What `deploySite` returns: enough to start renders of the site without reading the project again. */
export interface SiteHandle {
  siteId: string;
  bucketName: string;
  /** Key prefix of the site's files in the bucket. */
  prefix: string;
  /** The composition as parsed at upload: used to plan and to warn before starting a render. */
  composition: SiteComposition;
  /** Files uploaded by this call: 0 when the same bytes were already there. */
  uploadedFiles: number;
}

export type SiteComposition = Pick<Composition, 'id' | 'width' | 'height' | 'durationSeconds' | 'fps'>;

interface SiteManifest {
  siteId: string;
  composition: SiteComposition;
  files: string[];
}

const SITE_ID_HEX = 20;

/**
 * Every regular file under `dir`, as sorted `/`-separated relative paths. Hidden files included: a
 * page may load them. A symlink the project may follow (docs/explanation/security-model.md: what a page can
 * reach) is resolved here, so the site holds the files it leads to under the link's path, not the
 * link; one that leads outside that, or back into a folder already being listed, is left out.
 */
function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string, open: Set<string>) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      const stats = entry.isSymbolicLink() ? projectPathStats(dir, child) : entry;
      if (stats?.isDirectory()) {
        const real = fs.realpathSync(path.join(dir, child));
        if (!open.has(real)) walk(child, new Set(open).add(real));
      } else if (stats?.isFile()) out.push(child);
    }
  };
  walk('', new Set([fs.realpathSync(dir)]));
  return out.sort();
}

/** The content address of a project: every path and every byte, so same bytes give the same id. */
export function siteIdOf(projectDir: string, files: string[]): string {
  const hash = createHash('sha256');
  for (const file of files) {
    const content = fs.readFileSync(path.join(projectDir, file));
    hash.update(`${file}\0${content.length}\0`);
    hash.update(content);
  }
  return hash.digest('hex').slice(0, SITE_ID_HEX);
}

/** A project read and hashed locally: what a site will be, before any request. */
export interface PreparedSite {
  siteId: string;
  prefix: string;
  composition: SiteComposition;
  projectDir: string;
  files: string[];
  /** The variable declarations, to check overrides against before any request. */
  variables: DeclarationSet;
}

export function prepareSite(projectDir: string): PreparedSite {
  const composition = loadComposition(projectDir);
  const dir = composition.projectDir;
  const files = listFiles(dir);
  const siteId = siteIdOf(dir, files);
  const summary: SiteComposition = {
    id: composition.id,
    width: composition.width,
    height: composition.height,
    durationSeconds: composition.durationSeconds,
    fps: composition.fps,
  };
  return { siteId, prefix: siteKeys.prefix(siteId), composition: summary, projectDir: dir, files, variables: composition.variables };
}

/** Where a site goes: `bucketName`, else VIDKIT_BUCKET, else the RenderBucketName of the stack `stackName` (default vidkit-render). */
export interface BucketChoice {
  bucketName?: string;
  stackName?: string;
}

/**
 * Uploads the project under `sites/<siteId>/` once. The manifest goes last, so an interrupted
 * upload is redone next time; when the manifest is already there nothing is uploaded.
 */
export async function deploySite(opts: ({ projectDir: string } | { prepared: PreparedSite }) & BucketChoice): Promise<SiteHandle> {
  const bucketName = await resolveBucket(opts.bucketName, opts.stackName);
  const site = 'prepared' in opts ? opts.prepared : prepareSite(opts.projectDir);
  const { siteId, prefix, composition, files } = site;
  const { s3 } = awsClients();
  if (await exists(bucketName, siteKeys.manifest(siteId))) {
    return { siteId, bucketName, prefix, composition, uploadedFiles: 0 };
  }
  for (const file of files) {
    await s3.send(new PutObjectCommand({ Bucket: bucketName, Key: prefix + file, Body: fs.readFileSync(path.join(site.projectDir, file)) }));
  }
  const manifest: SiteManifest = { siteId, composition, files };
  await s3.send(new PutObjectCommand({ Bucket: bucketName, Key: siteKeys.manifest(siteId), Body: JSON.stringify(manifest), ContentType: 'application/json' }));
  return { siteId, bucketName, prefix, composition, uploadedFiles: files.length + 1 };
}

/** A handle for a site uploaded earlier (`--site-id`), read from its manifest. */
export async function siteHandleFor(siteId: string, bucketName?: string, stackName?: string): Promise<SiteHandle> {
  if (!/^[0-9a-f]+$/.test(siteId)) throw badInput(`--site-id must be the hex id printed by \`vidkit cloudfn sites create\`, got "${siteId}"`);
  const bucket = await resolveBucket(bucketName, stackName);
  const { s3 } = awsClients();
  let manifest: SiteManifest;
  try {
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: siteKeys.manifest(siteId) }));
    manifest = JSON.parse(await got.Body!.transformToString());
  } catch (err) {
    if ((err as { name?: string }).name === 'NoSuchKey') throw badInput(`site ${siteId} is not in bucket ${bucket}: create it with \`vidkit cloudfn sites create <projectDir>\``);
    throw err;
  }
  return { siteId, bucketName: bucket, prefix: siteKeys.prefix(siteId), composition: manifest.composition, uploadedFiles: 0 };
}

/** One site in the bucket, as `cloudfn sites ls` lists it. */
export interface SiteListing {
  siteId: string;
  /** The composition's id, from the site's manifest; absent when the upload never finished. */
  compositionId?: string;
  files: number;
  bytes: number;
  /** When its last file was written (ISO 8601, UTC). */
  lastModified?: string;
  /** False for an upload cut off before its manifest: `sites create` uploads it again. */
  complete: boolean;
}

/** Manifests read at once while listing. */
const MANIFEST_READS_IN_FLIGHT = 8;

/** Every site under `sites/` in the bucket, oldest first. */
export async function listSites(opts: BucketChoice = {}): Promise<SiteListing[]> {
  const bucket = await resolveBucket(opts.bucketName, opts.stackName);
  const bySite = new Map<string, SiteListing & { latest?: Date }>();
  for (const o of await listObjects(bucket, 'sites/')) {
    const siteId = o.key.split('/')[1];
    const site = bySite.get(siteId) ?? { siteId, files: 0, bytes: 0, complete: false };
    if (o.key === siteKeys.manifest(siteId)) site.complete = true;
    else site.files += 1;
    site.bytes += o.bytes;
    if (o.lastModified && (!site.latest || o.lastModified > site.latest)) site.latest = o.lastModified;
    bySite.set(siteId, site);
  }
  const sites = [...bySite.values()].sort((a, b) => (a.latest?.getTime() ?? 0) - (b.latest?.getTime() ?? 0));
  return mapWithLimit(sites, MANIFEST_READS_IN_FLIGHT, async ({ latest, ...site }) => {
    const manifest = site.complete ? ((await getJson(bucket, siteKeys.manifest(site.siteId))) as SiteManifest) : undefined;
    return { ...site, ...(manifest ? { compositionId: manifest.composition.id } : {}), ...(latest ? { lastModified: latest.toISOString() } : {}) };
  });
}

/**
 * Deletes every object of the site; renders already started from it fail when a chunk fetches it.
 * The manifest goes first, so a deletion cut off midway leaves an incomplete site that
 * `sites create` uploads again, never one that looks whole. Returns the objects deleted.
 */
export async function deleteSite(siteId: string, opts: BucketChoice = {}): Promise<number> {
  if (!/^[0-9a-f]+$/.test(siteId)) throw badInput(`a site id is the hex id \`vidkit cloudfn sites ls\` lists, got "${siteId}"`);
  const bucket = await resolveBucket(opts.bucketName, opts.stackName);
  const keys = (await listObjects(bucket, siteKeys.prefix(siteId))).map((o) => o.key);
  if (keys.length === 0) throw badInput(`no site ${siteId} in bucket ${bucket}: \`vidkit cloudfn sites ls\` lists the sites there`);
  const manifest = siteKeys.manifest(siteId);
  await deleteKeys(bucket, keys.filter((k) => k === manifest));
  await deleteKeys(bucket, keys.filter((k) => k !== manifest));
  return keys.length;
}

/** The bucket when it is known without a request (given, or VIDKIT_BUCKET); {@link resolveBucket} also reads the stack. */
export function requireBucket(bucketName: string | undefined): string {
  const bucket = bucketName ?? process.env.VIDKIT_BUCKET;
  if (!bucket) throw badInput('no render bucket: pass bucketName (--bucket) or set VIDKIT_BUCKET to the RenderBucketName that `vidkit cloudfn deploy` printed');
  return bucket;
}
