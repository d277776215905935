import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../test-support/cli';
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

// The sandbox-platform template (Next.js) with its local adapters: the sandbox is a local vidkit
// process, the blob store a directory. The platform clients (sandbox, blob) cannot run here.
const APP = path.join(TEMPLATES, 'sandbox-platform');
const test = suite('sandbox-platform template');
const blobDir = tempDir('vidkit-blobs-');
const env = { NEXT_TELEMETRY_DISABLED: '1', VIDKIT_ADAPTERS: 'local', VIDKIT_CLI: LOCAL_VIDKIT_CLI, VIDKIT_LOCAL_STORE_DIR: blobDir, ...SMALL_RENDER };
let server: RunningServer;

test.before(async () => {
  // `next build` checks the Next.js config, routes and types; the build script also copies the player in.
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: APP, env: { ...process.env, ...env }, encoding: 'utf8' });
  assert.is(build.status, 0, `next build failed:\n${build.stdout}\n${build.stderr}`);
  const port = await freePort();
  server = await startServer(path.join(APP, 'node_modules', '.bin', 'next'), ['start', '-p', String(port), '-H', '127.0.0.1'], { cwd: APP, env, port });
});

test.after(async () => {
  await server?.stop();
});

test('GET / serves <vidkit-player> with the composition, and it draws a non-blank frame', async () => {
  const html = await (await fetch(server.url + '/')).text();
  assert.match(html, /<vidkit-player[^>]*src="compositions\/ui-3d-reveal\/index.html"[^>]*width="960"[^>]*height="540"/);
  const spread = await previewFrameSpread(server.url + '/');
  assert.ok(spread > 10, `screenshot luma spread ${spread.toFixed(1)}`);
});

test('POST /api/render stores an H.264 MP4 in the blob directory and returns its URL', async () => {
  const { status, json } = await postJson(server.url + '/api/render', JSON.stringify(ACCENT_VARIABLES));
  assert.is(status, 200, JSON.stringify(json) + server.output());
  const url = String(json.url);
  const stored = fs.readdirSync(blobDir).filter((f) => f.endsWith('.mp4'));
  assert.equal(stored, [path.basename(new URL(url).pathname)]);
  const res = await fetch(url);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'video/mp4');
  const bytes = new Uint8Array(await res.arrayBuffer());
  assert.equal(Buffer.from(bytes), fs.readFileSync(path.join(blobDir, stored[0])));
  assertSmallAccentRender(bytes);
});

test('malformed bodies get a 400 with a message', async () => {
  await assertRejectsMalformedBodies(server.url + '/api/render');
});

test.run();
