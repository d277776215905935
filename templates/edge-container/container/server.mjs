// The render server inside the RenderContainer image (and, with local adapters, a local process
// behind the Worker): POST /render with the request contract's body renders the composition named
// by the x-composition-dir header in this process, on a browser kept warm between requests, and
// answers the MP4. One render runs at a time, RENDER_MAX_WAITING more wait (then 429 with
// Retry-After), each for at most RENDER_TIMEOUT_SECONDS (then 504).
import http from 'node:http';
import path from 'node:path';
import templateRenderer from 'vidkit/template-renderer';
import webTemplate from 'vidkit/web-template';

const { MAX_RENDER_REQUEST_BYTES, RenderQueue, loadComposition, parseRenderRequest, renderErrorAnswer, renderLimits } = webTemplate;
const { WarmTemplateRenderer } = templateRenderer;

const PORT = Number(process.env.PORT ?? 8080);
/** The directory holding compositions/<name>/ (the template's public/). */
const COMPOSITIONS_ROOT = path.resolve(process.env.COMPOSITIONS_ROOT ?? '/app/public');
const LIMITS = renderLimits(process.env);
const queue = new RenderQueue(LIMITS.maxWaiting);
const renderer = new WarmTemplateRenderer();

const sendJson = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** The body, stopping one byte past the limit so an oversized request is never held whole. */
function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      if (size > MAX_RENDER_REQUEST_BYTES) return;
      chunks.push(c);
      size += c.length;
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function projectDir(header) {
  const dir = path.resolve(COMPOSITIONS_ROOT, String(header ?? ''));
  if (!header || !dir.startsWith(COMPOSITIONS_ROOT + path.sep)) throw new Error(`composition directory outside ${COMPOSITIONS_ROOT}: ${header}`);
  return dir;
}

async function render(req, res) {
  try {
    const dir = projectDir(req.headers['x-composition-dir']);
    const variables = parseRenderRequest(await readBody(req), loadComposition(dir));
    const bytes = await queue.run(() => renderer.render({ projectDir: dir, variables, env: process.env, timeoutSeconds: LIMITS.timeoutSeconds }));
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': bytes.length });
    res.end(bytes);
  } catch (err) {
    const { status, headers, body } = renderErrorAnswer(err);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }
}

// Stopped (the container's SIGTERM, Ctrl-C): exiting takes the warm browser and its files along
// (vidkit/template-renderer removes them as the process exits).
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => process.exit(0));

http
  .createServer((req, res) => {
    if (req.url === '/render' && req.method === 'POST') return void render(req, res);
    if (req.url === '/health') return sendJson(res, 200, { ok: true });
    sendJson(res, 404, { error: 'not found' });
  })
  .listen(PORT, () => console.error(`render server: listening on ${PORT}, compositions under ${COMPOSITIONS_ROOT}`));
