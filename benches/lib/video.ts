import { execFileSync, spawnSync } from 'node:child_process';

export function frameCount(file: string): number {
  const out = execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', file], {
    encoding: 'utf8',
  });
  return Number(out.trim());
}

/**
 * Average PSNR (all planes, as ffmpeg's psnr filter reports it) of `file` against `reference`,
 * both converted to yuv444p first so chroma subsampling is compared too.
 */
export function psnr(file: string, reference: string): number {
  // ffmpeg prints the filter's summary on stderr.
  const run = spawnSync(
    'ffmpeg',
    ['-v', 'info', '-nostats', '-i', file, '-i', reference, '-lavfi', '[0:v]format=yuv444p[a];[1:v]format=yuv444p[b];[a][b]psnr', '-f', 'null', '-'],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  return parsePsnr(run.stderr);
}

function parsePsnr(log: string): number {
  const m = /PSNR .*average:([0-9.]+|inf)/.exec(log);
  if (!m) throw new Error(`no PSNR in ffmpeg output: ${log.slice(-500)}`);
  return m[1] === 'inf' ? Infinity : Number(m[1]);
}
