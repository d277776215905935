import { Container, getRandom } from '@cloudflare/containers';
import { PREVIEW_COMPOSITION_DIR, RENDER_CONTAINERS } from './config';

interface Env {
  ASSETS: Fetcher;
  RENDERS: R2Bucket;
  RENDER_CONTAINER: DurableObjectNamespace<RenderContainer>;
  PREVIEW_COMPOSITION_DIR?: string;
  /** `local`: forward renders to RENDER_SERVER_URL (the container's server as a local process). */
  VIDKIT_ADAPTERS?: string;
  RENDER_SERVER_URL?: string;
}

/** The container-backed Durable Object: its image runs container/server.mjs on port 8080. */
export class RenderContainer extends Container {
  defaultPort = 8080;
  // Instances sleep after 10 minutes without requests; the next render cold-starts.
  sleepAfter = '10m';
}

const json = (body: unknown, status: number): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const RENDER_NAME = /^[A-Za-z0-9-]+\.mp4$/;

function compositionDir(env: Env): string {
  return env.PREVIEW_COMPOSITION_DIR || PREVIEW_COMPOSITION_DIR;
}

/** The render server: the RenderContainer on the platform, a local process with local adapters. */
async function forwardRender(request: Request, env: Env): Promise<Response> {
  const init = { method: 'POST', body: await request.arrayBuffer(), headers: { 'x-composition-dir': compositionDir(env) } };
  if (env.VIDKIT_ADAPTERS === 'local') {
    if (!env.RENDER_SERVER_URL) return json({ error: 'VIDKIT_ADAPTERS=local needs RENDER_SERVER_URL' }, 500);
    return fetch(`${env.RENDER_SERVER_URL}/render`, init);
  }
  const container = await getRandom(env.RENDER_CONTAINER, RENDER_CONTAINERS);
  return container.fetch(new Request('http://container/render', init));
}

/** POST /api/render: renders in the container, stores the MP4 in `vidkit-renders`, returns `{url}`. */
async function render(request: Request, env: Env): Promise<Response> {
  const rendered = await forwardRender(request, env);
  // The container answers 400/429/500/504 with the request contract's JSON message; pass it on,
  // with Retry-After on a 429.
  if (!rendered.ok) {
    const headers = new Headers({ 'content-type': 'application/json' });
    const retryAfter = rendered.headers.get('retry-after');
    if (retryAfter) headers.set('retry-after', retryAfter);
    return new Response(rendered.body, { status: rendered.status, headers });
  }
  const name = `${crypto.randomUUID()}.mp4`;
  await env.RENDERS.put(name, rendered.body, { httpMetadata: { contentType: 'video/mp4' } });
  return json({ url: `${new URL(request.url).origin}/renders/${name}` }, 200);
}

/** GET /renders/<name>: a stored MP4 from the bucket. */
async function storedRender(name: string, env: Env): Promise<Response> {
  const object = RENDER_NAME.test(name) ? await env.RENDERS.get(name) : null;
  if (!object) return json({ error: `no render named ${name}` }, 404);
  return new Response(object.body, { headers: { 'content-type': 'video/mp4', etag: object.httpEtag } });
}

/** GET /: the preview page with the player pointed at the configured composition. */
async function previewPage(request: Request, env: Env): Promise<Response> {
  const page = await env.ASSETS.fetch(new Request(new URL('/index.html', request.url)));
  const src = `${compositionDir(env)}/index.html`;
  return new HTMLRewriter().on('vidkit-player', { element: (el) => void el.setAttribute('src', src) }).transform(page);
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/api/render') {
      return request.method === 'POST' ? render(request, env) : json({ error: 'use POST' }, 405);
    }
    if (pathname.startsWith('/renders/') && request.method === 'GET') return storedRender(pathname.slice('/renders/'.length), env);
    if (pathname === '/' || pathname === '/index.html') return previewPage(request, env);
    return env.ASSETS.fetch(request);
  },
} satisfies ExportedHandler<Env>;
