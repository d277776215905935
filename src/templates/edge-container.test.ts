import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FIXTURES, tempDir } from '../test-support/cli';
import {
  ACCENT_VARIABLES,
  ALL_TYPES_VARIABLES,
  BURST_MAX_WAITING,
  assertAllTypesRender,
  assertBurst,
  assertNothingLeft,
  assertSameContract,
  renderBurst,
  rendersInFlight,
  LOCAL_VIDKIT_CLI,
  LONG_TITLE_BODY,
  RunningServer,
  SMALL_RENDER,
  TEMPLATES,
  TIGHT_LIMITS,
  TIMEOUT_ERROR,
  assertLongTitleRender,
  assertQueueFull,
  assertRejectsMalformedBodies,
  assertSmallAccentRender,
  installFixtureComposition,
  post,
  postJson,
  assertPreviewSession,
  previewSession,
  processMarker,
  renderLeftovers,
  renderPastTimeout,
  startServer,
  threeAtOnce,
} from '../test-support/templates';
import { freePort } from '../test-support/ports';

// The edge-container template: the real Worker in `wrangler dev` (workerd + miniflare's local R2
// bucket), containers disabled; the container's own server runs as a local process behind it, with
// no render waiting (RENDER_MAX_WAITING=0). A second render server, on the test fixtures under one
// waiting render and a 3 s timeout, is driven directly, as the Worker forwards to it.
const APP = path.join(TEMPLATES, 'edge-container');
const WRANGLER = path.join(APP, 'node_modules', '.bin', 'wrangler');
const test = suite('edge-container template');
const state = tempDir('vidkit-wrangler-');
const wranglerEnv = { WRANGLER_SEND_METRICS: 'false', CI: '1' };
const marker = processMarker();
let container: RunningServer;
let limited: RunningServer;
let worker: RunningServer;
let endlessDir: string;
let longTitleDir: string;
let typedDir: string;
let publicRoot: string;
// The render servers' TMPDIR: what a render writes there (variables file, output, browser profile)
// must be gone after it.
const containerTmp = tempDir('vidkit-template-tmp-');
const limitedTmp = tempDir('vidkit-template-tmp-');

async function startRenderServer(root: string, env: Record<string, string>): Promise<RunningServer> {
  const port = await freePort();
  return startServer(process.execPath, ['server.mjs'], {
    cwd: path.join(APP, 'container'),
    env: { PORT: String(port), COMPOSITIONS_ROOT: root, VIDKIT_CLI: LOCAL_VIDKIT_CLI, ...SMALL_RENDER, ...env },
    port,
    readyPath: '/health',
  });
}

/** POST /render as the Worker sends it, for the composition in `dir`. */
const renderDirectly = (server: RunningServer, dir: string, body: string | Uint8Array<ArrayBuffer>) => post(server.url + '/render', body, { 'x-composition-dir': dir });

test.before(async () => {
  const copy = spawnSync('npm', ['run', '--silent', 'assets'], { cwd: APP, encoding: 'utf8' });
  assert.is(copy.status, 0, copy.stderr);
  // The render servers' public/: the template's compositions and the fixtures.
  const root = tempDir('vidkit-edge-public-');
  publicRoot = root;
  fs.cpSync(path.join(APP, 'public', 'compositions'), path.join(root, 'compositions'), { recursive: true });
  endlessDir = `compositions/${installFixtureComposition('endless-frame', path.join(root, 'compositions'))}`;
  longTitleDir = `compositions/${installFixtureComposition('long-variable', path.join(root, 'compositions'))}`;
  typedDir = `compositions/${installFixtureComposition('all-variable-types', path.join(root, 'compositions'))}`;
  container = await startRenderServer(root, { RENDER_MAX_WAITING: '0', TMPDIR: containerTmp });
  limited = await startRenderServer(root, { ...TIGHT_LIMITS, ...marker.env, TMPDIR: limitedTmp });
  const port = await freePort();
  const vars = ['VIDKIT_ADAPTERS:local', `RENDER_SERVER_URL:${container.url}`].flatMap((v) => ['--var', v]);
  worker = await startServer(WRANGLER, ['dev', '--ip', '127.0.0.1', '--port', String(port), '--persist-to', state, ...vars], {
    cwd: APP,
    env: wranglerEnv,
    port,
  });
});

test.after(async () => {
  await worker?.stop();
  await Promise.all([container?.stop(), limited?.stop()]);
});

test('GET / serves <vidkit-player> with the composition; in a browser it draws and plays, and its form renders a video that the page then plays', async () => {
  const html = await (await fetch(worker.url + '/')).text();
  assert.match(html, /<vidkit-player src="compositions\/ui-3d-reveal\/index.html" width="960" height="540"/);
  // A screenshot of the page with the rendered video: test-artifacts/edge-container-preview.png.
  assertPreviewSession(await previewSession(worker.url + '/', 'edge-container-preview', ACCENT_VARIABLES.variables));
});

test('POST /api/render stores an H.264 MP4 in the vidkit-renders bucket and returns its URL', async () => {
  const { status, json } = await postJson(worker.url + '/api/render', JSON.stringify(ACCENT_VARIABLES));
  assert.is(status, 200, JSON.stringify(json) + worker.output() + container.output());
  const url = new URL(String(json.url));
  assert.match(url.pathname, /^\/renders\/[0-9a-f-]+\.mp4$/);
  const res = await fetch(url);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'video/mp4');
  const bytes = Buffer.from(await res.arrayBuffer());
  // miniflare keeps the bucket's objects as files: the MP4 is there byte for byte.
  const blobs = path.join(state, 'v3', 'r2', 'vidkit-renders', 'blobs');
  assert.ok(fs.readdirSync(blobs).some((f) => fs.readFileSync(path.join(blobs, f)).equals(bytes)), 'MP4 not in the bucket');
  assertSmallAccentRender(bytes);
  assert.is((await fetch(`${worker.url}/renders/00000000-0000-0000-0000-000000000000.mp4`)).status, 404);
});

test('malformed bodies get a 400 with a message', async () => {
  await assertRejectsMalformedBodies(worker.url + '/api/render');
});

test('through the Worker, a render while one runs and none may wait (RENDER_MAX_WAITING=0) is answered 429 with Retry-After', async () => {
  const answers = await Promise.all([1, 2].map(() => post(worker.url + '/api/render', '')));
  const [done, refused] = answers.sort((a, b) => a.status - b.status);
  assert.is(done.status, 200, container.output());
  await done.arrayBuffer();
  await assertQueueFull(refused, 0);
});

test('RENDER_MAX_WAITING=1: with one render running and one waiting, a third is answered 429 with Retry-After', async () => {
  const [refused, ...accepted] = await threeAtOnce(() => renderDirectly(limited, endlessDir, ''));
  await assertQueueFull(refused);
  // The one that waited ran once the first was stopped: both ran into the timeout.
  assert.equal(accepted.map((r) => r.status), [504, 504], limited.output());
});

test('a render past RENDER_TIMEOUT_SECONDS answers 504 naming the limit; its vidkit, browser and temporary files are gone', async () => {
  const { res, left } = await renderPastTimeout(() => renderDirectly(limited, endlessDir, ''), marker.entry);
  assert.is(res.status, 504);
  assert.match(((await res.json()) as { error: string }).error, TIMEOUT_ERROR);
  assert.equal(left, []);
  assert.equal(fs.readdirSync(limitedTmp), [], 'the render left temporary files behind');
});

test('a 60 KiB variable that serialises past the argument-list limit renders, and reaches the page whole', async () => {
  const res = await renderDirectly(container, longTitleDir, LONG_TITLE_BODY);
  assert.is(res.status, 200, container.output());
  assertLongTitleRender(new Uint8Array(await res.arrayBuffer()));
  // The warm browser's directory stays for the next request; nothing of this render does.
  assert.equal(renderLeftovers(containerTmp), [], 'the render left temporary files behind');
});

test('the contract is vidkit\'s: a font variable renders; an unsupported type and every mistyped value are refused with vidkit\'s message', async () => {
  await assertSameContract((body) => renderDirectly(container, typedDir, body));
  const res = await renderDirectly(container, typedDir, JSON.stringify(ALL_TYPES_VARIABLES));
  assert.is(res.status, 200, container.output());
  assertAllTypesRender(new Uint8Array(await res.arrayBuffer()));
});

test('under 20 renders at once: one at a time, RENDER_MAX_WAITING waiting, the rest 429 with Retry-After; each accepted one ends with its MP4, and nothing is left running or in TMPDIR', async () => {
  const burstMarker = processMarker();
  const tmp = tempDir('vidkit-template-tmp-');
  const server = await startRenderServer(publicRoot, { RENDER_MAX_WAITING: String(BURST_MAX_WAITING), TMPDIR: tmp, ...burstMarker.env });
  try {
    const result = await renderBurst(
      () => renderDirectly(server, typedDir, JSON.stringify(ALL_TYPES_VARIABLES)),
      async (accepted) => accepted,
      () => rendersInFlight(tmp),
    );
    await assertBurst(result);
  } finally {
    await server.stop();
  }
  await assertNothingLeft(burstMarker.entry, tmp);
});

test('wrangler deploy --dry-run accepts the config and builds the RenderContainer image from container/Dockerfile', () => {
  const outdir = tempDir('vidkit-wrangler-out-');
  const log = path.join(outdir, 'docker');
  const run = spawnSync(WRANGLER, ['deploy', '--dry-run', '--outdir', outdir, '--var', 'PREVIEW_COMPOSITION_DIR:compositions/other'], {
    cwd: APP,
    // MOCK: the Docker CLI (no Docker engine here); it records the image build wrangler asks for.
    env: { ...process.env, ...wranglerEnv, WRANGLER_DOCKER_BIN: path.join(FIXTURES, 'mock-docker.sh'), MOCK_DOCKER_LOG: log },
    encoding: 'utf8',
  });
  assert.is(run.status, 0, run.stdout + run.stderr);
  const stdout = run.stdout.replace(/\x1b\[[0-9;]*m/g, '');
  for (const binding of ['env.RENDER_CONTAINER (RenderContainer)', 'env.RENDERS (vidkit-renders)', 'env.PREVIEW_COMPOSITION_DIR']) {
    assert.ok(stdout.includes(binding), `${binding} missing from:\n${stdout}`);
  }
  const args = fs.readFileSync(`${log}.args`, 'utf8').split('\n');
  assert.equal(args.slice(0, 2), ['build', '--load']);
  assert.ok(args.includes(APP), `build context ${args.join(' ')}`);
  assert.is(fs.readFileSync(`${log}.dockerfile`, 'utf8'), fs.readFileSync(path.join(APP, 'container', 'Dockerfile'), 'utf8'));
  assert.match(fs.readFileSync(path.join(outdir, 'index.js'), 'utf8'), /RenderContainer = class extends Container/);
});

test.run();
