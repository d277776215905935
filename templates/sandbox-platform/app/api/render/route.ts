import { randomUUID } from 'node:crypto';
import { NextResponse } from 'next/server';
import { RenderRequestError, loadComposition, parseRenderRequest } from 'vidkit/web-template';
import { createBlobStore } from '../../../lib/blob-store';
import { compositionProjectDir } from '../../../lib/config';
import { createRenderer } from '../../../lib/renderer';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
// The platform function only waits for the sandbox; 300 s is its cap (SPEC.md 8).
export const maxDuration = 300;

/** POST /api/render: `{"variables": {...}}` or an empty body → `{"url": "<stored MP4>"}`. */
export async function POST(request: Request): Promise<Response> {
  const projectDir = compositionProjectDir();
  let variables: Record<string, unknown>;
  try {
    variables = parseRenderRequest(new Uint8Array(await request.arrayBuffer()), loadComposition(projectDir));
  } catch (err) {
    if (err instanceof RenderRequestError) return NextResponse.json({ error: err.message }, { status: 400 });
    throw err;
  }
  try {
    const bytes = await createRenderer().render(projectDir, variables);
    const url = await createBlobStore().save(`${randomUUID()}.mp4`, bytes, new URL(request.url).origin);
    return NextResponse.json({ url });
  } catch (err) {
    return NextResponse.json({ error: (err as Error).message }, { status: 500 });
  }
}
