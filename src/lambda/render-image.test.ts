// tier: cloud
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CreateFunctionCommand, InvokeCommand } from '@aws-sdk/client-lambda';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DOCKERFILE } from '../cli/docker';
import { VERSION } from '../package-info';
import { validateConfig } from '../sdk/render';
import { SiteHandle, deploySite } from '../sdk/site';
import { AwsEmulator, startAwsEmulator } from '../test-support/aws-emulator';
import { bootstrapZip, downloadObject, testAwsClients } from '../test-support/cloud-stack';
import { FIXTURES, REPO_ROOT, built, errorLines, tempDir, vidkit } from '../test-support/cli';
import { SCRIPT_SAMPLES } from '../fonts/script-samples';
import { decodeGray, psnrPerFrame, readBits } from '../test-support/media';
import { buildRootfs, imageConfig, inImage } from '../test-support/render-image';

/**
 * The render image, run without Docker: the root filesystem cloud/image/build-rootfs.sh assembles
 * from Debian 13 (its Node, its Chromium, the self-contained addon), configured as
 * cloud/image/Dockerfile says, under bubblewrap as an unprivileged user with a read-only root and
 * only /tmp writable, as Lambda runs it. S3 and Lambda are MiniStack on loopback. The first run on a
 * machine builds the Debian base (minutes); later runs reuse it from the cache the script names.
 */
const test = suite('the render image');
const BUCKET = 'vidkit-image-test';
let emu: AwsEmulator;
let workDir: string;
let rootfs: string;
let site: SiteHandle;

test.before(async () => {
  workDir = tempDir('vidkit-image-');
  // The image runs as an unprivileged user, which must reach the root filesystem in here.
  fs.chmodSync(workDir, 0o755);
  rootfs = path.join(workDir, 'rootfs');
  try {
    buildRootfs(rootfs);
  } catch (err) {
    // uvu reports a failed hook only as a suite of 0 passed: the reason goes to the log here.
    console.error(err);
    throw err;
  }
  emu = await startAwsEmulator();
  Object.assign(process.env, emu.env);
  await testAwsClients(emu).s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  site = await deploySite({ projectDir: path.join(FIXTURES, 'frame-clock'), bucketName: BUCKET });
});

test.after(async () => {
  await emu?.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

/**
 * MOCK: the Docker CLI (no Docker engine here), first on PATH: an engine without the image that
 * records under `log` the build and the run vidkit asks for.
 */
function mockDocker(log: string): NodeJS.ProcessEnv {
  const bin = path.join(workDir, 'bin');
  if (!fs.existsSync(bin)) {
    fs.mkdirSync(bin);
    fs.symlinkSync(path.join(FIXTURES, 'mock-docker.sh'), path.join(bin, 'docker'));
  }
  return { ...process.env, PATH: `${bin}:${process.env.PATH}`, MOCK_DOCKER_LOG: log };
}

function chunkEvent(index: number, startFrame: number, endFrame: number) {
  const plan = validateConfig({ siteHandle: site, bucketName: BUCKET, config: { maxParallelChunks: 3 }, outputKey: 'renders/clock.mp4' });
  return { version: plan.input.version, mode: 'chunk', render: plan.input.render, chunk: { index, startFrame, endFrame } };
}

/** Frame i of the video shows the frame-clock fixture's clock at `first + i`, for `count` frames. */
function assertClock(video: string, first: number, count: number): void {
  const frames = decodeGray(video, 640, 360);
  assert.is(frames.length, count);
  const wrong = frames.flatMap((f, i) => (readBits(f, 0) === first + i ? [] : [`frame ${i}: clock ${readBits(f, 0)}, want ${first + i}`]));
  assert.equal(wrong, []);
}

async function assertSegment(result: { frames: number; segmentKey: string }, first: number, count: number): Promise<void> {
  assert.is(result.frames, count);
  const segment = path.join(workDir, path.basename(result.segmentKey));
  await downloadObject(testAwsClients(emu), BUCKET, result.segmentKey, segment);
  assertClock(segment, first, count);
}

test('the chunk handler renders its frame range exactly inside the image', async () => {
  const fn = imageConfig('cloudfn');
  // The handler CMD names (`handler.handler`), called directly from the image's WORKDIR.
  const [moduleName, exportName] = fn.cmd[0].split('.');
  const invoke = `require('./${moduleName}.js').${exportName}(JSON.parse(process.argv[1])).then((r) => console.log(JSON.stringify(r)))`;
  const [command, ...args] = [...inImage(rootfs, fn, emu.env), '/usr/bin/node', '-e', invoke, JSON.stringify(chunkEvent(1, 50, 100))];
  const run = spawnSync(command, args, { encoding: 'utf8', timeout: 120_000 });
  assert.is(run.status, 0, `${run.stderr}\n${run.error ?? ''}`);
  await assertSegment(JSON.parse(run.stdout.trim().split('\n').pop()!), 50, 50);
});

test('the function image serves the handler through its ENTRYPOINT (aws-lambda-ric) over the Lambda Runtime API', async () => {
  const fn = imageConfig('cloudfn');
  const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;
  // MiniStack runs a provided.al2023 function's bootstrap on this machine; this one enters the image
  // with what Lambda hands a container: its AWS_* variables (Runtime API address, region,
  // credentials, the emulator's endpoint).
  const bootstrap = [
    '#!/bin/sh',
    'set --',
    'for name in $(env | sed -n "s/^\\(AWS_[A-Z0-9_]*\\)=.*/\\1/p"); do set -- "$@" --setenv "$name" "$(printenv "$name")"; done',
    `exec ${inImage(rootfs, fn).map(quote).join(' ')} "$@" ${[...fn.entrypoint, ...fn.cmd].map(quote).join(' ')}`,
    '',
  ].join('\n');
  const { lambda } = testAwsClients(emu);
  await lambda.send(
    new CreateFunctionCommand({
      FunctionName: 'vidkit-image-test',
      Runtime: 'provided.al2023',
      Handler: fn.cmd[0],
      Role: 'arn:aws:iam::000000000000:role/vidkit-image-test',
      Timeout: 120,
      MemorySize: 2048,
      Code: { ZipFile: bootstrapZip(workDir, bootstrap) },
    }),
  );
  const invoked = await lambda.send(new InvokeCommand({ FunctionName: 'vidkit-image-test', Payload: Buffer.from(JSON.stringify(chunkEvent(2, 100, 130))) }));
  const payload = Buffer.from(invoked.Payload ?? []).toString('utf8');
  assert.is(invoked.FunctionError, undefined, `${payload}\n${emu.log().slice(-4000)}`);
  await assertSegment(JSON.parse(payload), 100, 30);
});

test('the render image runs `vidkit render` through its ENTRYPOINT, as `render --docker` does', () => {
  const cli = imageConfig('render');
  const out = path.join(workDir, 'out');
  fs.mkdirSync(out);
  fs.chmodSync(out, 0o777);
  const binds: [string, string, boolean][] = [
    [path.join(FIXTURES, 'frame-clock'), '/tmp/project', false],
    [out, '/tmp/out', true],
  ];
  const [command, ...args] = [...inImage(rootfs, cli, {}, binds), ...cli.entrypoint, 'render', '/tmp/project', '--output', '/tmp/out/clock.mp4'];
  const run = spawnSync(command, args, { encoding: 'utf8', timeout: 120_000 });
  assert.is(run.status, 0, `${run.stderr}\n${run.error ?? ''}`);
  assertClock(path.join(out, 'clock.mp4'), 0, 150);
});

test('a text composition, with a name in each script of the fallback faces, draws the same pixels inside the image as on this machine: the bundled fonts, not the system\'s', () => {
  const project = path.join(workDir, 'text');
  fs.mkdirSync(project);
  fs.chmodSync(project, 0o755);
  fs.writeFileSync(
    path.join(project, 'index.html'),
    '<!doctype html><html><head><style>html,body{margin:0;background:#fff}p{margin:0 0 6px 8px;font-size:18px;color:#000}</style></head><body>' +
      '<div data-composition-id="text" data-width="640" data-height="480" data-duration="0.3" data-fps="10">' +
      '<p>Default sans 0123</p><p style="font-family: Helvetica, Arial">Helvetica Wag</p><p style="font-family: serif; font-weight: 700">Serif bold</p><p style="font-family: monospace">mono()</p>' +
      `<p>${SCRIPT_SAMPLES.map((s) => s.text).join(' ')}</p></div></body></html>`,
  );
  const out = path.join(workDir, 'text-out');
  fs.mkdirSync(out);
  fs.chmodSync(out, 0o777);
  const cli = imageConfig('render');
  const binds: [string, string, boolean][] = [
    [project, '/tmp/project', false],
    [out, '/tmp/out', true],
  ];
  const [command, ...args] = [...inImage(rootfs, cli, {}, binds), ...cli.entrypoint, 'render', '/tmp/project', '--output', '/tmp/out/text.mp4', '--quality', 'high'];
  const inside = spawnSync(command, args, { encoding: 'utf8', timeout: 120_000 });
  assert.is(inside.status, 0, `${inside.stderr}\n${inside.error ?? ''}`);
  assert.not.match(inside.stderr, /empty boxes/, 'every character has a face inside the image');
  const here = vidkit(['render', project, '--output', path.join(workDir, 'text-here.mp4'), '--quality', 'high']);
  assert.is(here.status, 0, here.stderr);
  assert.not.match(here.stderr, /empty boxes/, 'every character has a face here');
  const values = psnrPerFrame(path.join(out, 'text.mp4'), path.join(workDir, 'text-here.mp4'));
  assert.is(values.length, 3);
  values.forEach((db, i) => assert.ok(db >= 50, `frame ${i}: ${db.toFixed(1)} dB between the image's render and this machine's`));
});

test('render --docker builds the render target from the root filesystem, then runs the render in it', () => {
  const log = path.join(workDir, 'docker');
  const run = vidkit(['render', path.join(FIXTURES, 'frame-clock'), '--docker', '--output', path.join(workDir, 'docker-out', 'clock.mp4')], { env: mockDocker(log) });
  assert.is(run.status, 0, run.stderr);
  const build = fs.readFileSync(`${log}.args`, 'utf8').trim().split('\n');
  const context = build.pop()!;
  assert.equal(build, ['build', '--target', 'render', '-t', `vidkit-render:${VERSION}`, '-f', DOCKERFILE]);
  assert.not.ok(fs.existsSync(context), 'the build context (the root filesystem tarball) is removed');
  const files = new Set(fs.readFileSync(`${log}.rootfs`, 'utf8').split('\n'));
  for (const file of ['./usr/bin/node', './usr/bin/chromium-headless-shell', './app/dist/cli/main.js', './app/native/vidkit.linux-x64-gnu.node', './app/cloud/handler.js', './app/lambda-runtime/node_modules/.bin/aws-lambda-ric']) {
    assert.ok(files.has(file), `rootfs.tar lacks ${file}`);
  }
  const args = fs.readFileSync(`${log}.run-args`, 'utf8').trim().split('\n');
  assert.equal(args.slice(args.indexOf(`vidkit-render:${VERSION}`), args.indexOf('--output') + 2), [`vidkit-render:${VERSION}`, 'render', '/project', '--output', '/out/clock.mp4']);
});

test('render --docker from an installed vidkit, whose engine lacks the image: exit 3, naming what to do', () => {
  // An installed package: dist/ and package.json, no cloud/image/ to build the image from.
  const installed = path.join(workDir, 'installed');
  fs.mkdirSync(installed);
  fs.cpSync(built(), path.join(installed, 'dist'), { recursive: true });
  fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(installed, 'package.json'));
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(installed, 'node_modules'));
  const run = spawnSync(process.execPath, [path.join(installed, 'dist', 'cli', 'main.js'), 'render', path.join(FIXTURES, 'frame-clock'), '--docker'], {
    encoding: 'utf8',
    env: mockDocker(path.join(workDir, 'installed-docker')),
  });
  assert.is(run.status, 3, run.stderr);
  assert.equal(errorLines(run.stderr), [
    `vidkit: error: --docker: this Docker engine has no image vidkit-render:${VERSION}, and building it needs a vidkit checkout (cloud/image/build-rootfs.sh; docs/guide/cloud.md): build it there, or load it into this engine`,
  ]);
});

test.run();
