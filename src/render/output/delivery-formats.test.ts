import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FIXTURES, errorLines, tempDir, vidkit } from '../../test-support/cli';
import { TONE, decodePcm, decodeRgba, ffprobe, measureTone, toneProblems, transparentSquareProblems, writeToneProject } from '../../test-support/media';

const out = tempDir('vidkit-delivery-test-');
const SQUARE = path.join(FIXTURES, 'transparent-square');
const W = 320;
const H = 180;

function render(args: string[], project = SQUARE) {
  return vidkit(['render', project, '--workers', '2', ...args]);
}

/** The red box's left edge on row 80 of packed RGBA/RGB pixels (`channels` a pixel), or -1. */
function boxLeft(pixels: Buffer, channels: number): number {
  for (let x = 0; x < W; x++) {
    const i = (80 * W + x) * channels;
    if (pixels[i] > 200 && pixels[i + 1] < 60 && pixels[i + 2] < 60) return x;
  }
  return -1;
}

const sequence = suite('png-sequence');

sequence('two workers write one directory of RGBA frames, transparent where the page draws nothing', () => {
  const dir = path.join(out, 'square-frames');
  const r = render(['--format', 'png-sequence', '-o', dir, '--json']);
  assert.is(r.status, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.equal([result.output, result.frames, result.segments >= 2], [dir, 15, true]);
  const names = fs.readdirSync(dir).sort();
  assert.equal(names, Array.from({ length: 15 }, (_, i) => `frame_${String(i + 1).padStart(6, '0')}.png`));
  for (const [i, name] of names.entries()) {
    const v = ffprobe(path.join(dir, name)).streams[0];
    assert.equal([v.codec_name, v.width, v.height, v.pix_fmt], ['png', W, H, 'rgba'], name);
    assert.equal(transparentSquareProblems(decodeRgba(path.join(dir, name), W, H)[0], i), []);
  }
  assert.equal(fs.readdirSync(out).filter((n) => n.includes('partial')), []);
});

sequence('an earlier output is replaced; a directory holding anything else is refused before rendering (exit 2)', () => {
  const dir = path.join(out, 'square-frames');
  fs.writeFileSync(path.join(dir, 'frame_000099.png'), 'stale');
  assert.is(render(['--format', 'png-sequence', '-o', dir]).status, 0);
  assert.is(fs.readdirSync(dir).length, 15, 'the stale frame went with the earlier output');

  const mine = path.join(out, 'mine');
  fs.mkdirSync(mine);
  fs.writeFileSync(path.join(mine, 'notes.txt'), 'keep me');
  const refused = render(['--format', 'png-sequence', '-o', mine]);
  assert.is(refused.status, 2);
  assert.equal(errorLines(refused.stderr), [
    `vidkit: error: --output ${mine} holds notes.txt, which a png-sequence render does not write: choose another --output or empty the directory`,
  ]);
  assert.equal(fs.readdirSync(mine), ['notes.txt']);
});

const gif = suite('gif');

gif('one palette over both workers\' frames: 15 frames of 320x180 that decode to the moving box, looping as asked', () => {
  const file = path.join(out, 'square.gif');
  const r = render(['--format', 'gif', '-o', file, '--gif-loop', '3']);
  assert.is(r.status, 0, r.stderr);
  const v = ffprobe(file).streams[0];
  assert.equal([v.codec_name, v.width, v.height, v.nb_read_frames], ['gif', W, H, '15']);
  const frames = decodeRgba(file, W, H);
  assert.is(frames.length, 15);
  // The box slides 160 px over 30 frames from x=40; opaque white around it (gif has no alpha here).
  for (const i of [0, 7, 8, 14]) assert.ok(Math.abs(boxLeft(frames[i], 4) - (40 + Math.round((160 * i) / 30))) <= 1, `frame ${i}: box at ${boxLeft(frames[i], 4)}`);
  // The NETSCAPE2.0 application extension carries the loop count, little-endian.
  const bytes = fs.readFileSync(file);
  const netscape = bytes.indexOf('NETSCAPE2.0');
  assert.ok(netscape > 0, 'no loop extension');
  assert.is(bytes.readUInt16LE(netscape + 13), 3);
});

gif('--gif-loop is for gif only, and in range: exit 2', () => {
  const a = render(['--format', 'mp4', '--gif-loop', '1', '-o', path.join(out, 'x.mp4')]);
  assert.is(a.status, 2);
  assert.equal(errorLines(a.stderr), ['vidkit: error: --gif-loop applies to --format gif only, not mp4']);
  const b = render(['--format', 'gif', '--gif-loop', '70000', '-o', path.join(out, 'x.gif')]);
  assert.equal(errorLines(b.stderr), ['vidkit: error: --gif-loop must be a whole number from 0 to 65535, got "70000"']);
});

const hls = suite('hls');

hls('1 s segments of a 2.5 s render at 10 fps: playlists, three MPEG-TS segments each starting on a keyframe, 25 frames of 320x180', () => {
  // Two workers split the 25 frames near the middle, off the 10-frame segment grid.
  const project = path.join(out, 'square-long');
  fs.cpSync(SQUARE, project, { recursive: true });
  const page = path.join(project, 'index.html');
  fs.writeFileSync(page, fs.readFileSync(page, 'utf8').replace('data-duration="0.5" data-fps="30"', 'data-duration="2.5" data-fps="10"'));
  const dir = path.join(out, 'square-hls');
  const r = render(['--format', 'hls', '--hls-segment-seconds', '1', '-o', dir], project);
  assert.is(r.status, 0, r.stderr);
  assert.equal(fs.readdirSync(dir).sort(), ['master.m3u8', 'stream.m3u8', 'stream_00000.ts', 'stream_00001.ts', 'stream_00002.ts']);
  assert.match(fs.readFileSync(path.join(dir, 'master.m3u8'), 'utf8'), /#EXT-X-STREAM-INF:.*\nstream\.m3u8/);
  const playlist = fs.readFileSync(path.join(dir, 'stream.m3u8'), 'utf8');
  assert.match(playlist, /#EXT-X-PLAYLIST-TYPE:VOD/);
  assert.match(playlist, /#EXT-X-ENDLIST/);
  let frames = 0;
  for (const [i, name] of ['stream_00000.ts', 'stream_00001.ts', 'stream_00002.ts'].entries()) {
    const probed = execFileSync(
      'ffprobe',
      // Named as MPEG-TS: a few packets of a still picture are too few for ffprobe to guess it.
      ['-v', 'error', '-f', 'mpegts', '-select_streams', 'v', '-show_entries', 'frame=key_frame,width,height', '-of', 'json', path.join(dir, name)],
      { encoding: 'utf8' },
    );
    const list = JSON.parse(probed).frames as Array<{ key_frame: number; width: number; height: number }>;
    assert.is(list[0].key_frame, 1, `${name} starts on a keyframe`);
    assert.equal([list[0].width, list[0].height], [W, H]);
    assert.is(list.length, i < 2 ? 10 : 5, name);
    frames += list.length;
  }
  assert.is(frames, 25);
  // The whole stream, read through the playlist, is the 25 frames.
  assert.is(ffprobe(path.join(dir, 'stream.m3u8')).streams[0].nb_read_frames, '25');
});

hls('the soundtrack goes into the segments as AAC, heard as in mp4', () => {
  const project = path.join(out, 'tone');
  writeToneProject(project);
  const dir = path.join(out, 'tone-hls');
  const r = render(['--format', 'hls', '--hls-segment-seconds', '1', '-o', dir], project);
  assert.is(r.status, 0, r.stderr);
  const streams = ffprobe(path.join(dir, 'stream_00000.ts')).streams;
  assert.equal(streams.map((s) => s.codec_name).sort(), ['aac', 'h264']);
  // MPEG-TS has no edit list: the AAC encoder's 1024 priming samples are played, timed to start
  // that much before the first frame, and the last AAC frame plays whole.
  const start = (codec: string) => Number(streams.find((s) => s.codec_name === codec)!.start_time);
  const lead = Math.round((start('h264') - start('aac')) * TONE.rate);
  assert.is(lead, 1024);
  const pcm = decodePcm(path.join(dir, 'stream.m3u8'));
  assert.equal(toneProblems(measureTone(pcm.subarray(lead, lead + TONE.seconds * TONE.rate))), []);
});

sequence.run();
gif.run();
hls.run();
