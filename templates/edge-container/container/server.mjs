// The render server inside the RenderContainer image (and, with local adapters, a local process
// behind the Worker): POST /render with the request contract's body renders the composition named
// by the x-composition-dir header with `vidkit render` and answers the MP4.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import webTemplate from 'vidkit/web-template';

const { MAX_RENDER_REQUEST_BYTES, RenderRequestError, loadComposition, parseRenderRequest, renderCliArgs } = webTemplate;

const PORT = Number(process.env.PORT ?? 8080);
/** The directory holding compositions/<name>/ (the template's public/). */
const COMPOSITIONS_ROOT = path.resolve(process.env.COMPOSITIONS_ROOT ?? '/app/public');
/** How to run vidkit: `vidkit` in the image, `node <repo>/dist/cli/main.js` locally. */
const VIDKIT_CLI = (process.env.VIDKIT_CLI ?? 'vidkit').split(/\s+/).filter(Boolean);

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

function runVidkit(args) {
  return new Promise((resolve, reject) => {
    const [cmd, ...pre] = VIDKIT_CLI;
    const child = spawn(cmd, [...pre, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) return resolve();
      const last = stderr.trim().split('\n').filter(Boolean).pop() ?? '';
      reject(new Error(`render failed (exit ${code}): ${last}`));
    });
  });
}

async function render(req, res) {
  let dir;
  let variables;
  try {
    dir = projectDir(req.headers['x-composition-dir']);
    variables = parseRenderRequest(await readBody(req), loadComposition(dir));
  } catch (err) {
    return sendJson(res, err instanceof RenderRequestError ? 400 : 500, { error: err.message });
  }
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'vidkit-render-'));
  try {
    const output = path.join(work, 'render.mp4');
    await runVidkit(renderCliArgs(dir, output, variables, process.env));
    const bytes = await fs.readFile(output);
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': bytes.length });
    res.end(bytes);
  } catch (err) {
    sendJson(res, 500, { error: err.message });
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

http
  .createServer((req, res) => {
    if (req.url === '/render' && req.method === 'POST') return void render(req, res);
    if (req.url === '/health') return sendJson(res, 200, { ok: true });
    sendJson(res, 404, { error: 'not found' });
  })
  .listen(PORT, () => console.error(`render server: listening on ${PORT}, compositions under ${COMPOSITIONS_ROOT}`));
