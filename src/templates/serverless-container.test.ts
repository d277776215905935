import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT, tempDir } from '../test-support/cli';
import {
  ACCENT_VARIABLES,
  LOCAL_VIDKIT_CLI,
  RunningServer,
  SMALL_RENDER,
  TEMPLATES,
  assertRejectsMalformedBodies,
  assertSmallAccentRender,
  postJson,
  previewFrameSpread,
  startServer,
} from '../test-support/templates';
import { freePort } from '../test-support/ports';

// The serverless-container template: its real ASGI app under uvicorn with the local adapters (the
// spawned function is a thread-pool job running the vidkit CLI, the volume a directory).
const APP = path.join(TEMPLATES, 'serverless-container');
const PYTHON = path.join(APP, '.venv', 'bin', 'python');
const test = suite('serverless-container template');
const volume = tempDir('vidkit-volume-');
let server: RunningServer;

async function startApp(env: Record<string, string>): Promise<RunningServer> {
  const port = await freePort();
  return startServer(PYTHON, ['-m', 'vidkit_web.local', '--port', String(port)], { cwd: APP, env, port });
}

test.before(async () => {
  const copy = spawnSync(process.execPath, [path.join(REPO_ROOT, 'dist', 'template-assets.js'), 'static/vidkit-player.js', 'compositions'], { cwd: APP, encoding: 'utf8' });
  assert.is(copy.status, 0, copy.stderr);
  server = await startApp({ VIDKIT_LOCAL_STORE_DIR: volume, VIDKIT_CLI: LOCAL_VIDKIT_CLI, ...SMALL_RENDER });
});

test.after(async () => {
  await server?.stop();
});

test('GET / serves <vidkit-player> with the composition, and it draws a non-blank frame', async () => {
  const html = await (await fetch(server.url + '/')).text();
  assert.match(html, /<vidkit-player src="compositions\/ui-3d-reveal\/index.html" width="960" height="540"/);
  const spread = await previewFrameSpread(server.url + '/');
  assert.ok(spread > 10, `screenshot luma spread ${spread.toFixed(1)}`);
});

test('POST /api/render answers {call_id} at once; the poll route is 202 while it runs, then the MP4 from the volume', async () => {
  const started = Date.now();
  const { status, json } = await postJson(server.url + '/api/render', JSON.stringify(ACCENT_VARIABLES));
  assert.is(status, 202, JSON.stringify(json));
  assert.ok(Date.now() - started < 1000, `POST took ${Date.now() - started} ms`);
  assert.match(String(json.call_id), /^local-[0-9a-f]+$/);
  const pollUrl = String(json.url);
  assert.is(pollUrl, `${server.url.replace('127.0.0.1', new URL(pollUrl).hostname)}/api/render/${json.call_id}`);
  let res = await fetch(pollUrl);
  assert.is(res.status, 202, 'first poll');
  assert.is(((await res.json()) as { status: string }).status, 'running');
  const deadline = Date.now() + 120_000;
  while (res.status === 202 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    res = await fetch(pollUrl);
    if (res.status === 202) await res.arrayBuffer();
  }
  assert.is(res.status, 200, server.output());
  assert.is(res.headers.get('content-type'), 'video/mp4');
  const bytes = Buffer.from(await res.arrayBuffer());
  const renderPath = res.headers.get('x-render-url')!;
  assert.match(renderPath, /^\/renders\/[0-9a-f-]+\.mp4$/);
  assert.equal(fs.readFileSync(path.join(volume, path.basename(renderPath))), bytes);
  const stored = await fetch(server.url + renderPath);
  assert.is(stored.status, 200);
  assert.equal(Buffer.from(await stored.arrayBuffer()), bytes);
  assertSmallAccentRender(bytes);
});

test('unknown ids and names are 404', async () => {
  for (const route of ['/api/render/local-0123abcd', '/api/render/fc-unknown', '/renders/nothing.mp4', '/renders/..%2Fapp.py']) {
    const res = await fetch(server.url + route);
    assert.is(res.status, 404, route);
    assert.type(((await res.json()) as { error: string }).error, 'string');
  }
});

test('malformed bodies get a 400 with a message', async () => {
  await assertRejectsMalformedBodies(server.url + '/api/render');
});

test('a render that fails is a 500 with the error on the poll route', async () => {
  // `false` stands in for a vidkit that exits 1: the spawned job fails, nothing reaches the volume.
  const failing = await startApp({ VIDKIT_LOCAL_STORE_DIR: tempDir('vidkit-volume-'), VIDKIT_CLI: 'false' });
  try {
    const { status, json } = await postJson(failing.url + '/api/render', '');
    assert.is(status, 202);
    let res = await fetch(String(json.url));
    for (let i = 0; res.status === 202 && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await fetch(String(json.url));
    }
    assert.is(res.status, 500);
    assert.match(((await res.json()) as { error: string }).error, /render failed \(exit 1\)/);
  } finally {
    await failing.stop();
  }
});

test('the Modal app module imports: a spawned render function and an ASGI web endpoint', () => {
  const check = [
    'import modal, app',
    'assert app.app.name == "vidkit-serverless-container", app.app.name',
    'assert isinstance(app.render, modal.Function) and not app.render._is_web_endpoint()',
    'assert isinstance(app.web, modal.Function) and app.web._is_web_endpoint()',
    'print("ok")',
  ].join('\n');
  const run = spawnSync(PYTHON, ['-c', check], { cwd: APP, encoding: 'utf8' });
  assert.is(run.status, 0, run.stderr);
  assert.is(run.stdout.trim(), 'ok');
});

test.run();
