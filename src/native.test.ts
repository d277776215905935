import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VidkitError } from './errors';
import { loadFirst, loadNative, missingAddonHint } from './native';
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
