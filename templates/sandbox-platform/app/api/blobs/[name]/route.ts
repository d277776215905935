import { promises as fs } from 'node:fs';
import path from 'node:path';
import { LOCAL_BLOB_NAME, localBlobDir } from '../../../../lib/blob-store';
import { useLocalAdapters } from '../../../../lib/config';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/blobs/<name>: the local blob store's files. On the platform the blob URL is used. */
export async function GET(_request: Request, context: { params: Promise<{ name: string }> }): Promise<Response> {
  const { name } = await context.params;
  if (!useLocalAdapters || !LOCAL_BLOB_NAME.test(name)) return Response.json({ error: 'not found' }, { status: 404 });
  try {
    const bytes = await fs.readFile(path.join(localBlobDir(), name));
    return new Response(new Uint8Array(bytes), { headers: { 'content-type': 'video/mp4' } });
  } catch {
    return Response.json({ error: `no render named ${name}` }, { status: 404 });
  }
}
