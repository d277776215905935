import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { built, tempDir } from '../test-support/cli';
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
  markedProcesses,
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

// The serverless-container template: its real ASGI app under uvicorn with the local adapters (the
// spawned function is a thread-pool job handing the render to the vidkit CLI's render server, the
// volume a directory).
const APP = path.join(TEMPLATES, 'serverless-container');
const PYTHON = path.join(APP, '.venv', 'bin', 'python');
const test = suite('serverless-container template');
const volume = tempDir('vidkit-volume-');
const compositions = path.join(APP, 'compositions');
const marker = processMarker();
// The main app's vidkit CLI: a script that records each start of it, then runs it.
const warmMarker = processMarker();
const cliStarts = path.join(tempDir('vidkit-cli-starts-'), 'starts');
const recordingCli = path.join(path.dirname(cliStarts), 'vidkit');
fs.writeFileSync(recordingCli, `#!/bin/sh\necho "$*" >> '${cliStarts}'\nexec ${LOCAL_VIDKIT_CLI} "$@"\n`, { mode: 0o755 });
let server: RunningServer;
// The same app on the test fixtures: one whose frame never ends, under one waiting render and a
// 3 s timeout, and one that paints the length of its title.
let limited: RunningServer;
let longTitle: RunningServer;
let fixtures: string[] = [];
// Their TMPDIR: what a render writes there (variables file, output, browser profile) must be gone after it.
const limitedTmp = tempDir('vidkit-template-tmp-');
const longTitleTmp = tempDir('vidkit-template-tmp-');

async function startApp(env: Record<string, string>): Promise<RunningServer> {
  const port = await freePort();
  return startServer(PYTHON, ['-m', 'vidkit_web.local', '--port', String(port)], { cwd: APP, env, port });
}

/** Polls a render's route until it is no longer 202 (running); returns that answer. */
async function finished(pollUrl: string): Promise<Response> {
  const deadline = Date.now() + 120_000;
  let res = await fetch(pollUrl);
  while (res.status === 202 && Date.now() < deadline) {
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 250));
    res = await fetch(pollUrl);
  }
  return res;
}

/** POSTs a render and waits for its end on the poll route. */
async function renderToEnd(url: string, body: string | Uint8Array<ArrayBuffer>): Promise<Response> {
  const started = await post(url + '/api/render', body);
  const json = (await started.json()) as { url: string; error?: string };
  assert.is(started.status, 202, JSON.stringify(json));
  return finished(json.url);
}

test.before(async () => {
  fixtures = ['endless-frame', 'long-variable', 'all-variable-types'].map((f) => installFixtureComposition(f, compositions));
  // The player, ui-3d-reveal and every composition's request contract, as setup and deploy.sh install them.
  const copy = spawnSync(process.execPath, [built('template-assets.js'), 'static/vidkit-player.js', 'compositions'], { cwd: APP, encoding: 'utf8' });
  assert.is(copy.status, 0, copy.stderr);
  const base = { VIDKIT_CLI: LOCAL_VIDKIT_CLI, ...SMALL_RENDER };
  server = await startApp({ VIDKIT_LOCAL_STORE_DIR: volume, ...base, VIDKIT_CLI: recordingCli, ...warmMarker.env });
  limited = await startApp({ VIDKIT_LOCAL_STORE_DIR: tempDir('vidkit-volume-'), PREVIEW_COMPOSITION: fixtures[0], ...TIGHT_LIMITS, ...marker.env, TMPDIR: limitedTmp, ...base });
  longTitle = await startApp({ VIDKIT_LOCAL_STORE_DIR: tempDir('vidkit-volume-'), PREVIEW_COMPOSITION: fixtures[1], TMPDIR: longTitleTmp, ...base });
});

test.after(async () => {
  await Promise.all([server?.stop(), limited?.stop(), longTitle?.stop()]);
  for (const name of fixtures) {
    fs.rmSync(path.join(compositions, name), { recursive: true, force: true });
    fs.rmSync(path.join(compositions, `${name}.request.schema.json`), { force: true });
  }
});

test('GET / serves <vidkit-player> with the composition; in a browser it draws and plays, and its form renders a video that the page then plays', async () => {
  const html = await (await fetch(server.url + '/')).text();
  assert.match(html, /<vidkit-player src="compositions\/ui-3d-reveal\/index.html" width="960" height="540"/);
  // A screenshot of the page with the rendered video: test-artifacts/serverless-container-preview.png.
  assertPreviewSession(await previewSession(server.url + '/', 'serverless-container-preview', ACCENT_VARIABLES.variables));
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

test('renders run on one warm `vidkit render-server`: two in a row share its process and its browser, and no `vidkit render` starts', async () => {
  const renderServers = () => markedProcesses(warmMarker.entry).filter((p) => /\/cli\/main\.js render-server\b/.test(p.cmdline));
  const browsersOf = (pid: number) => markedProcesses(warmMarker.entry).filter((p) => p.ppid === pid && /chrom/.test(p.cmdline)).map((p) => p.pid);
  const first = await renderToEnd(server.url, JSON.stringify(ACCENT_VARIABLES));
  assert.is(first.status, 200, server.output());
  assertSmallAccentRender(new Uint8Array(await first.arrayBuffer()));
  const [renderServer, ...others] = renderServers();
  assert.equal(others, [], 'more than one render server');
  const browsers = browsersOf(renderServer.pid);
  assert.is(browsers.length, 1, 'one browser launched');
  const second = await renderToEnd(server.url, JSON.stringify(ACCENT_VARIABLES));
  assert.is(second.status, 200, server.output());
  assertSmallAccentRender(new Uint8Array(await second.arrayBuffer()));
  assert.equal(renderServers(), [renderServer], 'the second render had another render server');
  assert.equal(browsersOf(renderServer.pid), browsers, 'the second render launched a browser');
  assert.is(fs.readFileSync(cliStarts, 'utf8'), 'render-server\n', 'the vidkit CLI was started more than once');
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

test('RENDER_MAX_WAITING=1: with one render running and one waiting, a third is answered 429 with Retry-After', async () => {
  const [first, second, refused] = await threeAtOnce(() => post(limited.url + '/api/render', ''));
  await assertQueueFull(refused);
  assert.equal([first.status, second.status], [202, 202]);
  // The one that waited ran once the first was stopped: both ran into the timeout.
  const ends = await Promise.all([first, second].map(async (r) => finished(((await r.json()) as { url: string }).url)));
  assert.equal(ends.map((r) => r.status), [504, 504], limited.output());
});

test('a render past RENDER_TIMEOUT_SECONDS is 504 on the poll route, naming the limit; its vidkit, browser and temporary files are gone', async () => {
  const { res, left } = await renderPastTimeout(() => renderToEnd(limited.url, ''), marker.entry);
  assert.is(res.status, 504);
  assert.match(((await res.json()) as { error: string }).error, TIMEOUT_ERROR);
  assert.equal(left, []);
  assert.equal(fs.readdirSync(limitedTmp), [], 'the render left temporary files behind');
});

test('a 60 KiB variable that serialises past the argument-list limit renders, and reaches the page whole', async () => {
  const res = await renderToEnd(longTitle.url, LONG_TITLE_BODY);
  assert.is(res.status, 200, longTitle.output());
  assertLongTitleRender(new Uint8Array(await res.arrayBuffer()));
  // The warm browser's directory stays for the next request; nothing of this render does.
  assert.equal(renderLeftovers(longTitleTmp), [], 'the render left temporary files behind');
});

test('a render that fails is a 500 with the error on the poll route', async () => {
  // `false` stands in for a vidkit that exits 1: its render server ends before answering, the
  // spawned job fails.
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

test('the contract is vidkit\'s, read from the schema it generates: a font variable renders; an unsupported type and every mistyped value are refused with vidkit\'s message', async () => {
  const app = await startApp({ VIDKIT_LOCAL_STORE_DIR: tempDir('vidkit-volume-'), PREVIEW_COMPOSITION: fixtures[2], ...SMALL_RENDER, VIDKIT_CLI: LOCAL_VIDKIT_CLI });
  try {
    await assertSameContract((body) => post(app.url + '/api/render', body));
    const res = await renderToEnd(app.url, JSON.stringify(ALL_TYPES_VARIABLES));
    assert.is(res.status, 200, app.output());
    assertAllTypesRender(new Uint8Array(await res.arrayBuffer()));
  } finally {
    await app.stop();
  }
});

test('a composition without its request contract: the app does not start, naming the command that writes it', async () => {
  const run = spawnSync(PYTHON, ['-m', 'vidkit_web.local', '--port', String(await freePort())], { cwd: APP, env: { ...process.env, PREVIEW_COMPOSITION: 'no-such-composition' }, encoding: 'utf8', timeout: 30_000 });
  assert.is.not(run.status, 0);
  assert.match(run.stderr, /no-such-composition\.request\.schema\.json is missing: write it with `node <vidkit>\/dist\/template-assets\.js/);
});

test('under 20 renders at once: one at a time, RENDER_MAX_WAITING waiting, the rest 429 with Retry-After; each accepted one ends with its MP4, and nothing is left running or in TMPDIR', async () => {
  const burstMarker = processMarker();
  const tmp = tempDir('vidkit-template-tmp-');
  const renders = tempDir('vidkit-volume-');
  const app = await startApp({ VIDKIT_LOCAL_STORE_DIR: renders, PREVIEW_COMPOSITION: fixtures[2], RENDER_MAX_WAITING: String(BURST_MAX_WAITING), TMPDIR: tmp, ...burstMarker.env, ...SMALL_RENDER, VIDKIT_CLI: LOCAL_VIDKIT_CLI });
  try {
    const result = await renderBurst(
      () => post(app.url + '/api/render', JSON.stringify(ALL_TYPES_VARIABLES)),
      async (accepted) => finished(((await accepted.json()) as { url: string }).url),
      () => rendersInFlight(tmp),
    );
    await assertBurst(result);
    assert.is(fs.readdirSync(renders).filter((f) => f.endsWith('.mp4') && !f.startsWith('.')).length, 1 + BURST_MAX_WAITING);
  } finally {
    await app.stop();
  }
  await assertNothingLeft(burstMarker.entry, tmp);
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
