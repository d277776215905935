import { execFileSync } from 'node:child_process';

/** ffprobe's view of a file: the independent check every render test relies on. */
export interface FfprobeStream {
  codec_name: string;
  codec_type: string;
  profile?: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  nb_read_frames?: string;
  nb_frames?: string;
  r_frame_rate?: string;
  color_space?: string;
  color_primaries?: string;
  color_transfer?: string;
}

export function ffprobe(file: string): { streams: FfprobeStream[]; format: { duration: string; format_name: string } } {
  const out = execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-show_streams', '-show_format', '-of', 'json', file], {
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

/** Every frame of the file's video as 8-bit luma planes, width×height bytes each. */
export function decodeGray(file: string, width: number, height: number): Buffer[] {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'gray', '-'], {
    maxBuffer: 1024 * 1024 * 1024,
  });
  const size = width * height;
  const frames: Buffer[] = [];
  for (let off = 0; off + size <= raw.length; off += size) frames.push(raw.subarray(off, off + size));
  return frames;
}

/** One frame as packed RGB (BT.709 limited range interpreted, as players do). */
export function decodeRgbFrame(file: string, index: number, width: number, height: number): Buffer {
  const raw = execFileSync(
    'ffmpeg',
    ['-v', 'error', '-i', file, '-vf', `select=eq(n\\,${index})`, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  if (raw.length !== width * height * 3) throw new Error(`frame ${index} of ${file}: got ${raw.length} bytes`);
  return raw;
}

export function rgbAt(frame: Buffer, width: number, x: number, y: number): [number, number, number] {
  const i = (y * width + x) * 3;
  return [frame[i], frame[i + 1], frame[i + 2]];
}

/** x of the first bright pixel on row y of a 640-wide luma frame, or -1. */
export function leftEdge(frame: Buffer, y: number): number {
  for (let x = 0; x < 640; x++) if (frame[y * 640 + x] > 128) return x;
  return -1;
}

/** Reads the 12-bit block code that the frame-clock fixtures draw in `row`, from a luma frame scaled by `scale`. */
export function readBits(frame: Buffer, row: number, scale = 1): number {
  let v = 0;
  for (let b = 0; b < 12; b++) {
    const x = Math.round((20 + b * 50 + 20) * scale);
    const y = Math.round((20 + row * 70 + 20) * scale);
    if (frame[y * Math.round(640 * scale) + x] > 128) v |= 1 << b;
  }
  return v;
}

/** ffmpeg's psnr filter, frame by frame: the average over Y, U and V in dB (Infinity for identical frames). */
export function psnrPerFrame(file: string, reference: string): number[] {
  const out = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-i', reference, '-lavfi', 'psnr=stats_file=-', '-f', 'null', '-'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return out
    .split('\n')
    .filter((l) => l.startsWith('n:'))
    .map((l) => {
      const v = /psnr_avg:(\S+)/.exec(l)![1];
      return v === 'inf' ? Infinity : Number(v);
    });
}

/** An image file (PNG, JPEG) as packed RGB, decoded by ffmpeg. */
export function decodeImageRgb(file: string): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 256 * 1024 * 1024 });
}

/** Peak signal-to-noise ratio of two 8-bit buffers of equal length, in dB. */
export function psnr(a: Buffer, b: Buffer): number {
  if (a.length !== b.length) throw new Error(`psnr: ${a.length} bytes against ${b.length}`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] - b[i]) ** 2;
  const mse = sum / a.length;
  return mse === 0 ? Infinity : 10 * Math.log10((255 * 255) / mse);
}

/**
 * An image as a video frame shows it: through BT.709 limited-range 4:2:0 and back to RGB, so
 * that comparing it with a decoded frame measures what was drawn, not chroma subsampling.
 */
export function imageAsVideoRgb(file: string): Buffer {
  const vf = 'scale=out_color_matrix=bt709:out_range=tv,format=yuv420p,scale=in_color_matrix=bt709:in_range=tv,format=rgb24';
  return execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-vf', vf, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 256 * 1024 * 1024 });
}

/** Every frame as packed RGBA, width×height×4 bytes each; `decoder` picks e.g. libvpx-vp9, which keeps VP9's alpha. */
export function decodeRgba(file: string, width: number, height: number, decoder?: string): Buffer[] {
  const args = [...(decoder ? ['-c:v', decoder] : []), '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgba', '-'];
  const raw = execFileSync('ffmpeg', ['-v', 'error', ...args], { maxBuffer: 1024 * 1024 * 1024 });
  const size = width * height * 4;
  const frames: Buffer[] = [];
  for (let off = 0; off + size <= raw.length; off += size) frames.push(raw.subarray(off, off + size));
  return frames;
}
