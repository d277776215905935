import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FIXTURES, built, tempDir } from '../test-support/cli';
import { freePort } from '../test-support/ports';
import { inImage } from '../test-support/render-image';
import { ImageRecipe, buildImageRoot } from '../test-support/template-images';
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

// The serverless-container template as it deploys: deploy.sh with the Modal CLI replaced by a
// stand-in, then the image app.py builds (vidkit_web/image_recipe.py), built without Docker or an
// account from Debian's archive (test-support/template-images.ts; cached per machine, the first
// build takes minutes) and run under bubblewrap as an unprivileged user with a read-only root: the
// app with its local adapters, whose renders go to the same `vidkit render-server` the render
// function keeps, started from the image's vidkit.
const APP = path.join(TEMPLATES, 'serverless-container');
const test = suite('serverless-container image');
const work = tempDir('vidkit-modal-image-');
const modalLog = path.join(work, 'modal');
const compositions = path.join(APP, 'compositions');
const namesComposition = `vidkit-test-${SCRIPT_NAMES_FIXTURE}`;
let deploy: ReturnType<typeof spawnSync>;
let server: RunningServer | undefined;
/** The image built by the render test, and how to start its app. */
let app: ((env: Record<string, string>) => Promise<RunningServer>) | undefined;

interface Recipe {
  BASE_IMAGE: string;
  PYTHON_VERSION: string;
  APT_PACKAGES: string[];
  VIDKIT_PACK_DIR: string;
  VIDKIT_PACK_IN_IMAGE: string;
  INSTALL_VIDKIT: string;
  ENV: Record<string, string>;
  REMOTE_ROOT: string;
}

test.before(() => {
  // The checkout is built (the suite's setup): VIDKIT_BUILT packs it without building it again.
  deploy = spawnSync(path.join(APP, 'deploy.sh'), [], {
    // MOCK: the Modal CLI (no account here); it records what `modal deploy app.py` would build from.
    env: { ...process.env, VIDKIT_BUILT: '1', MODAL: path.join(FIXTURES, 'mock-modal.sh'), MOCK_MODAL_LOG: modalLog, MOCK_MODAL_PYTHON: path.join(APP, '.venv', 'bin', 'python') },
    encoding: 'utf8',
    timeout: 300_000,
  });
});

test.after(async () => {
  await server?.stop();
  fs.rmSync(path.join(compositions, namesComposition), { recursive: true, force: true });
  fs.rmSync(path.join(compositions, `${namesComposition}.request.schema.json`), { force: true });
  fs.rmSync(work, { recursive: true, force: true });
});

const recipe = (): Recipe => JSON.parse(fs.readFileSync(`${modalLog}.recipe`, 'utf8'));

test('deploy.sh packs vidkit into the image\'s build context, with the request contracts, and the recipe installs it from there, not from the registry', () => {
  assert.is(deploy.status, 0, `${deploy.stdout}\n${deploy.stderr}`);
  assert.equal(fs.readFileSync(`${modalLog}.args`, 'utf8').trim().split('\n'), ['deploy', 'app.py']);
  const context = fs.readFileSync(`${modalLog}.context`, 'utf8').trim().split('\n');
  for (const file of ['vidkit-pack/vidkit.tgz', 'vidkit-pack/vidkit-native-linux-x64-gnu.tgz', 'compositions/ui-3d-reveal/index.html', 'compositions/ui-3d-reveal.request.schema.json', 'static/vidkit-player.js']) {
    assert.ok(context.includes(file), `${file} not in the build context`);
  }
  const r = recipe();
  assert.is(r.VIDKIT_PACK_DIR, 'vidkit-pack');
  assert.is(r.INSTALL_VIDKIT, `npm install -g --no-audit --no-fund ${r.VIDKIT_PACK_IN_IMAGE}/*.tgz && rm -rf ${r.VIDKIT_PACK_IN_IMAGE} /root/.npm`);
  const appSource = fs.readFileSync(path.join(APP, 'app.py'), 'utf8') + fs.readFileSync(path.join(APP, 'vidkit_web', 'image_recipe.py'), 'utf8');
  assert.not.match(appSource, /npm install[^\n]* vidkit\b/, 'a registry install of vidkit');
});

test('the render function\'s image, built from its recipe, renders POST /api/render with the request\'s variables', async () => {
  assert.is(deploy.status, 0, 'the deploy failed: see the test above');
  const r = recipe();
  const suite = /^debian:([a-z]+)-slim$/.exec(r.BASE_IMAGE)?.[1];
  assert.ok(suite, `BASE_IMAGE ${r.BASE_IMAGE} is not a debian:<suite>-slim image`);
  const python = '/usr/local/python';
  const image: ImageRecipe = {
    name: 'serverless-container',
    suite: suite!,
    steps: [
      { apt: r.APT_PACKAGES },
      // add_python's stand-in: Debian's Python (Modal installs a standalone CPython of PYTHON_VERSION).
      { apt: ['python3', 'python3-venv'] },
      { copy: path.join(APP, 'requirements.txt'), to: '/tmp/requirements.txt' },
      { run: `python3 -m venv ${python} && ${python}/bin/pip install --quiet --no-cache-dir -r /tmp/requirements.txt && rm /tmp/requirements.txt`, cwd: '/', env: {} },
      { copy: path.join(APP, r.VIDKIT_PACK_DIR), to: r.VIDKIT_PACK_IN_IMAGE },
      { run: r.INSTALL_VIDKIT, cwd: '/', env: {} },
    ],
    config: { env: { ...r.ENV, PATH: `${python}/bin:/usr/local/bin:/usr/bin:/bin`, PYTHONDONTWRITEBYTECODE: '1' }, workdir: r.REMOTE_ROOT, entrypoint: [], cmd: [] },
    // What add_local_dir and add_local_python_source put in the image.
    files: ['compositions', 'static', 'vidkit_web'].map((d) => [path.join(APP, d), `${r.REMOTE_ROOT}/${d}`]),
  };
  let root: string;
  try {
    root = buildImageRoot(image);
  } catch (err) {
    // uvu reports a thrown error without its message body: the build log goes to the log here.
    console.error(err);
    throw err;
  }
  const binds = image.files.map(([host, inside]): [string, string, boolean] => [host, inside, false]);
  app = async (env) => {
    const port = await freePort();
    const [command, ...args] = [...inImage(root, image.config, { ...SMALL_RENDER, VIDKIT_LOCAL_STORE_DIR: '/tmp/renders', ...env }, binds), 'python', '-m', 'vidkit_web.local', '--port', String(port)];
    return startServer(command, args, { cwd: '/', env: {}, port });
  };
  server = await app({ PREVIEW_COMPOSITION: 'ui-3d-reveal' });
  assertSmallAccentRender(await renderToEnd(server, JSON.stringify(ACCENT_VARIABLES)));
});

test('the image draws a name in each script as `vidkit render` does here, and warns of no character without a font', async () => {
  assert.ok(app, 'the image was not built: see the test above');
  // Its compositions are bound into the image as it runs (add_local_dir): no layer changes. The
  // app renders one composition; its request contract is written beside it, as deploy.sh does.
  installFixtureComposition(SCRIPT_NAMES_FIXTURE, compositions);
  const contract = spawnSync(process.execPath, [built('template-assets.js'), 'static/vidkit-player.js', 'compositions'], { cwd: APP, encoding: 'utf8' });
  assert.is(contract.status, 0, contract.stderr);
  await server?.stop();
  server = await app!({ PREVIEW_COMPOSITION: namesComposition });
  await assertScriptNamesAsHere(await renderToEnd(server, JSON.stringify(SCRIPT_NAMES_VARIABLES)), server.output());
});

/** POSTs a render to the app and polls it to its end: the MP4's bytes. */
async function renderToEnd(app: RunningServer, body: string): Promise<Uint8Array> {
  const started = await post(`${app.url}/api/render`, body);
  assert.is(started.status, 202, await started.clone().text());
  const poll = ((await started.json()) as { url: string }).url;
  let res = await fetch(poll);
  for (const deadline = Date.now() + 180_000; res.status === 202 && Date.now() < deadline; res = await fetch(poll)) {
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.is(res.status, 200, `${await res.clone().text()}\n${app.output()}`);
  return new Uint8Array(await res.arrayBuffer());
}

test.run();
