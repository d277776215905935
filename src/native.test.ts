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
import { QUALITY_SETTINGS } from './values/quality';
import { segmentEncoder } from './render/capture/chunk-renderer';

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

// A cell must encode to the same bytes in a batch row as in its lone render, whichever worker
// draws it. On a CPU with AVX-512, x264's AVX-512 code encoded these frames (a 1080x1920 page's
// hue-shifting test pattern, the shape of the batch bench's a-roll, as JPEGs like Chromium's) 2 or
// 3 different ways in 6 encoders of one process; on a CPU without AVX-512 this holds either way.
test('every encoder of a process turns the same frames into the same bytes (standard quality, a page with video)', async () => {
  const dir = tempDir('vidkit-native-same-bytes-');
  const made = spawnSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=s=1080x1920:r=30:d=1.9,hue=H=2*PI*(t+5.7)/15', '-q:v', '2', '-start_number', '0', path.join(dir, '%04d.jpg')]);
  assert.is(made.status, 0, String(made.stderr));
  const standard = QUALITY_SETTINGS.standard;
  // The settings of a standard-quality render of a 1080x1920 page with a video.
  const settings = { format: 'mp4' as const, width: 1080, height: 1920, fps: { num: 30, den: 1 }, crf: standard.crf, preset: standard.preset, x264Params: standard.x264ParamsWithVideo, frameFormat: standard.frameFormat };
  const encodings: Buffer[] = [];
  for (let run = 0; run < 8; run++) {
    const output = path.join(dir, `run-${run}.mp4`);
    const encoder = segmentEncoder(settings, output);
    // Each frame read anew, as each screenshot arrives in a fresh buffer: what x264 read wrongly
    // lay in memory the process had used before.
    for (let i = 0; i < 57; i++) await encoder.push(fs.readFileSync(path.join(dir, `${String(i).padStart(4, '0')}.jpg`)));
    assert.is((await encoder.finish()).frames, 57);
    encodings.push(fs.readFileSync(output));
  }
  const differing = encodings.map((bytes, run) => (bytes.equals(encodings[0]) ? -1 : run)).filter((run) => run >= 0);
  assert.equal(differing, [], `encoders ${differing.join(', ')} of 8 wrote other bytes than the first from the same frames`);
});

test.run();
