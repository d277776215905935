import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { errorLines, tempDir, vidkit, vidkitAsync } from '../test-support/cli';
import {
  TONE,
  decodeGray,
  decodePcm,
  decodeRgbFrame,
  ffprobe,
  measureTone,
  readPatternCode,
  rgbAt,
  toneProblems,
  writePatternVideo,
  writeToneProject,
} from '../test-support/media';

const work = tempDir('vidkit-media-test-');

/** A project directory holding `html` as index.html. */
function project(name: string, html: string): string {
  const dir = path.join(work, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.html'), html);
  return dir;
}

function page(id: string, size: string, duration: number, body: string, style = ''): string {
  const [w, h] = size.split('x');
  return `<!doctype html><html data-composition-variables='[]'><head><style>html,body{margin:0;background:#000}${style}</style></head>
<body><div data-composition-id="${id}" data-width="${w}" data-height="${h}" data-duration="${duration}" data-fps="30">${body}</div></body></html>`;
}

function ffmpeg(args: string[]): void {
  execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
}

// --- <video> ----------------------------------------------------------------------------------------

const video = suite('<video> under the virtual clock');

// The test pattern (writePatternVideo) as VP9 WebM and as H.264 MP4.
const VIDEO_DIR = project('video', '');
writePatternVideo(path.join(VIDEO_DIR, 'pattern.webm'));
writePatternVideo(path.join(VIDEO_DIR, 'pattern.mp4'));

/** Three rows of 64 px: plain (holds its last frame after 2 s), playbackRate 2 looping, currentTime 0.5. */
function videoPage(source: string): string {
  return page(
    'video-frames',
    '320x192',
    3,
    `<video id="plain" src="${source}" muted></video><video id="fast" src="${source}" muted loop></video><video id="offset" src="${source}" muted></video>
<script>document.getElementById('fast').playbackRate = 2; document.getElementById('offset').currentTime = 0.5;</script>`,
    'video{display:block;width:320px;height:64px}',
  );
}

const readCode = (frame: Buffer, row: number) => readPatternCode(frame, row * 64);

for (const [source, workers] of [
  ['pattern.webm', '1'],
  ['pattern.webm', '3'],
  ['pattern.mp4', '3'],
] as const) {
  video(`${source}, --workers ${workers}: every output frame shows the source frame at the element's own time`, () => {
    fs.writeFileSync(path.join(VIDEO_DIR, 'index.html'), videoPage(source));
    const output = path.join(work, `video-${source}-${workers}.mp4`);
    const run = vidkit(['render', VIDEO_DIR, '--output', output, '--workers', workers]);
    assert.is(run.status, 0, run.stderr);
    const frames = decodeGray(output, 320, 192);
    assert.is(frames.length, 90);
    const wrong: string[] = [];
    frames.forEach((f, i) => {
      const want = [Math.min(i, 59), (2 * i) % 60, Math.min(15 + i, 59)];
      const got = [0, 1, 2].map((row) => readCode(f, row));
      if (got.join() !== want.join()) wrong.push(`frame ${i}: got ${got}, want ${want}`);
    });
    assert.equal(wrong, []);
  });
}

// --- audio --------------------------------------------------------------------------------------------

const audio = suite('soundtrack');

const TONE_DIR = path.join(work, 'tone');
writeToneProject(TONE_DIR);

audio('a 1 kHz tone across 3 chunks: AAC 48 kHz, no gap or step at the seams, offset within 1 ms, right duration', () => {
  const output = path.join(work, 'tone.mp4');
  const run = vidkit(['render', TONE_DIR, '--output', output, '--workers', '3']);
  assert.is(run.status, 0, run.stderr);
  const streams = ffprobe(output).streams as unknown as Record<string, string>[];
  const a = streams.find((s) => s.codec_type === 'audio')!;
  assert.equal([a.codec_name, a.sample_rate, a.channels], ['aac', '48000', 2 as unknown as string]);
  assert.ok(Math.abs(Number(a.duration) - TONE.seconds) < 0.001, `audio stream duration ${a.duration}`);
  assert.equal(toneProblems(measureTone(decodePcm(output))), []);
});

/**
 * One copy of tone.wav (1 kHz at amplitude 0.5) from 0 s and a second, in phase, from 0.5 s: the
 * two sum to 1.0 (0 dBTP, over -1 dBTP), so every sample of the mix is lowered 1.5 dB.
 */
function assertTwoTonesUnderCeiling(output: string): void {
  const pcm = decodePcm(output);
  const amplitude = (from: number, to: number) => {
    let sum = 0;
    for (let n = from * TONE.rate; n < to * TONE.rate; n++) sum += pcm[n] * pcm[n];
    return Math.sqrt((2 * sum) / ((to - from) * TONE.rate));
  };
  const lowered = 10 ** (-1.5 / 20);
  const got = [amplitude(0.1, 0.4), amplitude(0.6, 0.9)];
  assert.ok(Math.abs(got[0] - 0.5 * lowered) < 0.015 && Math.abs(got[1] - lowered) < 0.015, `amplitudes ${got.map((a) => a.toFixed(3))}, want ${(0.5 * lowered).toFixed(3)} and ${lowered.toFixed(3)}`);
}

audio('a mix over the true-peak ceiling is turned down as a whole, not clipped: overlapping tones summing to full scale', () => {
  const dir = project('ceiling', page('ceiling', '160x90', 1, '<audio src="tone.wav" data-start="0"></audio><audio src="tone.wav" data-start="0.5"></audio>'));
  fs.copyFileSync(path.join(TONE_DIR, 'tone.wav'), path.join(dir, 'tone.wav'));
  const output = path.join(work, 'ceiling.mp4');
  const run = vidkit(['render', dir, '--output', output, '--workers', '1']);
  assert.is(run.status, 0, run.stderr);
  assertTwoTonesUnderCeiling(output);
});

audio('media a script adds after the page is ready enter the soundtrack: the one encoded while the frames render is not used', () => {
  // The soundtrack is encoded early from the tone present at load; the script's second copy (as in
  // the ceiling test, from 0.5 s) changes the mix, which must then be made again from both.
  const add = `setTimeout(function () { var a = document.createElement('audio'); a.src = 'tone.wav'; a.setAttribute('data-start', '0.5');
document.querySelector('[data-composition-id]').appendChild(a); }, 500);`;
  const dir = project('added-later', page('added-later', '160x90', 1, `<audio src="tone.wav" data-start="0"></audio><script>${add}</script>`));
  fs.copyFileSync(path.join(TONE_DIR, 'tone.wav'), path.join(dir, 'tone.wav'));
  const output = path.join(work, 'added-later.mp4');
  const run = vidkit(['render', dir, '--output', output, '--workers', '1']);
  assert.is(run.status, 0, run.stderr);
  assertTwoTonesUnderCeiling(output);
});

audio('a composition without audible media gets no audio stream', () => {
  const dir = project('silent', page('silent', '320x180', 0.2, '<audio src="muted.wav" muted></audio>'));
  fs.copyFileSync(path.join(TONE_DIR, 'muted.wav'), path.join(dir, 'muted.wav'));
  const output = path.join(work, 'silent.mp4');
  const run = vidkit(['render', dir, '--output', output, '--workers', '1']);
  assert.is(run.status, 0, run.stderr);
  assert.equal(
    ffprobe(output).streams.map((s) => s.codec_type),
    ['video'],
  );
});

audio('media elements with no source yet (and one a script adds later) neither stall the render nor enter the soundtrack', () => {
  const dir = project('sourceless', page(
      'sourceless',
      '320x180',
      0.5,
      `<audio id="a"></audio><video width="160" height="90"></video>
<script>setTimeout(function () { document.body.appendChild(document.createElement('video')); }, 200);</script>`,
    ));
  const output = path.join(work, 'sourceless.mp4');
  const run = vidkit(['render', dir, '--output', output, '--workers', '1']);
  assert.is(run.status, 0, run.stderr);
  assert.equal(
    ffprobe(output).streams.map((s) => [s.codec_type, s.nb_read_frames]),
    [['video', '15']],
  );
});

// --- images -------------------------------------------------------------------------------------------

const images = suite('images from URLs');

/**
 * A local HTTP server standing in for a CDN; counts requests per path. It listens on loopback (nothing
 * else is reachable here), so the renders that use it pass --allow-private-network.
 */
async function imageServer(): Promise<{ url: string; counts: Map<string, number>; close: () => Promise<void> }> {
  const dir = path.join(work, 'cdn');
  fs.mkdirSync(dir, { recursive: true });
  ffmpeg(['-f', 'lavfi', '-i', 'color=c=red:s=64x64', '-frames:v', '1', path.join(dir, 'red.png')]);
  ffmpeg(['-f', 'lavfi', '-i', 'color=c=blue:s=64x64', '-frames:v', '1', path.join(dir, 'blue.png')]);
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    counts.set(req.url!, (counts.get(req.url!) ?? 0) + 1);
    const file = path.join(dir, path.basename(req.url!));
    if (!fs.existsSync(file)) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('content-type', 'image/png');
    res.end(fs.readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, counts, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function imagePage(cdn: string, img: string): string {
  return page(
    'images',
    '320x180',
    1,
    `<img src="${cdn}/${img}" style="position:absolute;left:0;top:0"><div id="bg"></div>`,
    `#bg{position:absolute;left:100px;top:0;width:64px;height:64px;background-image:url(${cdn}/blue.png)}`,
  );
}

images('an <img> and a CSS background from URLs: fetched once for 3 workers, drawn from frame 0', async () => {
  const cdn = await imageServer();
  try {
    const dir = project('images', imagePage(cdn.url, 'red.png'));
    const output = path.join(work, 'images.mp4');
    const run = await vidkitAsync(['render', dir, '--output', output, '--workers', '3', '--allow-private-network']);
    assert.is(run.status, 0, run.stderr);
    assert.equal(Object.fromEntries(cdn.counts), { '/red.png': 1, '/blue.png': 1 });
    for (const index of [0, 29]) {
      const frame = decodeRgbFrame(output, index, 320, 180);
      const [red, blue, empty] = [rgbAt(frame, 320, 30, 30), rgbAt(frame, 320, 130, 30), rgbAt(frame, 320, 250, 100)];
      assert.ok(red[0] > 240 && red[2] < 15, `frame ${index} img ${red}`);
      assert.ok(blue[2] > 240 && blue[0] < 15, `frame ${index} CSS background ${blue}`);
      assert.ok(empty.every((c) => c < 15), `frame ${index} background ${empty}`);
    }
  } finally {
    await cdn.close();
  }
});

images('a failed fetch is one error naming the URL; --allow-missing-media makes it a warning and a transparent placeholder', async () => {
  const cdn = await imageServer();
  try {
    const dir = project('missing', imagePage(cdn.url, 'gone.png'));
    const output = path.join(work, 'missing.mp4');
    const failed = await vidkitAsync(['render', dir, '--output', output, '--workers', '2', '--allow-private-network']);
    assert.is(failed.status, 1);
    assert.equal(errorLines(failed.stderr), [`vidkit: error: media ${cdn.url}/gone.png could not be fetched: HTTP 404`]);
    assert.not.ok(fs.existsSync(output));

    const allowed = await vidkitAsync(['render', dir, '--output', output, '--workers', '2', '--allow-missing-media', '--allow-private-network']);
    assert.is(allowed.status, 0, allowed.stderr);
    assert.ok(
      allowed.stderr.includes(`vidkit: warning: media ${cdn.url}/gone.png could not be fetched: HTTP 404; using a transparent placeholder (--allow-missing-media)`),
      allowed.stderr,
    );
    const frame = decodeRgbFrame(output, 0, 320, 180);
    assert.ok(rgbAt(frame, 320, 30, 30).every((c) => c < 15), `placeholder ${rgbAt(frame, 320, 30, 30)}`);
    assert.ok(rgbAt(frame, 320, 130, 30)[2] > 240, 'the CSS background still drew');
  } finally {
    await cdn.close();
  }
});

video.run();
audio.run();
images.run();
