// vidkit as a user gets it: the tarballs of `npm run pack`, installed with npm into an empty
// directory outside the repository. Dependencies come from the registry through npm's cache
// (scripts/test.sh keeps npm_config_cache pointing at the real one when it empties HOME).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FIXTURES, REPO_ROOT, tempDir } from './test-support/cli';
import { ffprobe } from './test-support/media';

const work = tempDir('vidkit-package-test-');
const tarballs = path.join(work, 'tarballs');
const { version } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
const vidkitTarball = path.join(tarballs, `vidkit-${version}.tgz`);
const nativeTarball = path.join(tarballs, `vidkit-native-linux-x64-gnu-${version}.tgz`);
const npmEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

function run(command: string, args: string[], cwd: string) {
  const r = spawnSync(command, args, { cwd, env: npmEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** An empty directory with the tarballs installed by npm. */
function install(name: string, args: string[]): string {
  const dir = path.join(work, name);
  fs.mkdirSync(dir);
  const r = run('npm', ['install', '--prefer-offline', ...args], dir);
  assert.is(r.status, 0, r.stderr);
  fs.cpSync(path.join(FIXTURES, 'static-card'), path.join(dir, 'static-card'), { recursive: true });
  return dir;
}

test('the pack script writes vidkit and its native package, holding only what runs and the licence', () => {
  const r = run(process.execPath, [path.join(REPO_ROOT, 'scripts', 'pack.mjs'), tarballs], REPO_ROOT);
  assert.is(r.status, 0, r.stderr);
  const files = run('tar', ['tzf', vidkitTarball], work).stdout.trim().split('\n');
  for (const runs of ['package/dist/index.js', 'package/dist/player/vidkit-player.d.ts', 'package/cloud/template.json', 'package/examples/ui-3d-reveal/index.html', 'package/LICENSE']) {
    assert.ok(files.includes(runs), `${runs} is packed`);
  }
  assert.equal(files.filter((f) => /^package\/(src|crates|benches|templates|npm|native)\//.test(f) || f.endsWith('.map')), []);
  const native = run('tar', ['tzf', nativeTarball], work).stdout.trim().split('\n');
  assert.ok(native.includes('package/vidkit.linux-x64-gnu.node'), native.join(' '));
  assert.ok(native.includes('package/LICENSE'), native.join(' '));
});

let app = '';

test('installed from the two tarballs: `npx vidkit --version` and `npx vidkit render`', () => {
  app = install('app', [vidkitTarball, nativeTarball]);
  const v = run('npx', ['--no-install', 'vidkit', '--version'], app);
  assert.is(v.stdout.trim(), version, v.stderr);
  const rendered = run('npx', ['--no-install', 'vidkit', 'render', 'static-card', '--output', 'out/card.mp4', '--workers', '1'], app);
  assert.is(rendered.status, 0, rendered.stderr);
  assert.is(ffprobe(path.join(app, 'out', 'card.mp4')).streams[0].nb_read_frames, '30');
});

test('the root export renders as the CLI does, names a bad option as the caller wrote it, and stops on abort', () => {
  fs.writeFileSync(
    path.join(app, 'api.mjs'),
    `import { render } from 'vidkit';
const bad = await render({ projectDir: 'static-card', quality: 'ultra' }).catch((e) => [e.exitCode, e.message]);
const result = await render({ projectDir: 'static-card', output: 'out/api.mp4', workers: 1, quality: 'draft' });
const stop = new AbortController();
let frames = 0;
const onFrame = () => ++frames === 5 && stop.abort();
const aborted = await render({ projectDir: 'static-card', output: 'out/aborted.mp4', workers: 1, signal: stop.signal, onFrame }).catch((e) => [e.exitCode, e.message]);
console.log(JSON.stringify({ bad, aborted, frames: result.frames, output: result.output }));
`,
  );
  const r = run(process.execPath, ['api.mjs'], app);
  assert.is(r.status, 0, r.stderr);
  const { bad, aborted, frames, output } = JSON.parse(r.stdout);
  assert.equal(bad, [2, 'options.quality must be one of draft, standard, high, got "ultra"']);
  assert.equal(aborted, [130, 'render interrupted']);
  assert.not.ok(fs.existsSync(path.join(app, 'out', 'aborted.mp4')));
  assert.is(output, path.join(fs.realpathSync(app), 'out', 'api.mp4'));
  assert.is(frames, 30);
  assert.is(ffprobe(output).streams[0].nb_read_frames, '30');
});

test('an ESM and a CJS script import vidkit and vidkit/cloud-sdk and plan a render offline', () => {
  // The site, the chunk plan (native) and the stack template (cloud/ in the package).
  const body = `const site = prepareSite('static-card');
const plan = validateConfig({ siteHandle: site, bucketName: 'b', outputKey: 'r/card.mp4', config: { chunkSize: 10 } });
console.log(JSON.stringify([typeof render, plan.chunks, 'RenderStateMachine' in stackTemplate().Resources]));`;
  fs.writeFileSync(path.join(app, 'esm.mjs'), `import { render } from 'vidkit';\nimport { prepareSite, stackTemplate, validateConfig } from 'vidkit/cloud-sdk';\n${body}\n`);
  fs.writeFileSync(path.join(app, 'cjs.cjs'), `const { render } = require('vidkit');\nconst { prepareSite, stackTemplate, validateConfig } = require('vidkit/cloud-sdk');\n${body}\n`);
  for (const script of ['esm.mjs', 'cjs.cjs']) {
    const r = run(process.execPath, [script], app);
    assert.is(r.status, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout), ['function', 3, true], script);
  }
});

test('tsc --strict type-checks a file using vidkit, vidkit/cloud-sdk and vidkit/player', () => {
  // With `any` types the expected error would not occur, and the unused directive fails the check.
  const source = `import { render, RenderOptions, RenderResult, VidkitError } from 'vidkit';
import { prepareSite, validateConfig } from 'vidkit/cloud-sdk';
import type { VidkitPlayer } from 'vidkit/player';
const options: RenderOptions = { projectDir: 'static-card', quality: 'draft', workers: 1, variables: { title: 'x' } };
export const frames: Promise<number> = render(options).then((r: RenderResult) => r.frames);
// @ts-expect-error quality is draft, standard or high
render({ projectDir: 'static-card', quality: 'ultra' });
export const chunks: number = validateConfig({ siteHandle: prepareSite('static-card'), outputKey: 'r/card.mp4' }).chunks;
const player: VidkitPlayer | null = document.querySelector('vidkit-player');
export const seeked: Promise<void> | undefined = player?.seek(1);
export const code: number = new VidkitError('x').exitCode;
`;
  for (const file of ['types.mts', 'types.cts', 'types-node10.ts']) fs.writeFileSync(path.join(app, file), source);
  const tsc = [path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--strict', '--noEmit', '--target', 'es2022'];
  const nodeTypes = ['--typeRoots', path.join(REPO_ROOT, 'node_modules', '@types'), '--types', 'node'];
  // Through `exports` (import and require conditions), then through `typesVersions` for the older resolution.
  for (const args of [['--module', 'nodenext', 'types.mts', 'types.cts'], ['--module', 'commonjs', 'types-node10.ts']]) {
    const r = run(process.execPath, [...tsc, ...nodeTypes, ...args], app);
    assert.is(r.status, 0, `tsc ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  }
});

test('installed without the native package: a render exits 3 naming the package to install', () => {
  const app = install('no-native', ['--omit=optional', vidkitTarball]);
  assert.not.ok(fs.existsSync(path.join(app, 'node_modules', '@vidkit')));
  const r = run('npx', ['--no-install', 'vidkit', 'render', 'static-card', '--output', 'out/card.mp4', '--workers', '1'], app);
  assert.is(r.status, 3, r.stderr);
  assert.ok(r.stderr.includes(`npm install @vidkit/native-linux-x64-gnu@${version}`), r.stderr);
  // An installed vidkit has no sources to build from.
  assert.not.match(r.stderr, /build:native/);
  assert.not.ok(fs.existsSync(path.join(app, 'out', 'card.mp4')));
});

test.after(() => fs.rmSync(work, { recursive: true, force: true }));

test.run();
