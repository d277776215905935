import { spawnSync } from 'node:child_process';

const RATE = 48_000;
/**
 * Quieter than this counts as silence: level differences below it are not measured. A sound cut
 * mid-waveform leaves a few milliseconds of codec ringing after the cut, whose 50 ms window lands
 * between -80 and -55 dBFS depending on the encoder's rounding; a sound missing or added is far
 * above this.
 */
export const SILENCE_DB = -50;
/** The length of the windows {@link audioLevels} measures by default, seconds. */
export const LEVEL_WINDOW_SECONDS = 0.05;

/**
 * The loudness of a file's first audio stream over time: RMS in dBFS of each `windowSeconds`
 * window of its mono mix (at least {@link SILENCE_DB}), for `seconds` seconds. A file without
 * audio is silence throughout.
 */
export function audioLevels(file: string, seconds: number, windowSeconds = LEVEL_WINDOW_SECONDS): number[] {
  const run = spawnSync('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:a:0?', '-ac', '1', '-ar', String(RATE), '-f', 'f32le', '-'], { maxBuffer: 512 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`ffmpeg could not decode the audio of ${file}: ${run.stderr.toString().slice(-500)}`);
  const pcm = run.stdout;
  const samples = new Float32Array(pcm.buffer, pcm.byteOffset, Math.floor(pcm.byteLength / 4));
  const perWindow = Math.round(RATE * windowSeconds);
  const windows = Math.round(seconds / windowSeconds);
  const levels: number[] = [];
  for (let w = 0; w < windows; w++) {
    let sum = 0;
    for (let i = w * perWindow; i < (w + 1) * perWindow; i++) {
      const s = i < samples.length ? samples[i] : 0;
      sum += s * s;
    }
    const rms = Math.sqrt(sum / perWindow);
    levels.push(Math.max(SILENCE_DB, rms > 0 ? 20 * Math.log10(rms) : SILENCE_DB));
  }
  return levels;
}

/** The largest difference in dB between two level curves of the same length. */
export function maxLevelDifference(a: number[], b: number[]): number {
  return a.reduce((max, level, i) => Math.max(max, Math.abs(level - b[i])), 0);
}

/**
 * Integrated loudness of a file's first audio stream, LUFS (EBU R 128, ffmpeg's ebur128 filter);
 * null for a file without audio or with nothing above the gate.
 */
export function integratedLoudness(file: string): number | null {
  const run = spawnSync('ffmpeg', ['-hide_banner', '-nostats', '-i', file, '-map', '0:a:0?', '-af', 'ebur128', '-f', 'null', '-'], { maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`ffmpeg could not measure the loudness of ${file}: ${run.stderr.toString().slice(-500)}`);
  // The summary at the end: "Integrated loudness:\n    I:         -14.3 LUFS".
  const summary = /Integrated loudness:\s*I:\s*(-?[\d.]+|-inf) LUFS/.exec(run.stderr.toString());
  if (!summary || summary[1] === '-inf') return null;
  const lufs = Number(summary[1]);
  return lufs <= -70 ? null : lufs;
}
