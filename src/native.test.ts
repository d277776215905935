import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VidkitError } from './errors';
import { loadFirst, loadNative } from './native';
import { PACKAGE_ROOT } from './package-info';

test('loads the local build when no platform package is installed', () => {
  const native = loadNative();
  assert.match(native.nativeInfo().libavcodec, /^\d+\.\d+/);
  assert.equal(
    native.planChunks({ totalFrames: 150 }).map((c) => [c.startFrame, c.endFrame]),
    [[0, 150]],
  );
  assert.is(native.planChunks({ totalFrames: 1800 }).length, 8);
});

test('with neither a package nor a build: one error naming both and how to build', () => {
  const missing = path.join(PACKAGE_ROOT, 'native', 'vidkit.nowhere.node');
  try {
    loadFirst(['@vidkit/native-nowhere', missing]);
    assert.unreachable('loaded something');
  } catch (err) {
    assert.instance(err, VidkitError);
    const e = err as VidkitError;
    assert.is(e.exitCode, 3);
    assert.not.match(e.message, /\n/);
    assert.ok(e.message.includes('@vidkit/native-nowhere: not found'), e.message);
    assert.ok(e.message.includes(`${missing}: not found`), e.message);
    assert.match(e.message, /npm run build:native/);
  }
});

test.run();
