// tier: unit
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ExitCode, VidkitError } from '../errors';
import { assertDistributedFormat, assertOutputExtension } from './formats';

function thrown(fn: () => void): VidkitError {
  try {
    fn();
  } catch (err) {
    assert.instance(err, VidkitError);
    return err as VidkitError;
  }
  throw new Error('expected a VidkitError');
}

test('the distributed path accepts the formats it joins by stream copy', () => {
  for (const format of ['mp4', 'webm', 'mov'] as const) assertDistributedFormat(format);
});

test('the distributed path refuses HDR with the error naming distributed mode, as bad input', () => {
  for (const format of ['hdr-pq', 'hdr-hlg'] as const) {
    const err = thrown(() => assertDistributedFormat(format));
    assert.is(err.exitCode, ExitCode.BadInput);
    assert.match(err.message, /HDR mp4 output format is rejected in distributed mode; it is supported in-process only/);
    assert.match(err.message, new RegExp(`format ${format}`));
  }
});

test('the distributed path refuses the local-only formats, naming the local command', () => {
  for (const format of ['gif', 'png-sequence', 'hls'] as const) {
    const err = thrown(() => assertDistributedFormat(format));
    assert.is(err.exitCode, ExitCode.BadInput);
    assert.is(err.message, `format ${format} is rendered on this machine only (vidkit render --format ${format}); the cloud renders mp4, webm, mov`);
  }
});

test('png-sequence and hls name a directory, not a media file', () => {
  assertOutputExtension('out/frames', 'png-sequence');
  assertOutputExtension('out/stream.v2', 'hls');
  const err = thrown(() => assertOutputExtension('out/stream.m3u8', 'hls'));
  assert.is(err.message, '--output out/stream.m3u8 names a .m3u8 file, but --format hls writes a directory: name a directory');
  assert.is(thrown(() => assertOutputExtension('clip.gif', 'png-sequence')).exitCode, ExitCode.BadInput);
});

test('the output extension must match the format', () => {
  assertOutputExtension('a/b.MOV', 'mov');
  assertOutputExtension('a/b.mp4', 'hdr-pq');
  const err = thrown(() => assertOutputExtension('clip.mp4', 'webm'));
  assert.is(err.message, '--output clip.mp4 does not match --format webm: name a .webm file');
  assert.is(err.exitCode, ExitCode.BadInput);
});

test.run();
