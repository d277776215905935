import * as fs from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { awsClients } from './aws-clients';

/** Object-store chores of the render function: whole files in and out, small JSON records, listings. */

export interface BucketObject {
  key: string;
  bytes: number;
  lastModified?: Date;
}

/** Every object under `prefix`, page after page. */
export async function listObjects(bucket: string, prefix: string): Promise<BucketObject[]> {
  const objects: BucketObject[] = [];
  let token: string | undefined;
  do {
    const page = await awsClients().s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const o of page.Contents ?? []) if (o.Key) objects.push({ key: o.Key, bytes: o.Size ?? 0, lastModified: o.LastModified });
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return objects;
}

export async function listKeys(bucket: string, prefix: string): Promise<string[]> {
  return (await listObjects(bucket, prefix)).map((o) => o.key);
}

export async function download(bucket: string, key: string, file: string): Promise<void> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const got = await awsClients().s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  await pipeline(got.Body as Readable, fs.createWriteStream(file));
}

/** One PutObject: the object appears whole or not at all. */
export async function upload(bucket: string, key: string, file: string, contentType: string): Promise<void> {
  const size = fs.statSync(file).size;
  await awsClients().s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: fs.createReadStream(file), ContentLength: size, ContentType: contentType }));
}

export async function putJson(bucket: string, key: string, value: unknown): Promise<void> {
  await awsClients().s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: JSON.stringify(value), ContentType: 'application/json' }));
}

/**
 * A conditional PutObject: `ifMatch` writes only over the object with that ETag, `ifNoneMatch: '*'`
 * only where none exists. False when the condition failed (412, or 409 for a concurrent write).
 */
export async function putJsonIf(bucket: string, key: string, value: unknown, condition: { ifMatch: string } | { ifNoneMatch: '*' }): Promise<boolean> {
  try {
    await awsClients().s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: JSON.stringify(value),
        ContentType: 'application/json',
        ...('ifMatch' in condition ? { IfMatch: condition.ifMatch } : { IfNoneMatch: condition.ifNoneMatch }),
      }),
    );
    return true;
  } catch (err) {
    const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status === 412 || status === 409) return false;
    throw err;
  }
}

/** A JSON object and its ETag (for {@link putJsonIf}), or undefined when there is none. */
export async function getJsonTagged<T>(bucket: string, key: string): Promise<{ value: T; etag: string } | undefined> {
  try {
    const got = await awsClients().s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return { value: JSON.parse(await got.Body!.transformToString()) as T, etag: got.ETag! };
  } catch (err) {
    if ((err as { name?: string }).name === 'NoSuchKey') return undefined;
    throw err;
  }
}

export async function getJson(bucket: string, key: string): Promise<unknown> {
  const got = await awsClients().s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return JSON.parse(await got.Body!.transformToString());
}

export async function exists(bucket: string, key: string): Promise<boolean> {
  try {
    await awsClients().s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (err) {
    const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
    if (e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404) return false;
    throw err;
  }
}

export async function deleteKeys(bucket: string, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) {
    const batch = keys.slice(i, i + 1000).map((Key) => ({ Key }));
    await awsClients().s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch, Quiet: true } }));
  }
}
