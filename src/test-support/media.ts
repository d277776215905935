import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

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
  start_time?: string;
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

/** The picture types (I, P, B) of the file's video frames in display order, as one string. */
export function pictureTypes(file: string): string {
  const out = execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'frame=pict_type', '-of', 'csv=p=0', file], {
    encoding: 'utf8',
  });
  return out.replace(/[^IPB]/g, '');
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

/** The MD5 of each decoded video frame (ffmpeg's framemd5), in order. */
export function frameHashes(file: string): string[] {
  const out = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:v', '-f', 'framemd5', '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return out
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split(',').pop()!.trim());
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

/**
 * A 2 s, 30 fps, 320×64 test pattern whose frame n shows n in binary: 8 blocks of 40 px, block b
 * white when bit b is set. VP9 for a .webm file, H.264 otherwise.
 */
export function writePatternVideo(file: string): void {
  const pattern = Array.from({ length: 8 }, (_, b) => `drawbox=x=${b * 40}:y=0:w=40:h=64:color=white:t=fill:enable='eq(mod(trunc(n/${1 << b}),2),1)'`).join(',');
  const codec = file.endsWith('.webm')
    ? ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-crf', '30', '-b:v', '0']
    : ['-c:v', 'libx264', '-preset', 'ultrafast'];
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=black:s=320x64:r=30:d=2', '-vf', `format=yuv420p,${pattern}`, ...codec, '-g', '30', file]);
}

/** The pattern frame number a 320-wide luma frame shows in the 64 rows from `top`; 0 where nothing shows. */
export function readPatternCode(frame: Buffer, top: number): number {
  let v = 0;
  for (let b = 0; b < 8; b++) if (frame[(top + 32) * 320 + b * 40 + 20] > 128) v |= 1 << b;
  return v;
}

/** x of the first pixel brighter than mid-grey on row y of a luma frame `width` wide, or -1. */
export function brightFrom(frame: Buffer, width: number, y: number): number {
  for (let x = 0; x < width; x++) if (frame[y * width + x] > 128) return x;
  return -1;
}

/**
 * Where decoded luma frame `i` (320×180) of the hf-timelines fixture is wrong: the root
 * timeline's bar, the nested composition's bar in its own time, and which clip shows. Empty
 * when right.
 */
export function hfTimelinesProblems(frame: Buffer, i: number): string[] {
  const problems: string[] = [];
  const bar = brightFrom(frame, 320, 20);
  if (Math.abs(bar - 4 * i) > 1) problems.push(`frame ${i}: root timeline bar at ${bar}, want ${4 * i}`);
  const nested = brightFrom(frame, 320, 80);
  const wantNested = i >= 15 && i < 45 ? 30 + 4 * (i - 15) : -1;
  if (wantNested === -1 ? nested !== -1 : Math.abs(nested - wantNested) > 1) problems.push(`frame ${i}: nested timeline bar at ${nested}, want ${wantNested}`);
  const shown = [40, 120, 200, 280].map((x) => frame[150 * 320 + x] > 128);
  const want = [0, 1, 2, 3].map((k) => k === Math.floor(i / 15));
  if (shown.join() !== want.join()) problems.push(`frame ${i}: clips shown ${shown}, want ${want}`);
  return problems;
}

/**
 * Where decoded RGBA frame `i` (320×180) of the hf-sub-scenes fixture is wrong: the scene's bar
 * in its host's time, the two card instances' colours, the page's own bar. Empty when right.
 */
export function hfSubScenesProblems(frame: Buffer, i: number): string[] {
  const problems: string[] = [];
  const at = (x: number, y: number) => [...frame.subarray((y * 320 + x) * 4, (y * 320 + x) * 4 + 3)];
  let bar = -1;
  for (let x = 0; x < 320 && bar < 0; x++) if (frame[(20 * 320 + x) * 4] > 128) bar = x;
  const want = i < 15 ? -1 : 8 * (i - 15);
  if (bar !== want) problems.push(`frame ${i}: scene bar at ${bar}, want ${want}`);
  const [red, blue] = [at(50, 120), at(210, 120)];
  if (!(red[0] > 200 && red[1] < 50 && red[2] < 50)) problems.push(`frame ${i}: first card ${red}, want red`);
  if (!(blue[0] < 50 && blue[1] < 50 && blue[2] > 200)) problems.push(`frame ${i}: second card ${blue}, want blue`);
  if (at(300, 160)[0] < 200) problems.push(`frame ${i}: the page's own .bar moved`);
  return problems;
}

/** The transparent-square fixture (320×180): a red 80×80 box from (40, 40) sliding 160 px a second, no page background. */
export const SQUARE = { width: 320, height: 180 };

/**
 * Where decoded RGBA frame `i` of the transparent-square fixture is wrong: the box opaque red,
 * alpha 0 in the corner and on either side of the box. Empty when right.
 */
export function transparentSquareProblems(frame: Buffer, i: number): string[] {
  const at = (x: number, y: number) => [...frame.subarray((y * SQUARE.width + x) * 4, (y * SQUARE.width + x) * 4 + 4)];
  const left = 40 + Math.round((160 * i) / 30);
  const problems: string[] = [];
  const inside = at(left + 40, 80);
  if (!(inside[3] === 255 && inside[0] > 245 && inside[1] < 10 && inside[2] < 10)) problems.push(`frame ${i} box ${inside}`);
  for (const [name, x, y] of [
    ['corner', 10, 10],
    ['left of the box', left - 10, 80],
    ['right of the box', left + 90, 80],
  ] as const) {
    const alpha = at(x, y)[3];
    if (alpha !== 0) problems.push(`frame ${i} ${name} alpha ${alpha}`);
  }
  return problems;
}

/**
 * The tone fixture: a 1 s, 1 kHz tone at amplitude 0.5 played at volume 0.5 from 0.25 s, and a
 * muted 3 kHz tone that must not be heard. 1.5 s at 30 fps in 3 chunks puts seams at 0.5 s and
 * 1.0 s, inside the tone.
 */
export const TONE = { rate: 48_000, start: 0.25, seconds: 1.5, amplitude: 0.25 };

/** Writes the tone fixture project (index.html, tone.wav, muted.wav) into `dir`. */
/** A `seconds` long 1 kHz tone at amplitude 0.5, 48 kHz mono WAV. */
export function writeTone(file: string, seconds: number): void {
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `sine=frequency=1000:sample_rate=${TONE.rate}:duration=${seconds}`, '-af', 'volume=4', file]);
}

export function writeToneProject(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html data-composition-variables='[]'><head><style>html,body{margin:0;background:#000}</style></head>
<body><div data-composition-id="tone" data-width="320" data-height="180" data-duration="${TONE.seconds}" data-fps="30">` +
      `<audio id="tone" src="tone.wav" data-start="${TONE.start}"></audio><audio src="muted.wav" muted></audio>
<script>document.getElementById('tone').volume = 0.5;</script></div></body></html>`,
  );
  const sine = (frequency: number, seconds: number, file: string) =>
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `sine=frequency=${frequency}:sample_rate=${TONE.rate}:duration=${seconds}`, '-af', 'volume=4', path.join(dir, file)]);
  sine(1000, 1, 'tone.wav');
  sine(3000, TONE.seconds, 'muted.wav');
}

/**
 * The file's left channel as 48 kHz float samples: what one speaker plays. A mono source is heard
 * at its full level on each side, as in HyperFrames (a downmix of both channels would add them).
 */
export function decodePcm(file: string): Float32Array {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:a', '-af', 'pan=mono|c0=FL', '-ar', String(TONE.rate), '-f', 'f32le', '-'], { maxBuffer: 64 << 20 });
  return new Float32Array(raw.buffer, raw.byteOffset, raw.length / 4);
}

export interface ToneMeasures {
  samples: number;
  /** First sample above a fifth of the amplitude. */
  onset: number;
  /** The shift within half a period that best matches the ideal tone, in samples. */
  phase: number;
  /** Worst deviation of any tone sample, seams included, from the ideal tone (full scale 1). */
  worstError: number;
  /** Peak level before and after the tone. */
  silencePeak: number;
}

/** What the decoded soundtrack of the tone fixture measures against the ideal tone. */
export function measureTone(pcm: Float32Array): ToneMeasures {
  const { rate, start, amplitude } = TONE;
  const ideal = (n: number, shift: number) => amplitude * Math.sin((2 * Math.PI * 1000 * (n - start * rate - shift)) / rate);
  const errorAt = (shift: number) => {
    let worst = 0;
    for (let n = start * rate + 100; n < (start + 1) * rate - 100; n++) worst = Math.max(worst, Math.abs(pcm[n] - ideal(n, shift)));
    return worst;
  };
  let phase = 0;
  for (let shift = -24; shift <= 24; shift++) if (errorAt(shift) < errorAt(phase)) phase = shift;
  let silencePeak = 0;
  for (const [from, to] of [
    [0, start * rate - 200],
    [(start + 1) * rate + 200, TONE.seconds * rate],
  ]) {
    for (let n = from; n < to; n++) silencePeak = Math.max(silencePeak, Math.abs(pcm[n]));
  }
  return { samples: pcm.length, onset: pcm.findIndex((v) => Math.abs(v) > amplitude / 5), phase, worstError: errorAt(phase), silencePeak };
}

/**
 * Where the tone fixture's soundtrack is wrong. The decoder may add the encoder's last partial
 * frame of padding (silence), never less; the onset within 1 ms (48 samples); every tone sample
 * within 2% of full scale of the ideal, so a gap, a repeated or dropped sample, a click or the
 * muted track would each show. Empty when right.
 */
export function toneProblems(m: ToneMeasures): string[] {
  const { rate, start, seconds } = TONE;
  const problems: string[] = [];
  if (!(m.samples >= seconds * rate && m.samples < seconds * rate + 1024)) problems.push(`decoded ${m.samples} samples`);
  if (Math.abs(m.onset - start * rate) > 48) problems.push(`tone starts at sample ${m.onset}, want ${start * rate}`);
  if (Math.abs(m.phase) > 1) problems.push(`tone phase off by ${m.phase} samples`);
  if (!(m.worstError < 0.02)) problems.push(`worst deviation from the ideal tone ${m.worstError}`);
  if (!(m.silencePeak < 0.01)) problems.push(`peak ${m.silencePeak} outside the tone`);
  return problems;
}

/** The strip a code video draws: 320x20, frame n showing n in binary, block b (40 px) white when bit b is set. */
export const CODE_STRIP = { width: 320, height: 20 };

/**
 * A code video (see {@link CODE_STRIP}) of `seconds` at ffmpeg rate `rate` (e.g. '30000/1001'), a
 * keyframe every second: VP9 for a .webm file, H.264 otherwise. A larger `size` keeps the strip
 * at its top left, on black.
 */
export function writeCodeVideo(file: string, rate: string, seconds: number, size = '320x20'): void {
  const blocks = Array.from({ length: 8 }, (_, b) => `drawbox=x=${b * 40}:y=0:w=40:h=20:color=white:t=fill:enable='eq(mod(trunc(n/${1 << b}),2),1)'`).join(',');
  const codec = file.endsWith('.webm')
    ? ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-crf', '30', '-b:v', '0']
    : ['-c:v', 'libx264', '-preset', 'ultrafast'];
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `color=c=black:s=${size}:r=${rate}:d=${seconds}`, '-vf', `format=yuv420p,${blocks}`, ...codec, '-g', String(Math.round(rate.split('/').map(Number).reduce((a, b) => a / b))), file]);
}

/** The code a 320-wide luma frame shows in the strip from row `top`; 0 where nothing shows. */
export function readCode(frame: Buffer, top: number): number {
  let v = 0;
  for (let b = 0; b < 8; b++) if (frame[(top + 10) * 320 + b * 40 + 20] > 128) v |= 1 << b;
  return v;
}

/**
 * The video-clock fixture (320x200, 2 s at 30 fps): ten code-video clips, one a row, each with the
 * source frame it must show at output frame i (HyperFrames' timing: a clip samples its source at
 * its own time on the render's frame grid, holds its last frame to the end of its window, is
 * hidden outside it, a looping clip repeats from its playback start). 0 where the row shows nothing.
 */
export const VIDEO_CLOCK_ROWS: Array<{ name: string; video: string; want: (i: number) => number }> = [
  { name: 'rate 1', video: '<video src="code30.mp4" data-start="0" muted></video>', want: (i) => i },
  { name: 'rate 0.5', video: '<video src="code30.mp4" data-start="0" data-playback-rate="0.5" muted></video>', want: (i) => Math.floor(i / 2) },
  // 3 s of source at rate 2 last 1.5 s: the clip's window.
  { name: 'rate 2', video: '<video src="code30.mp4" data-start="0" data-playback-rate="2" muted></video>', want: (i) => (i < 45 ? 2 * i : 0) },
  { name: 'starting at 0.5 s', video: '<video src="code30.mp4" data-start="0.5" muted></video>', want: (i) => (i < 15 ? 0 : i - 15) },
  { name: 'trimmed: 1 s from 1 s in', video: '<video src="code30.mp4" data-start="0" data-media-start="1" data-duration="1" muted></video>', want: (i) => (i < 30 ? 30 + i : 0) },
  { name: '24 fps source', video: '<video src="code24.webm" data-start="0" muted></video>', want: (i) => Math.floor((i * 24) / 30 + 1e-6) },
  { name: '25 fps source', video: '<video src="code25.mp4" data-start="0" muted></video>', want: (i) => Math.floor((i * 25) / 30 + 1e-6) },
  // Frame k of a 29.97 fps source starts k/30000 s after k/30 s: render frame k still shows k - 1.
  { name: '29.97 fps source', video: '<video src="code2997.mp4" data-start="0" muted></video>', want: (i) => Math.floor((i * 1000) / 1001 + 1e-6) },
  { name: '1 s source in a 2 s clip holds its last frame', video: '<video src="code1s.webm" data-start="0" data-duration="2" muted></video>', want: (i) => Math.min(i, 29) },
  { name: 'looping from 0.5 s', video: '<video src="code1s.webm" data-start="0" data-media-start="0.5" data-duration="2" loop muted></video>', want: (i) => 15 + (i % 15) },
];

/** Writes the video-clock fixture (index.html and its code videos) into `dir`. */
export function writeVideoClockProject(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  writeCodeVideo(path.join(dir, 'code30.mp4'), '30', 3);
  writeCodeVideo(path.join(dir, 'code24.webm'), '24', 2.5);
  writeCodeVideo(path.join(dir, 'code25.mp4'), '25', 2.5);
  writeCodeVideo(path.join(dir, 'code2997.mp4'), '30000/1001', 2.5);
  writeCodeVideo(path.join(dir, 'code1s.webm'), '30', 1);
  const rows = VIDEO_CLOCK_ROWS.map((row, r) => row.video.replace('<video ', `<video style="top:${r * 20}px" `)).join('\n');
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html data-composition-variables='[]'><head><style>html,body{margin:0;background:#000}video{position:absolute;left:0;width:320px;height:20px}</style></head>
<body><div data-composition-id="video-clock" data-width="320" data-height="200" data-duration="2" data-fps="30">
${rows}
</div></body></html>`,
  );
}

/** Where decoded luma frame `i` (320x200) of the video-clock fixture is wrong; empty when right. */
export function videoClockProblems(frame: Buffer, i: number): string[] {
  return VIDEO_CLOCK_ROWS.flatMap((row, r) => {
    const got = readCode(frame, r * 20);
    return got === row.want(i) ? [] : [`frame ${i}, ${row.name}: source frame ${got}, want ${row.want(i)}`];
  });
}
