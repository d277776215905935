import { randomUUID } from 'node:crypto';
import { NextResponse } from 'next/server';
import { RenderQueue, loadComposition, parseRenderRequest, renderErrorAnswer, renderLimits } from 'vidkit/web-template';
import { createBlobStore } from '../../../lib/blob-store';
import { compositionProjectDir } from '../../../lib/config';
import { createRenderer } from '../../../lib/renderer';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
// The platform function only waits for the sandbox; 300 s is its cap.
export const maxDuration = 300;

// A render stops at 270 s by default, inside maxDuration, so the route still answers 504 and
// stops the sandbox itself.
const limits = renderLimits(process.env, { timeoutSeconds: 270 });
const queue = new RenderQueue(limits.maxWaiting);

/**
 * POST /api/render: `{"variables": {...}}` or an empty body → `{"url": "<stored MP4>"}`; one render
 * at a time in this process, RENDER_MAX_WAITING more queued, then 429 with Retry-After.
 */
export async function POST(request: Request): Promise<Response> {
  const projectDir = compositionProjectDir();
  try {
    const variables = parseRenderRequest(new Uint8Array(await request.arrayBuffer()), loadComposition(projectDir));
    const bytes = await queue.run(() => createRenderer(limits.timeoutSeconds).render(projectDir, variables));
    const url = await createBlobStore().save(`${randomUUID()}.mp4`, bytes, new URL(request.url).origin);
    return NextResponse.json({ url });
  } catch (err) {
    const { status, headers, body } = renderErrorAnswer(err);
    return NextResponse.json(body, { status, headers });
  }
}
