import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../test-support/cli';
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

// The sandbox-platform template (Next.js) with its local adapters: the sandbox is a local vidkit
// process, the blob store a directory. The platform clients (sandbox, blob) cannot run here.
const APP = path.join(TEMPLATES, 'sandbox-platform');
const test = suite('sandbox-platform template');
const blobDir = tempDir('vidkit-blobs-');
const env = { NEXT_TELEMETRY_DISABLED: '1', VIDKIT_ADAPTERS: 'local', VIDKIT_CLI: LOCAL_VIDKIT_CLI, VIDKIT_LOCAL_STORE_DIR: blobDir, ...SMALL_RENDER };
const compositions = path.join(APP, 'public', 'compositions');
const marker = processMarker();
let server: RunningServer;
// The same app on the test fixtures: one whose frame never ends, under one waiting render and a
// 3 s timeout, and one that paints the length of its title.
let limited: RunningServer;
let longTitle: RunningServer;
let typed: RunningServer;
let fixtures: string[] = [];
// Their TMPDIR: what a render writes there (variables file, output, browser profile) must be gone after it.
const limitedTmp = tempDir('vidkit-template-tmp-');
const longTitleTmp = tempDir('vidkit-template-tmp-');

async function startApp(extra: Record<string, string>): Promise<RunningServer> {
  const port = await freePort();
  const next = path.join(APP, 'node_modules', '.bin', 'next');
  return startServer(next, ['start', '-p', String(port), '-H', '127.0.0.1'], { cwd: APP, env: { ...env, ...extra }, port });
}

test.before(async () => {
  // The app's vidkit is this checkout's, packed into vidkit-pack/ as a deploy packs it (the suite
  // has built it) and installed from there.
  const pack = spawnSync(process.execPath, ['../vidkit-pack.mjs', 'vidkit-pack'], { cwd: APP, env: { ...process.env, VIDKIT_BUILT: '1' }, encoding: 'utf8' });
  assert.is(pack.status, 0, pack.stderr);
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: APP, encoding: 'utf8' });
  assert.is(install.status, 0, install.stderr);
  // `next build` checks the Next.js config, routes and types; the build script also copies the player in.
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: APP, env: { ...process.env, ...env }, encoding: 'utf8' });
  assert.is(build.status, 0, `next build failed:\n${build.stdout}\n${build.stderr}`);
  fixtures = ['endless-frame', 'long-variable', 'all-variable-types'].map((f) => installFixtureComposition(f, compositions));
  server = await startApp({});
  limited = await startApp({ PREVIEW_COMPOSITION_DIR: `compositions/${fixtures[0]}`, ...TIGHT_LIMITS, ...marker.env, TMPDIR: limitedTmp });
  longTitle = await startApp({ PREVIEW_COMPOSITION_DIR: `compositions/${fixtures[1]}`, TMPDIR: longTitleTmp });
  typed = await startApp({ PREVIEW_COMPOSITION_DIR: `compositions/${fixtures[2]}` });
});

test.after(async () => {
  await Promise.all([server?.stop(), limited?.stop(), longTitle?.stop(), typed?.stop()]);
  for (const name of fixtures) fs.rmSync(path.join(compositions, name), { recursive: true, force: true });
});

test('GET / serves <vidkit-player> with the composition; in a browser it draws and plays, and its form renders a video that the page then plays', async () => {
  const html = await (await fetch(server.url + '/')).text();
  assert.match(html, /<vidkit-player[^>]*src="compositions\/ui-3d-reveal\/index.html"[^>]*width="960"[^>]*height="540"/);
  // A screenshot of the page with the rendered video: test-artifacts/sandbox-platform-preview.png.
  assertPreviewSession(await previewSession(server.url + '/', 'sandbox-platform-preview', ACCENT_VARIABLES.variables));
});

test('POST /api/render stores an H.264 MP4 in the blob directory and returns its URL', async () => {
  const { status, json } = await postJson(server.url + '/api/render', JSON.stringify(ACCENT_VARIABLES));
  assert.is(status, 200, JSON.stringify(json) + server.output());
  const url = String(json.url);
  // Beside the one the preview page's form rendered.
  const name = path.basename(new URL(url).pathname);
  assert.ok(fs.readdirSync(blobDir).includes(name), `${name} is not in the blob directory`);
  const res = await fetch(url);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'video/mp4');
  const bytes = new Uint8Array(await res.arrayBuffer());
  assert.equal(Buffer.from(bytes), fs.readFileSync(path.join(blobDir, name)));
  assertSmallAccentRender(bytes);
});

test('malformed bodies get a 400 with a message', async () => {
  await assertRejectsMalformedBodies(server.url + '/api/render');
});

test('RENDER_MAX_WAITING=1: with one render running and one waiting, a third is answered 429 with Retry-After', async () => {
  const [refused, ...accepted] = await threeAtOnce(() => post(limited.url + '/api/render', ''));
  await assertQueueFull(refused);
  // The one that waited ran once the first was stopped: both ran into the timeout.
  assert.equal(accepted.map((r) => r.status), [504, 504], limited.output());
});

test('a render past RENDER_TIMEOUT_SECONDS answers 504 naming the limit; its vidkit, browser and temporary files are gone', async () => {
  const { res, left } = await renderPastTimeout(() => post(limited.url + '/api/render', ''), marker.entry);
  assert.is(res.status, 504);
  assert.match(((await res.json()) as { error: string }).error, TIMEOUT_ERROR);
  assert.equal(left, []);
  assert.equal(fs.readdirSync(limitedTmp), [], 'the render left temporary files behind');
});

test('a 60 KiB variable that serialises past the argument-list limit renders, and reaches the page whole', async () => {
  const res = await post(longTitle.url + '/api/render', LONG_TITLE_BODY);
  const json = (await res.json()) as { url: string; error?: string };
  assert.is(res.status, 200, JSON.stringify(json) + longTitle.output());
  assertLongTitleRender(new Uint8Array(await (await fetch(json.url)).arrayBuffer()));
  // The warm browser's directory stays for the next request; nothing of this render does.
  assert.equal(renderLeftovers(longTitleTmp), [], 'the render left temporary files behind');
});

test('the contract is vidkit\'s: a font variable renders; an unsupported type and every mistyped value are refused with vidkit\'s message', async () => {
  await assertSameContract((body) => post(typed.url + '/api/render', body));
  const { status, json } = await postJson(typed.url + '/api/render', JSON.stringify(ALL_TYPES_VARIABLES));
  assert.is(status, 200, JSON.stringify(json) + typed.output());
  assertAllTypesRender(new Uint8Array(await (await fetch(String(json.url))).arrayBuffer()));
});

test('under 20 renders at once: one at a time, RENDER_MAX_WAITING waiting, the rest 429 with Retry-After; each accepted one ends with its MP4, and nothing is left running or in TMPDIR', async () => {
  const burstMarker = processMarker();
  const tmp = tempDir('vidkit-template-tmp-');
  const app = await startApp({ PREVIEW_COMPOSITION_DIR: `compositions/${fixtures[2]}`, RENDER_MAX_WAITING: String(BURST_MAX_WAITING), TMPDIR: tmp, ...burstMarker.env });
  try {
    const result = await renderBurst(
      () => post(app.url + '/api/render', JSON.stringify(ALL_TYPES_VARIABLES)),
      async (accepted) => (accepted.status === 200 ? fetch(((await accepted.json()) as { url: string }).url) : accepted),
      () => rendersInFlight(tmp),
    );
    await assertBurst(result);
  } finally {
    await app.stop();
  }
  await assertNothingLeft(burstMarker.entry, tmp);
});

test.run();
