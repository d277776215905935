import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export function frameCount(file: string): number {
  const out = execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', file], {
    encoding: 'utf8',
  });
  return Number(out.trim());
}

/** Width and height of the first video stream. */
export function frameSize(file: string): { width: number; height: number } {
  const out = execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', file], { encoding: 'utf8' });
  const [width, height] = out.trim().split(',').map(Number);
  return { width, height };
}

/**
 * Average PSNR (all planes, as ffmpeg's psnr filter reports it) of `file` against `reference`,
 * both converted to yuv444p first so chroma subsampling is compared too.
 */
export function psnr(file: string, reference: string): number {
  return parsePsnr(runPsnr(file, reference, 'yuv444p'));
}

/** A rectangle of the frame, px. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * PSNR of every frame of `file` against the same frame of `reference`, in order, up to the shorter
 * of the two (ffmpeg's psnr filter, all planes averaged; Infinity where the frames are identical).
 * With `alpha`, both are decoded with their alpha plane (libvpx for VP9 in webm) and compared premultiplied
 * in yuva444p, so the alpha plane counts and the colour under fully transparent pixels does not.
 * With `crop`, only that rectangle of each frame is compared.
 */
export function framePsnr(file: string, reference: string, opts: { alpha?: boolean; crop?: Rect } = {}): number[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-psnr-'));
  const stats = path.join(dir, 'stats.log');
  try {
    runPsnr(file, reference, opts.alpha ? 'yuva444p,premultiply=inplace=1' : 'yuv444p', { stats, alpha: opts.alpha, crop: opts.crop });
    return fs
      .readFileSync(stats, 'utf8')
      .split('\n')
      .filter((line) => line.includes('psnr_avg:'))
      .map((line) => {
        const value = /psnr_avg:(\S+)/.exec(line)![1];
        return value === 'inf' ? Infinity : Number(value);
      });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function runPsnr(file: string, reference: string, format: string, opts: { stats?: string; alpha?: boolean; crop?: Rect } = {}): string {
  // ffmpeg's own VP9 decoder drops the alpha plane; libvpx keeps it. Other codecs keep theirs.
  const decoder = (input: string) => (opts.alpha && input.endsWith('.webm') ? ['-c:v', 'libvpx-vp9'] : []);
  const filter = opts.stats === undefined ? 'psnr' : `psnr=shortest=1:stats_file=${opts.stats}`;
  const crop = opts.crop ? `crop=${opts.crop.width}:${opts.crop.height}:${opts.crop.x}:${opts.crop.y},` : '';
  // Frames are paired by their index, not their timestamps: a Matroska reference keeps times in
  // whole milliseconds (frame 2 at 30 fps is 67 ms), so paired by time every third frame of an
  // exactly timed MP4 (66.67 ms) would be compared with the reference's frame before it.
  const prepare = (input: string) => `[${input}:v]${crop}format=${format},settb=AVTB,setpts=N`;
  // ffmpeg prints the filter's summary on stderr.
  const run = spawnSync(
    'ffmpeg',
    ['-v', 'info', '-nostats', ...decoder(file), '-i', file, ...decoder(reference), '-i', reference, '-lavfi', `${prepare('0')}[a];${prepare('1')}[b];[a][b]${filter}`, '-f', 'null', '-'],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (run.status !== 0) throw new Error(`ffmpeg psnr of ${file} against ${reference} failed: ${run.stderr.slice(-500)}`);
  return run.stderr;
}

function parsePsnr(log: string): number {
  const m = /PSNR .*average:([0-9.]+|inf)/.exec(log);
  if (!m) throw new Error(`no PSNR in ffmpeg output: ${log.slice(-500)}`);
  return m[1] === 'inf' ? Infinity : Number(m[1]);
}
