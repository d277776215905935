import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FIXTURES, errorLines, tempDir, vidkit } from '../../test-support/cli';
import { decodeRgba, ffprobe, transparentSquareProblems } from '../../test-support/media';

const out = tempDir('vidkit-formats-test-');
const W = 320;
const H = 180;

function render(format: string, file: string, workers = '2', extra: string[] = []) {
  const output = path.join(out, file);
  const run = vidkit(['render', path.join(FIXTURES, 'transparent-square'), '--format', format, '--output', output, '--workers', workers, ...extra]);
  return { output, run };
}

const alpha = suite('formats with alpha');

for (const [format, file, codec, pixFmt] of [
  ['webm', 'square.webm', 'vp9', 'yuv420p'],
  ['mov', 'square.mov', 'prores', 'yuva444p12le'],
] as const) {
  alpha(`${format}: two segments join by stream copy and decode with alpha 0 where the page is transparent`, () => {
    const { output, run } = render(format, file);
    assert.is(run.status, 0, run.stderr);
    const v = ffprobe(output).streams[0];
    assert.equal([v.codec_name, v.pix_fmt, v.nb_read_frames], [codec, pixFmt, '15']);
    const frames = decodeRgba(output, W, H, format === 'webm' ? 'libvpx-vp9' : undefined);
    assert.is(frames.length, 15);
    assert.equal([0, 7, 8, 14].flatMap((i) => transparentSquareProblems(frames[i], i)), []);
  });
}

const hdr = suite('HDR');

/** Mean 10-bit luma of a 4×4 block at (x, y) in frame `index`. */
function luma10(file: string, index: number, x: number, y: number): number {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'yuv420p10le', '-'], { maxBuffer: 64 << 20 });
  const frameBytes = W * H * 3; // 1.5 samples a pixel, 2 bytes a sample
  let sum = 0;
  for (let dy = 0; dy < 4; dy++) for (let dx = 0; dx < 4; dx++) sum += raw.readUInt16LE(index * frameBytes + ((y + dy) * W + x + dx) * 2);
  return sum / 16;
}

for (const [format, transfer, white] of [
  // SDR white at the reference white: 203 cd/m² is PQ signal 0.5806, HLG's is a 75% signal.
  ['hdr-pq', 'smpte2084', 64 + 876 * 0.5806],
  ['hdr-hlg', 'arib-std-b67', 64 + 876 * 0.75],
] as const) {
  hdr(`${format}: HEVC Main 10, BT.2020 ${transfer}, mastering metadata in every segment, white at the reference white`, () => {
    // 30 frames: two cells of 15, one segment each (render/plan/cell-grid.ts).
    const { output, run } = render(format, `square-${format}.mp4`, '2', ['--fps', '60']);
    assert.is(run.status, 0, run.stderr);
    const v = ffprobe(output).streams[0];
    assert.equal(
      [v.codec_name, v.profile, v.pix_fmt, v.color_space, v.color_primaries, v.color_transfer, v.nb_read_frames],
      ['hevc', 'Main 10', 'yuv420p10le', 'bt2020nc', 'bt2020', transfer, '30'],
    );
    const sideData = execFileSync(
      'ffprobe',
      ['-v', 'error', '-show_frames', '-show_entries', 'frame=key_frame:frame_side_data=side_data_type,max_luminance,max_content', '-of', 'json', output],
      { encoding: 'utf8' },
    );
    const keyFrames = (JSON.parse(sideData).frames as { key_frame: number; side_data_list?: Record<string, unknown>[] }[]).filter((f) => f.key_frame === 1);
    assert.is(keyFrames.length, 2, 'one IDR per segment');
    for (const f of keyFrames) {
      const types = (f.side_data_list ?? []).map((d) => d.side_data_type);
      assert.ok(types.includes('Mastering display metadata') && types.includes('Content light level metadata'), JSON.stringify(types));
    }
    // The page's default background is white here (no alpha in HDR formats).
    assert.ok(Math.abs(luma10(output, 0, 250, 150) - white) <= 3, `white luma ${luma10(output, 0, 250, 150)}, want ${white}`);
  });
}

const refused = suite('format errors');

refused('an output extension that disagrees with --format is one error line, exit 2, nothing written', () => {
  const { output, run } = render('webm', 'wrong.mp4');
  assert.is(run.status, 2);
  assert.equal(errorLines(run.stderr), [`vidkit: error: --output ${output} does not match --format webm: name a .webm file`]);
  assert.not.ok(fs.existsSync(output));
});

alpha.run();
hdr.run();
refused.run();
