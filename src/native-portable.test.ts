import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PACKAGE_ROOT } from './package-info';

test('in a Debian 13 root filesystem without FFmpeg, the addon loads and encodes in every format', () => {
  const run = spawnSync('bash', [path.join(PACKAGE_ROOT, 'scripts', 'check-addon-portable.sh')], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  assert.is(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim().split('\n'), [
    'libavcodec 59.37.100',
    'mp4 h264 yuv420p 3',
    'webm vp9 yuv420p 3',
    'mov prores yuva444p12le 3',
    'hdr-pq hevc yuv420p10le 3',
    'hdr-hlg hevc yuv420p10le 3',
    'gif GIF89a 3',
    'hls 1 3',
  ]);
});

test.run();
