import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CliRun, errorLines, tempDir, vidkit, vidkitAsync } from '../test-support/cli';
import { decodeRgbFrame, ffprobe, rgbAt } from '../test-support/media';

const work = tempDir('vidkit-misbehaving-test-');

/** A project whose index.html is a 160x90 composition of `seconds` holding `body`, with `files` beside it. */
function project(name: string, seconds: number, body: string, variables = '[]'): string {
  const dir = path.join(work, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html data-composition-variables='${variables}'><head><style>html,body{margin:0;background:#000} .bar{height:10px;background:#fff}</style></head>
<body><div id="root" data-composition-id="${name}" data-width="160" data-height="90" data-duration="${seconds}" data-fps="30">${body}</div></body></html>`,
  );
  return dir;
}

function ffmpeg(args: string[]): void {
  execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
}

/** Renders with a load timeout far above what any of these pages may take; returns the run and its wall time. */
function timedRender(dir: string, extra: string[] = []): { run: CliRun; seconds: number; output: string } {
  const output = path.join(work, `${path.basename(dir)}.mp4`);
  const started = Date.now();
  const run = vidkit(['render', dir, '--output', output, '--workers', '1', '--load-timeout', '60', ...extra]);
  return { run, seconds: (Date.now() - started) / 1000, output };
}

const LOOPBACK_URL = 'http://127\\.0\\.0\\.1:\\d+';
/** What libav says of a file that is not media at all (its MP3 reader, which the name makes it try, in its own words). */
const NOT_MEDIA = 'cannot open it as a media file: Invalid data found when processing input';
const NOT_MP3 = 'cannot open it as a media file: Invalid argument';

// --- navigation ---------------------------------------------------------------------------------

const navigation = suite('a page that navigates away');

navigation('during load (a script setting location): render and still fail at once naming where it went', () => {
  const dir = project('navigates-at-load', 0.5, '<script>location.href = "other.html";</script>');
  fs.writeFileSync(path.join(dir, 'other.html'), '<!doctype html><body style="background:#f00">another page</body>');
  const { run, seconds, output } = timedRender(dir);
  assert.is(run.status, 1, run.stderr);
  const want = new RegExp(`^vidkit: error: the composition navigated away to ${LOOPBACK_URL}/other\\.html at load: a composition must stay on its page$`);
  assert.equal(errorLines(run.stderr).length, 1, run.stderr);
  assert.match(errorLines(run.stderr)[0], want);
  assert.ok(seconds < 20, `failed after ${seconds} s, the load timeout being 60 s`);
  assert.not.ok(fs.existsSync(output));

  const still = vidkit(['still', dir, '--output', path.join(work, 'navigates.png'), '--frame', '3']);
  assert.is(still.status, 1, still.stderr);
  assert.match(errorLines(still.stderr)[0], want);
});

// --- dialogs ------------------------------------------------------------------------------------------

const dialogs = suite('dialogs');

dialogs('alert at load, confirm in a timer, prompt in an animation frame: each dismissed once with a warning, the render finishing', () => {
  // #c turns green when confirm answers false; the body red if prompt answered anything but null.
  const dir = project(
    'dialogs',
    1,
    `<div id="c" style="width:160px;height:90px"></div><script>
alert('hello at load');
setTimeout(function () { document.getElementById('c').style.background = confirm('Continue?') === false ? '#0f0' : '#f00'; }, 500);
requestAnimationFrame(function () { if (prompt('Your name', 'x') !== null) document.body.style.background = '#f00'; });
</script>`,
  );
  const { run, output } = timedRender(dir, ['--workers', '2']);
  assert.is(run.status, 0, run.stderr);
  // Both workers' pages load and step through 0.5 s: each dialog is still one warning.
  assert.equal(
    run.stderr.split('\n').filter((l) => l.startsWith('vidkit: warning:')),
    [
      'vidkit: warning: the composition opened a dialog at load: alert "hello at load"; dismissed, as a render has no one to answer it',
      'vidkit: warning: the composition opened a dialog at frame 0: prompt "Your name"; dismissed, as a render has no one to answer it',
      'vidkit: warning: the composition opened a dialog at frame 15: confirm "Continue?"; dismissed, as a render has no one to answer it',
    ],
  );
  for (const [frame, want] of [
    [14, [0, 0, 0]],
    [15, [0, 255, 0]],
    [29, [0, 255, 0]],
  ] as const) {
    const got = rgbAt(decodeRgbFrame(output, frame, 160, 90), 160, 80, 45);
    assert.ok(got.every((c, i) => Math.abs(c - want[i]) < 16), `frame ${frame}: ${got}, want ${want}`);
  }
});

// --- media that cannot be decoded ---------------------------------------------------------------

const media = suite('media that cannot be decoded');

const BAD = path.join(work, 'bad-media');
fs.mkdirSync(BAD, { recursive: true });
fs.writeFileSync(path.join(BAD, 'empty.mp4'), '');
fs.writeFileSync(path.join(BAD, 'text.mp4'), 'this is a text file, not a video\n');
// An MP4 cut in half: its index, written last, is gone.
ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=s=160x90:r=30:d=1', '-c:v', 'libx264', path.join(BAD, 'whole.mp4')]);
const whole = fs.readFileSync(path.join(BAD, 'whole.mp4'));
fs.writeFileSync(path.join(BAD, 'truncated.mp4'), whole.subarray(0, whole.length >> 1));
fs.writeFileSync(path.join(BAD, 'noise.mp3'), Buffer.alloc(4096, 0x42));

media('a 0-byte <video>: the render fails well under the load timeout, naming it and libav\'s reason, exit 2', () => {
  const dir = project('bad-empty', 0.5, '<video src="media/empty.mp4" muted></video>');
  fs.mkdirSync(path.join(dir, 'media'), { recursive: true });
  fs.copyFileSync(path.join(BAD, 'empty.mp4'), path.join(dir, 'media', 'empty.mp4'));
  const { run, seconds, output } = timedRender(dir);
  assert.is(run.status, 2, run.stderr);
  assert.equal(errorLines(run.stderr), [`vidkit: error: media media/empty.mp4 cannot be played: ${NOT_MEDIA}`]);
  assert.ok(seconds < 20, `failed after ${seconds} s, the load timeout being 60 s`);
  assert.not.ok(fs.existsSync(output));
});

media('an MP4 cut in half (its moov atom gone): vidkit\'s own error is the only line about it, no libav log line before it', () => {
  const dir = project('bad-truncated', 0.5, '<video src="media/truncated.mp4" muted></video>');
  fs.mkdirSync(path.join(dir, 'media'), { recursive: true });
  fs.copyFileSync(path.join(BAD, 'truncated.mp4'), path.join(dir, 'media', 'truncated.mp4'));
  const { run } = timedRender(dir);
  assert.is(run.status, 2, run.stderr);
  assert.equal(errorLines(run.stderr), [`vidkit: error: media media/truncated.mp4 cannot be played: ${NOT_MEDIA}`]);
  // libav's own logger writes `[mov,mp4,m4a,3gp,3g2,mj2 @ 0x55d0…] moov atom not found`.
  assert.not.match(run.stderr, /moov atom|^\[[^\]]* @ 0x[0-9a-f]+\]/m);
});

media('a video a script adds at 0.3 s fails the render at that frame; still fails the same', () => {
  const dir = project(
    'bad-later',
    1,
    `<script>setTimeout(function () { var v = document.createElement('video'); v.muted = true; v.src = 'empty.mp4'; document.getElementById('root').appendChild(v); }, 300);</script>`,
  );
  fs.copyFileSync(path.join(BAD, 'empty.mp4'), path.join(dir, 'empty.mp4'));
  const { run, seconds } = timedRender(dir, ['--frame-timeout', '30']);
  assert.is(run.status, 2, run.stderr);
  assert.equal(errorLines(run.stderr), [`vidkit: error: media empty.mp4 cannot be played: ${NOT_MEDIA}`]);
  assert.ok(seconds < 20, `failed after ${seconds} s, the frame timeout being 30 s`);
  const still = vidkit(['still', dir, '--output', path.join(work, 'bad-later.png'), '--frame', '20']);
  assert.is(still.status, 2, still.stderr);
  assert.equal(errorLines(still.stderr), [`vidkit: error: media empty.mp4 cannot be played: ${NOT_MEDIA}`]);
});

media('a remote video that is not one is named by its URL', async () => {
  const server = http.createServer((_, res) => res.writeHead(200, { 'content-type': 'video/mp4' }).end('not a video'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/clip.mp4`;
  try {
    const dir = project('bad-remote', 0.5, `<video src="${url}" muted></video>`);
    const run = await vidkitAsync(['render', dir, '--output', path.join(work, 'bad-remote.mp4'), '--workers', '1', '--allow-private-network']);
    assert.is(run.status, 2, run.stderr);
    assert.equal(errorLines(run.stderr), [`vidkit: error: media ${url} cannot be played: ${NOT_MEDIA}`]);
  } finally {
    server.close();
  }
});

media('--allow-missing-media: a remote <audio> and <video> that cannot be fetched play as silence and nothing, the render finishing', async () => {
  // A port nothing listens on.
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const dir = project('missing-media', 0.3, `<audio src="${base}/gone.mp3"></audio><video src="${base}/gone.mp4" muted></video>`);
  const output = path.join(work, 'missing-media.mp4');
  const run = await vidkitAsync(['render', dir, '--output', output, '--workers', '1', '--allow-missing-media', '--allow-private-network']);
  assert.is(run.status, 0, run.stderr);
  for (const file of ['gone.mp3', 'gone.mp4']) assert.match(run.stderr, `vidkit: warning: media ${base}/${file} could not be fetched: connect ECONNREFUSED`);
  assert.equal(
    ffprobe(output).streams.map((s) => s.codec_type),
    ['video'],
  );
  assert.ok(rgbAt(decodeRgbFrame(output, 5, 160, 90), 160, 80, 45).every((c) => c < 16));
});

// --- audio the browser does not play -------------------------------------------------------------

const audio = suite('audio in codecs the browser does not play');

/** A file's first channel as the ffmpeg CLI decodes it, at 48 kHz (the mix plays a mono source on both sides). */
function decodeFirstChannel(file: string): Float32Array {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:a', '-af', 'pan=mono|c0=c0', '-ar', '48000', '-f', 'f32le', '-']);
  return new Float32Array(raw.buffer, raw.byteOffset, raw.length / 4);
}

/** The RMS level of `pcm` (48 kHz) from `from` to `to` seconds. */
function rms(pcm: Float32Array, from: number, to: number): number {
  let sum = 0;
  for (let n = from * 48_000; n < to * 48_000; n++) sum += pcm[n] * pcm[n];
  return Math.sqrt(sum / ((to - from) * 48_000));
}

/** The width of the white bar in row `y` of a frame: how many pixels from the left are bright. */
function barWidth(frame: Buffer, y: number): number {
  let x = 0;
  while (x < 160 && rgbAt(frame, 160, x, y)[0] > 128) x++;
  return x;
}

for (const [name, codec] of [
  ['tone.wma', 'wmav2'],
  ['tone.ac3', 'ac3'],
] as const) {
  audio(`<audio src="${name}"> (${codec}): in the mix at the source's level; the page has its duration and can decode it`, () => {
    // Bars 100 px a second: the <audio>'s duration, and what WebAudio decodes of the file fetched.
    const dir = project(
      `audio-${codec}`,
      1,
      `<audio id="a" src="${name}"></audio><div class="bar" id="element"></div><div class="bar" id="decoded"></div>
<script>
window.__vidkit.waitFor(fetch('${name}').then(function (r) { return r.arrayBuffer(); })
  .then(function (bytes) { return new OfflineAudioContext(2, 48000, 48000).decodeAudioData(bytes); })
  .then(function (decoded) { document.getElementById('decoded').style.width = Math.round(decoded.duration * 100) + 'px'; }));
requestAnimationFrame(function () { document.getElementById('element').style.width = Math.round(document.getElementById('a').duration * 100) + 'px'; });
</script>`,
    );
    ffmpeg(['-f', 'lavfi', '-i', 'sine=f=1000:d=1,volume=2', '-c:a', codec, path.join(dir, name)]);
    const { run, output } = timedRender(dir);
    assert.is(run.status, 0, run.stderr);
    const source = decodeFirstChannel(path.join(dir, name));
    const mixed = decodeFirstChannel(output);
    const db = 20 * Math.log10(rms(mixed, 0.1, 0.9) / rms(source, 0.1, 0.9));
    assert.ok(rms(source, 0.1, 0.9) > 0.1 && Math.abs(db) < 1, `mix ${rms(mixed, 0.1, 0.9)} against source ${rms(source, 0.1, 0.9)}: ${db.toFixed(2)} dB`);
    const frame = decodeRgbFrame(output, 0, 160, 90);
    for (const [bar, y] of [
      ['element', 5],
      ['decoded', 15],
    ] as const) {
      const width = barWidth(frame, y);
      assert.ok(Math.abs(width - 100) <= 4, `${bar} bar ${width} px, want 100 (1 s)`);
    }
  });
}

// --- the warm pool ----------------------------------------------------------------------------------

const batch = suite('render --batch: one warm browser through misbehaving rows');

batch('rows that navigate away or play a file that cannot be decoded fail naming it, each well under the load timeout; the others render; each dialog warned under its row', () => {
  // Each row writes the element its mode names; every row opens an alert first.
  const dir = project(
    'batch',
    0.2,
    `<script>
var mode = window.__vidkit.getVariables().mode;
alert('row ' + mode);
if (mode === 'navigate') location.replace('other.html');
var markup = {
  'text-source': '<video muted><source src="media/text.mp4" type="video/mp4"></video>',
  'truncated': '<video src="media/truncated.mp4" muted></video>',
  'noise-audio': '<audio src="media/noise.mp3"></audio>',
}[mode];
if (markup) document.write(markup);
</script>`,
    '[{"id":"mode","type":"string","label":"Mode","default":"ok"}]',
  );
  fs.writeFileSync(path.join(dir, 'other.html'), '<!doctype html><body>another page</body>');
  fs.mkdirSync(path.join(dir, 'media'), { recursive: true });
  for (const file of ['text.mp4', 'truncated.mp4', 'noise.mp3']) fs.copyFileSync(path.join(BAD, file), path.join(dir, 'media', file));
  const modes = ['ok', 'navigate', 'text-source', 'truncated', 'noise-audio', 'ok'];
  const file = path.join(work, 'rows.jsonl');
  fs.writeFileSync(file, modes.map((mode, i) => JSON.stringify({ outputKey: `${i + 1}-${mode}.mp4`, variables: { mode } })).join('\n') + '\n');
  const outDir = path.join(work, 'batch-out');
  const run = vidkit(['render', dir, '--batch', file, '--output-dir', outDir, '--batch-concurrency', '1', '--load-timeout', '60', '--json']);
  assert.is(run.status, 1, run.stderr);
  const rows = JSON.parse(run.stdout) as Array<{ line: number; status: string; error?: string; seconds: number }>;
  assert.equal(
    rows.map((r) => [r.line, r.status]),
    modes.map((mode, i) => [i + 1, mode === 'ok' ? 'rendered' : 'failed']),
  );
  assert.match(rows[1].error!, new RegExp(`^the composition navigated away to ${LOOPBACK_URL}/other\\.html at load: a composition must stay on its page$`));
  assert.equal(
    rows.slice(2, 5).map((r) => r.error),
    [`media media/text.mp4 cannot be played: ${NOT_MEDIA}`, `media media/truncated.mp4 cannot be played: ${NOT_MEDIA}`, `media media/noise.mp3 cannot be played: ${NOT_MP3}`],
  );
  for (const row of rows.slice(1, 5)) assert.ok(row.seconds < 20, `line ${row.line} failed after ${row.seconds} s, the load timeout being 60 s`);
  // The last row has the first row's variables: it joins the frames the first drew and loads no page.
  assert.equal(
    run.stderr.split('\n').filter((l) => l.includes('opened a dialog')),
    modes.slice(0, -1).map(
      (mode, i) => `vidkit: warning: line ${i + 1} (${i + 1}-${mode}.mp4): the composition opened a dialog at load: alert "row ${mode}"; dismissed, as a render has no one to answer it`,
    ),
  );
});

navigation.run();
dialogs.run();
media.run();
audio.run();
batch.run();
