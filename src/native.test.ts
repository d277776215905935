// tier: unit
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VidkitError, errorCode, errorMessage } from './errors';
import { loadFirst, loadNative, missingAddonHint, nativePackage } from './native';
import { NATIVE_PACKAGES, PACKAGE_ROOT, VERSION } from './package-info';
import { tempDir } from './test-support/cli';

test('loads the local build when no platform package is installed', () => {
  const native = loadNative();
  assert.match(native.nativeInfo().libavcodec, /^\d+\.\d+/);
  assert.equal(
    native.planChunks({ totalFrames: 150 }).map((c) => [c.startFrame, c.endFrame]),
    [[0, 150]],
  );
  assert.is(native.planChunks({ totalFrames: 1800 }).length, 8);
});

test('a native failure carries its code: a file that is no media rejects with VIDKIT_DECODE_FAILED', async () => {
  const file = path.join(tempDir('vidkit-native-code-'), 'noise.mp4');
  fs.writeFileSync(file, Buffer.alloc(4096, 0x5a));
  try {
    await loadNative().probe(file);
    assert.unreachable('probed a file of noise');
  } catch (err) {
    assert.is(errorCode(err), 'VIDKIT_DECODE_FAILED', errorMessage(err));
    assert.ok(errorMessage(err).startsWith(`${file}: cannot open it as a media file`), errorMessage(err));
  }
});

test('a native failure carries its code: bad options throw VIDKIT_BAD_INPUT', () => {
  try {
    loadNative().planChunks({ totalFrames: 2.5 });
    assert.unreachable('planned 2.5 frames');
  } catch (err) {
    assert.is(errorCode(err), 'VIDKIT_BAD_INPUT');
    assert.is(errorMessage(err), 'totalFrames must be a whole number from 0 to 4294967295, got 2.5');
  }
});

test('a native write to a full disk rejects with VIDKIT_DISK_FULL', () => {
  const dir = tempDir('vidkit-native-full-');
  const segment = path.join(dir, 'segment.mp4');
  const made = spawnSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30', '-t', '2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', segment]);
  assert.is(made.status, 0, String(made.stderr));
  assert.ok(fs.statSync(segment).size > 64 * 1024, 'the segment is larger than the tmpfs');
  // concatSegments into a real 16 KiB tmpfs, mounted in a mount namespace of its own (unshare).
  const full = path.join(dir, 'full');
  fs.mkdirSync(full);
  const addon = path.join(PACKAGE_ROOT, 'native', `vidkit.${nativePackage()?.replace('@vidkit/native-', '')}.node`);
  const script = `require(${JSON.stringify(addon)}).concatSegments([process.argv[1]], process.argv[2] + '/out.mp4')
    .then(() => console.log('{"code":"none"}'), (e) => console.log(JSON.stringify({ code: e.code, message: e.message })))`;
  const run = spawnSync(
    'unshare',
    ['--map-root-user', '--mount', 'sh', '-c', 'mount -t tmpfs -o size=16k tmpfs "$1" && exec "$2" -e "$3" "$4" "$1"', 'sh', full, process.execPath, script, segment],
    { encoding: 'utf8', timeout: 60_000 },
  );
  assert.is(run.status, 0, run.stderr);
  const outcome = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { code: string; message: string };
  assert.is(outcome.code, 'VIDKIT_DISK_FULL', outcome.message);
  assert.match(outcome.message, /No space left on device/);
});

test('with neither a package nor a build: one error naming both, the package to install and the build', () => {
  const missing = path.join(PACKAGE_ROOT, 'native', 'vidkit.nowhere.node');
  try {
    loadFirst(['@vidkit/native-nowhere', missing], missingAddonHint('@vidkit/native-nowhere', PACKAGE_ROOT, { '@vidkit/native-nowhere': '9.8.7' }));
    assert.unreachable('loaded something');
  } catch (err) {
    assert.instance(err, VidkitError);
    const e = err as VidkitError;
    assert.is(e.exitCode, 3);
    assert.not.match(e.message, /\n/);
    assert.ok(e.message.includes('@vidkit/native-nowhere: not found'), e.message);
    assert.ok(e.message.includes(`${missing}: not found`), e.message);
    assert.ok(e.message.includes('`npm install @vidkit/native-nowhere@9.8.7`'), e.message);
    assert.match(e.message, /In this source checkout, `npm run build:native` builds it/);
  }
});

test('outside a source checkout the hint names only the package, at the version package.json depends on', () => {
  const installed = tempDir('vidkit-native-test-');
  const hint = missingAddonHint('@vidkit/native-linux-x64-gnu', installed, NATIVE_PACKAGES);
  assert.ok(hint.includes(`\`npm install @vidkit/native-linux-x64-gnu@${VERSION}\``), hint);
  assert.not.match(hint, /build:native/);
  assert.is(missingAddonHint('@vidkit/native-linux-arm64-gnu', installed, {}), `No @vidkit/native-linux-arm64-gnu is published for vidkit ${VERSION}.`);
  fs.rmSync(installed, { recursive: true });
});

test.run();
