import { promises as fs } from 'node:fs';
import path from 'node:path';
import { put } from '@vercel/blob';
import { useLocalAdapters } from './config';

/** Where finished MP4s go; `save` returns the URL a client downloads the file from. */
export interface BlobStore {
  save(name: string, bytes: Buffer, origin: string): Promise<string>;
}

/** The platform blob store; its token is injected on deploy as BLOB_READ_WRITE_TOKEN. */
class PlatformBlobStore implements BlobStore {
  async save(name: string, bytes: Buffer): Promise<string> {
    const blob = await put(`renders/${name}`, bytes, {
      access: 'public',
      contentType: 'video/mp4',
      token: process.env.BLOB_READ_WRITE_TOKEN,
    });
    return blob.url;
  }
}

export const LOCAL_BLOB_NAME = /^[A-Za-z0-9._-]+\.mp4$/;

/** The local adapter: a directory (`VIDKIT_LOCAL_STORE_DIR`), served by /api/blobs/<name>. */
export function localBlobDir(): string {
  return path.resolve(/*turbopackIgnore: true*/ process.env.VIDKIT_LOCAL_STORE_DIR ?? '.vidkit-local/blobs');
}

class DirectoryBlobStore implements BlobStore {
  async save(name: string, bytes: Buffer, origin: string): Promise<string> {
    const dir = localBlobDir();
    await fs.mkdir(dir, { recursive: true });
    // Written under a temporary name so a reader never sees half a file.
    const partial = path.join(dir, `.${name}.partial`);
    await fs.writeFile(partial, bytes);
    await fs.rename(partial, path.join(dir, name));
    return `${origin}/api/blobs/${name}`;
  }
}

export function createBlobStore(): BlobStore {
  return useLocalAdapters ? new DirectoryBlobStore() : new PlatformBlobStore();
}
