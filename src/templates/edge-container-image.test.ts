import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FIXTURES, tempDir } from '../test-support/cli';
import { freePort } from '../test-support/ports';
import { inImage } from '../test-support/render-image';
import { buildImageRoot, dockerfileRecipe } from '../test-support/template-images';
import {
  ACCENT_VARIABLES,
  RunningServer,
  SCRIPT_NAMES_FIXTURE,
  SCRIPT_NAMES_VARIABLES,
  SMALL_RENDER,
  TEMPLATES,
  assertScriptNamesAsHere,
  assertSmallAccentRender,
  installFixtureComposition,
  post,
  startServer,
} from '../test-support/templates';

// The edge-container template as it deploys: `npm run deploy` with wrangler's image build going to
// a stand-in Docker CLI, then the RenderContainer image its container/Dockerfile describes, built
// without Docker from Debian's archive (test-support/template-images.ts; cached per machine, the
// first build takes minutes) and run under bubblewrap as an unprivileged user with a read-only root.
const APP = path.join(TEMPLATES, 'edge-container');
const test = suite('edge-container image');
const work = tempDir('vidkit-edge-image-');
const dockerLog = path.join(work, 'docker');
const compositions = path.join(APP, 'public', 'compositions');
let deploy: ReturnType<typeof spawnSync>;
let server: RunningServer | undefined;

test.before(() => {
  // The checkout is built (the suite's setup): VIDKIT_BUILT packs it without building it again.
  deploy = spawnSync('npm', ['run', '--silent', 'deploy', '--', '--dry-run', '--outdir', path.join(work, 'out')], {
    cwd: APP,
    // MOCK: the Docker CLI (no Docker engine here); it records the image build wrangler asks for.
    env: { ...process.env, VIDKIT_BUILT: '1', WRANGLER_SEND_METRICS: 'false', CI: '1', WRANGLER_DOCKER_BIN: path.join(FIXTURES, 'mock-docker.sh'), MOCK_DOCKER_LOG: dockerLog },
    encoding: 'utf8',
    timeout: 300_000,
  });
});

test.after(async () => {
  await server?.stop();
  fs.rmSync(path.join(compositions, `vidkit-test-${SCRIPT_NAMES_FIXTURE}`), { recursive: true, force: true });
  fs.rmSync(work, { recursive: true, force: true });
});

test('npm run deploy packs vidkit into the image\'s build context, and the recipe installs it from there, not from the registry', () => {
  assert.is(deploy.status, 0, `${deploy.stdout}\n${deploy.stderr}`);
  const context = fs.readFileSync(`${dockerLog}.context`, 'utf8').trim().split('\n');
  for (const file of ['container/vidkit-pack/vidkit.tgz', 'container/vidkit-pack/vidkit-native-linux-x64-gnu.tgz', 'container/server.mjs', 'public/compositions/ui-3d-reveal/index.html']) {
    assert.ok(context.includes(file), `${file} not in the build context`);
  }
  const packed = spawnSync('tar', ['-xzOf', path.join(APP, 'container', 'vidkit-pack', 'vidkit.tgz'), 'package/package.json'], { encoding: 'utf8' });
  assert.is(JSON.parse(packed.stdout).name, 'vidkit');
  const dockerfile = fs.readFileSync(`${dockerLog}.dockerfile`, 'utf8');
  assert.is(dockerfile, fs.readFileSync(path.join(APP, 'container', 'Dockerfile'), 'utf8'));
  assert.match(dockerfile, /^RUN npm install -g --no-audit --no-fund \/tmp\/vidkit-pack\/\*\.tgz/m);
  assert.not.match(dockerfile, /npm install[^\n]* vidkit\b/, 'a registry install of vidkit');
});

test('the RenderContainer image, built from its recipe, renders POST /render with the request\'s variables', async () => {
  assert.is(deploy.status, 0, 'the deploy failed: see the test above');
  const recipe = dockerfileRecipe('edge-container', path.join(APP, 'container', 'Dockerfile'), APP);
  let root: string;
  try {
    root = buildImageRoot(recipe);
  } catch (err) {
    // uvu reports a thrown error without its message body: the build log goes to the log here.
    console.error(err);
    throw err;
  }
  const port = await freePort();
  const [command, ...args] = [...inImage(root, recipe.config, { PORT: String(port), ...SMALL_RENDER }, recipe.files.map(([host, inside]) => [host, inside, false])), ...recipe.config.cmd];
  server = await startServer(command, args, { cwd: '/', env: {}, port, readyPath: '/health' });
  // What the Worker sends for POST /api/render: the body, and the composition in a header.
  const res = await post(`${server.url}/render`, JSON.stringify(ACCENT_VARIABLES), { 'x-composition-dir': 'compositions/ui-3d-reveal' });
  assert.is(res.status, 200, `${await res.clone().text()}\n${server.output()}`);
  assertSmallAccentRender(new Uint8Array(await res.arrayBuffer()));
});

test('the image draws a name in each script as `vidkit render` does here, and warns of no character without a font', async () => {
  assert.ok(server, 'the image\'s server did not start: see the test above');
  // Its compositions are bound into the image as it runs (COPY after the last RUN): no layer changes.
  const dir = `compositions/${installFixtureComposition(SCRIPT_NAMES_FIXTURE, compositions)}`;
  const res = await post(`${server!.url}/render`, JSON.stringify(SCRIPT_NAMES_VARIABLES), { 'x-composition-dir': dir });
  assert.is(res.status, 200, `${await res.clone().text()}\n${server!.output()}`);
  await assertScriptNamesAsHere(new Uint8Array(await res.arrayBuffer()), server!.output());
});

test.run();
