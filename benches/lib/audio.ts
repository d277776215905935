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
  const samples = monoSamples(file);
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

/** The mono mix of a file's first audio stream at 48 kHz; empty for a file without audio. */
function monoSamples(file: string): Float32Array {
  // ffmpeg fails on a file with no audio stream to map; that is silence, not an error.
  const probe = spawnSync('ffprobe', ['-v', 'error', '-select_streams', 'a', '-show_entries', 'stream=index', '-of', 'csv=p=0', file], { encoding: 'utf8' });
  if (probe.status !== 0) throw new Error(`ffprobe could not read ${file}: ${probe.stderr.slice(-500)}`);
  if (probe.stdout.trim() === '') return new Float32Array(0);
  const run = spawnSync('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:a:0?', '-ac', '1', '-ar', String(RATE), '-f', 'f32le', '-'], { maxBuffer: 512 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`ffmpeg could not decode the audio of ${file}: ${run.stderr.toString().slice(-500)}`);
  const pcm = run.stdout;
  return new Float32Array(pcm.buffer, pcm.byteOffset, Math.floor(pcm.byteLength / 4));
}

/**
 * The loudness envelope of a file's first audio stream: the linear RMS of its mono mix over
 * windows of `windowSeconds`, one every `hopSeconds` (HyperFrames' regression fixtures count
 * their allowed lag in hops of 64 ms over 128 ms windows). Empty for a file without audio.
 */
export function rmsEnvelope(file: string, windowSeconds = 0.128, hopSeconds = 0.064): number[] {
  const samples = monoSamples(file);
  const size = Math.round(RATE * windowSeconds);
  const hop = Math.round(RATE * hopSeconds);
  const envelope: number[] = [];
  for (let start = 0; start + size <= samples.length; start += hop) {
    let sum = 0;
    for (let i = start; i < start + size; i++) sum += samples[i] * samples[i];
    envelope.push(Math.sqrt(sum / size));
  }
  return envelope;
}

/** An envelope whose every window is quieter than this (linear RMS, about -90 dBFS) is silence. */
const ENVELOPE_SILENCE = 3e-5;

/**
 * How alike two loudness envelopes are: the highest Pearson correlation over the lags of up to
 * `maxLag` hops either way, and that lag (positive when `a` is late). Two silences are alike (1);
 * a silence against a sound is not (0). Overlaps of 32 hops or fewer are not compared: NaN when
 * no lag leaves more.
 */
export function envelopeCorrelation(a: number[], b: number[], maxLag: number): { correlation: number; lag: number } {
  const silent = (e: number[]) => e.every((v) => v <= ENVELOPE_SILENCE);
  if (silent(a) && silent(b)) return { correlation: 1, lag: 0 };
  if (silent(a) || silent(b)) return { correlation: 0, lag: 0 };
  let best = { correlation: NaN, lag: 0 };
  for (let lag = -maxLag; lag <= maxLag; lag++) {
    const [fromA, fromB] = lag >= 0 ? [lag, 0] : [0, -lag];
    const n = Math.min(a.length - fromA, b.length - fromB);
    if (n <= 32) continue;
    let meanA = 0;
    let meanB = 0;
    for (let i = 0; i < n; i++) {
      meanA += a[fromA + i];
      meanB += b[fromB + i];
    }
    meanA /= n;
    meanB /= n;
    let cross = 0;
    let varA = 0;
    let varB = 0;
    for (let i = 0; i < n; i++) {
      const da = a[fromA + i] - meanA;
      const db = b[fromB + i] - meanB;
      cross += da * db;
      varA += da * da;
      varB += db * db;
    }
    // A constant envelope (a steady tone) correlates with nothing; equal constants are alike.
    const correlation = varA === 0 || varB === 0 ? (Math.abs(meanA - meanB) <= ENVELOPE_SILENCE ? 1 : 0) : cross / Math.sqrt(varA * varB);
    if (Number.isNaN(best.correlation) || correlation > best.correlation) best = { correlation, lag };
  }
  return best;
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
