import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freePort } from './ports';
import * as assert from 'uvu/assert';
import { loadComposition } from '../composition/composition';
import { parseRenderRequest, renderCliArgs } from '../composition/render-request';
import { SCRIPT_SAMPLES } from '../fonts/script-samples';
import { findBrowser, launchBrowser } from '../render/browser/browser';
import { processEnvironment, processTable } from '../render/browser/process-table';
import { FIXTURES, REPO_ROOT, built, tempDir, vidkitAsync } from './cli';
import { decodeRgbFrame, ffprobe, psnrPerFrame, rgbAt } from './media';

export const TEMPLATES = path.join(REPO_ROOT, 'templates');
/** How the templates' local adapters run vidkit: the built CLI of this checkout. */
export const LOCAL_VIDKIT_CLI = `${process.execPath} ${built('cli', 'main.js')}`;

/**
 * The small render every template test asks for (RENDER_WIDTH/HEIGHT/FPS, documented in each
 * template's README): ui-3d-reveal's 6 s at 320x180 and 5 fps, 30 frames.
 */
export const SMALL_RENDER = { RENDER_WIDTH: '320', RENDER_HEIGHT: '180', RENDER_FPS: '5' };
export const SMALL_FRAMES = 30;
/** Overrides the accent; ui-3d-reveal fills its panel with it from 0.9 s on. */
export const ACCENT_VARIABLES = { variables: { accent: '#ff3366', headline: 'Rendered by a template' } };

export interface RunningServer {
  url: string;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts a template's server as its own process group and waits until `readyPath` answers.
 * stop() ends the whole group (servers such as `wrangler dev` start children of their own).
 */
export async function startServer(
  command: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; port: number; readyPath?: string; timeoutMs?: number },
): Promise<RunningServer> {
  const child: ChildProcess = spawn(command, args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (log += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${opts.port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        return;
      }
      const killer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 5000);
      await exited;
      clearTimeout(killer);
    }
  };
  const deadline = Date.now() + (opts.timeoutMs ?? 90_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode} before serving:\n${log}`);
    try {
      const res = await fetch(url + (opts.readyPath ?? '/'));
      await res.arrayBuffer();
      if (res.status < 500) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${command} did not serve ${url} in time:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return { url, output: () => log, stop };
}

/**
 * Where the template tests keep what a person would look at (screenshots of the preview pages):
 * test-artifacts/ in the checkout (ignored by git), or VIDKIT_TEST_ARTIFACTS.
 */
export const ARTIFACTS = process.env.VIDKIT_TEST_ARTIFACTS ?? path.join(REPO_ROOT, 'test-artifacts');

export interface PreviewSession {
  /** The standard deviation of the screenshot's luma over the player: 0 for a blank frame. */
  spread: number;
  /** How far the player's clock moved in a second of wall time. */
  played: number;
  /** The rendered video the page showed, as the browser decoded it. */
  video: { src: string; width: number; height: number; duration: number; played: number };
  /** The screenshot of the page, showing the player and the rendered video. */
  screenshot: string;
}

/**
 * The preview page as a person uses it, in headless Chromium: the page loads, `<vidkit-player>`
 * shows the composition and plays it, the form posts `variables` (typed into its textarea) and
 * the page then plays the rendered video. A screenshot of the page at that point is kept as
 * {@link ARTIFACTS}/<name>.png.
 */
export async function previewSession(pageUrl: string, name: string, variables: Record<string, unknown>): Promise<PreviewSession> {
  const browser = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1100, height: 1000 });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(String(err)));
    await page.goto(pageUrl, { waitUntil: 'load' });
    try {
      await page.waitForFunction(
        () => {
          const iframe = document.querySelector('vidkit-player')?.shadowRoot?.querySelector('iframe');
          return !!iframe && iframe.style.visibility === 'visible';
        },
        { timeout: 60_000 },
      );
    } catch (err) {
      throw new Error(`the player never showed the composition (${(err as Error).message}); page errors: ${errors.join('; ')}`);
    }
    const clock = () => page.$eval('vidkit-player', (p) => (p as unknown as { currentTime: number }).currentTime);
    const before = await clock();
    // Let the composition play into its first animations.
    await new Promise((r) => setTimeout(r, 1500));
    const played = (await clock()) - before;
    const player = await page.$('vidkit-player');
    const spread = lumaSpread((await player!.screenshot({ type: 'png' })) as Uint8Array);

    // The form, as typed by a person.
    await page.click('textarea', { clickCount: 3 });
    await page.keyboard.press('Backspace');
    await page.type('textarea', JSON.stringify(variables));
    await page.click('button');
    try {
      await page.waitForFunction(
        () => {
          const video = document.querySelector('video');
          return !!video && video.readyState >= 2 && video.videoWidth > 0;
        },
        { timeout: 180_000, polling: 250 },
      );
    } catch (err) {
      const shown = await page.$eval('body', (b) => b.innerText.slice(-300));
      throw new Error(`the page never showed the rendered video (${(err as Error).message}); it shows: ${shown}; page errors: ${errors.join('; ')}`);
    }
    const start = await page.$eval('video', (v) => v.currentTime);
    await new Promise((r) => setTimeout(r, 1000));
    const video = await page.$eval('video', (v, t0) => ({ src: v.currentSrc, width: v.videoWidth, height: v.videoHeight, duration: v.duration, played: v.currentTime - t0 }), start);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const screenshot = path.join(ARTIFACTS, `${name}.png`);
    await page.screenshot({ path: screenshot as `${string}.png`, fullPage: true });
    return { spread, played, video, screenshot };
  } finally {
    await browser.close();
  }
}

/** The standard deviation of a PNG's luma. */
function lumaSpread(png: Uint8Array): number {
  const gray = execFileSync('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'], {
    input: png,
    maxBuffer: 64 * 1024 * 1024,
  });
  let sum = 0;
  let sq = 0;
  for (const v of gray) {
    sum += v;
    sq += v * v;
  }
  const mean = sum / gray.length;
  return Math.sqrt(sq / gray.length - mean * mean);
}

/** Asserts a preview session went as a person expects: a drawn, playing player, then the rendered video playing at 320x180. */
export function assertPreviewSession(session: PreviewSession): void {
  assert.ok(session.spread > 10, `screenshot luma spread ${session.spread.toFixed(1)}`);
  assert.ok(session.played > 0.5, `the player's clock moved ${session.played.toFixed(2)} s in 1.5 s`);
  const { video } = session;
  assert.equal([video.width, video.height], [320, 180], `the video shown: ${JSON.stringify(video)}`);
  assert.ok(Math.abs(video.duration - SMALL_FRAMES / 5) < 0.3, `video duration ${video.duration}`);
  assert.ok(video.played > 0.3, `the rendered video played ${video.played.toFixed(2)} s in 1 s`);
  assert.ok(fs.statSync(session.screenshot).size > 10_000, session.screenshot);
}

/** Asserts an MP4 is ui-3d-reveal at {@link SMALL_RENDER} and shows {@link ACCENT_VARIABLES}' accent. */
export function assertSmallAccentRender(bytes: Uint8Array): void {
  const file = path.join(tempDir('vidkit-template-'), 'render.mp4');
  fs.writeFileSync(file, bytes);
  const video = ffprobe(file).streams.find((s) => s.codec_type === 'video');
  assert.ok(video, 'no video stream');
  assert.equal([video!.codec_name, video!.width, video!.height, video!.nb_read_frames], ['h264', 320, 180, String(SMALL_FRAMES)]);
  // The panel covers x 40-639, y 128-299 of 1920x1080 from 0.9 s: (56, 35) at 320x180, frame 25 = 5 s.
  const [r, g, b] = rgbAt(decodeRgbFrame(file, 25, 320, 180), 320, 56, 35);
  assert.ok(Math.abs(r - 0xff) <= 12 && Math.abs(g - 0x33) <= 12 && Math.abs(b - 0x66) <= 12, `accent pixel ${[r, g, b]}`);
}

/**
 * The script-names fixture: its `names` variable drawn at 17 px over a 320x180 page, 3 frames at 5
 * fps, so at {@link SMALL_RENDER} its text is drawn at its own size (ui-3d-reveal's headline
 * would be a few pixels high, and holds 90 characters).
 */
export const SCRIPT_NAMES_FIXTURE = 'script-names';
/** A viewer's name in each script of the bundled fallback faces. */
export const SCRIPT_NAMES_VARIABLES = { variables: { names: SCRIPT_SAMPLES.map((s) => s.text).join(' ') } };
/** The start of a missing-glyph warning: `<p#names> (variable "names") draws … as empty boxes: no font has …`. */
const MISSING_GLYPH_WARNING = / as empty boxes: no font has /;

/**
 * Asserts that an MP4 a template's image rendered of the script-names fixture with
 * {@link SCRIPT_NAMES_VARIABLES} at {@link SMALL_RENDER} is, frame by frame at >= 50 dB, the
 * render this checkout's `vidkit render` makes of it here with the same settings (the arguments
 * the templates' route runs, renderCliArgs: its size and frame rate, the standard quality the warm
 * renderer uses too), and that neither the image's process (`imageLog`, what it printed) nor the
 * local render warned of text no font could draw.
 */
export async function assertScriptNamesAsHere(bytes: Uint8Array, imageLog: string): Promise<void> {
  assert.not.match(imageLog, MISSING_GLYPH_WARNING, `text no font has, inside the image:\n${imageLog}`);
  const dir = tempDir('vidkit-template-names-');
  try {
    const image = path.join(dir, 'image.mp4');
    fs.writeFileSync(image, bytes);
    const variablesFile = path.join(dir, 'variables.json');
    fs.writeFileSync(variablesFile, JSON.stringify(SCRIPT_NAMES_VARIABLES.variables));
    const here = path.join(dir, 'here.mp4');
    // The images run without a writable /dev/shm (as Lambda runs them), so their frames leave the
    // browser as JPEG; so do this render's, without the library that would send them raw
    // (render/capture/frame-channel.ts), which changes no other pixel.
    const run = await vidkitAsync(renderCliArgs(path.join(FIXTURES, SCRIPT_NAMES_FIXTURE), here, variablesFile, SMALL_RENDER), { env: { VIDKIT_BROWSER_PRELOAD: '0' } });
    assert.is(run.status, 0, run.stderr);
    assert.not.match(run.stderr, MISSING_GLYPH_WARNING, 'text no font has, on this machine');
    const values = psnrPerFrame(image, here);
    assert.is(values.length, 3, 'frames compared');
    values.forEach((db, i) => assert.ok(db >= 50, `frame ${i}: ${db.toFixed(1)} dB between the image's render and this machine's`));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** POSTs a raw body and returns the status and parsed JSON answer. */
export async function postJson(url: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** The request contract's 400s, the same for the three templates (templates/README.md). */
export async function assertRejectsMalformedBodies(renderUrl: string): Promise<void> {
  const cases: [string, string, RegExp][] = [
    ['non-JSON', '{"variables": ', /not JSON/],
    ['over 64 KiB', JSON.stringify({ variables: { headline: 'x'.repeat(70 * 1024) } }), /limit is 65536/],
    ['not an object', '[1, 2]', /JSON object/],
    ['unknown variable', JSON.stringify({ variables: { subtitle: 'nope' } }), /"subtitle" is not declared/],
    ['mistyped variable', JSON.stringify({ variables: { cards: 'four' } }), /"cards": expected number/],
    ['bad enum value', JSON.stringify({ variables: { theme: 'sepia' } }), /"theme": expected one of/],
    // Within 64 KiB, far deeper than Python's parser goes: refused before parsing by the depth limit.
    ['30,000 nested arrays', `${'['.repeat(30_000)}${']'.repeat(30_000)}`, /nests arrays and objects deeper than the limit of 64 levels/],
    ['a variable 10,000 objects deep', `{"variables":{"headline":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}}`, /deeper than the limit of 64 levels/],
    // The body's object and `variables` are two levels: 62 arrays more is the limit, 63 one over.
    ['64 levels', `{"variables":{"headline":${'['.repeat(62)}${']'.repeat(62)}}}`, /"headline": expected string/],
    ['65 levels', `{"variables":{"headline":${'['.repeat(63)}${']'.repeat(63)}}}`, /deeper than the limit of 64 levels/],
  ];
  for (const [what, body, message] of cases) {
    const { status, json } = await postJson(renderUrl, body);
    assert.is(status, 400, `${what}: status ${status} ${JSON.stringify(json)}`);
    assert.match(String(json.error), message, `${what}: ${JSON.stringify(json)}`);
  }
}

/** The all-variable-types fixture: one value of each of the seven types, `face` a font. */
export const ALL_TYPES_VARIABLES = { variables: { title: 'typed', count: 2, fill: '#ff0000', outlined: true, mood: 'loud', face: 'Inter', logo: 'logo.png' } };

/**
 * Bodies the all-variable-types fixture refuses, each answered 400 with exactly the message
 * vidkit's own contract (parseRenderRequest) gives: the same in the three templates. `clip` is
 * declared with a type vidkit does not support, so it counts as undeclared.
 */
const REFUSED_BODIES = [
  { variables: { clip: 'other.mp4' } },
  { variables: { face: 3, logo: false, fill: 'not a colour!', count: '2', outlined: 'yes', mood: 'quiet', title: null } },
  { variables: { title: 12.5, mood: true, count: 'é', unknown: 1 } },
  { other: 1 },
  { variables: [] },
  'x'.repeat(65 * 1024),
  // Numbers past a double's range (JavaScript reads both as Infinity), one with more digits than Python converts.
  '{"variables":{"count":1e400,"title":-1e999}}',
  `{"variables":{"count":"2","title":${'9'.repeat(5000)}}}`,
  // Bytes that are not UTF-8 (each read as U+FFFD): in a key, in a value, a lone surrogate's encoding.
  Buffer.from('{"variables":{"ti\xfftle":"x","count":"\xc3\x28","mood":"\xed\xa0\x80"}}', 'latin1'),
];

export async function assertSameContract(send: (body: string | Uint8Array<ArrayBuffer>) => Promise<Response>): Promise<void> {
  const composition = loadComposition(path.join(FIXTURES, 'all-variable-types'));
  for (const value of REFUSED_BODIES) {
    const body = typeof value === 'string' ? new TextEncoder().encode(value) : value instanceof Buffer ? new Uint8Array(value) : new TextEncoder().encode(JSON.stringify(value));
    const shown = Buffer.from(body).toString('latin1').slice(0, 80);
    let expected = '';
    try {
      parseRenderRequest(body, composition);
    } catch (err) {
      expected = (err as Error).message;
    }
    assert.ok(expected, `the contract accepts ${shown}`);
    const res = await send(body);
    const json = (await res.json()) as { error?: string };
    assert.is(res.status, 400, `${shown}: status ${res.status} ${JSON.stringify(json)}`);
    assert.is(json.error, expected, shown);
  }
}

/** POSTs a raw body (a string or bytes) and returns the response. */
export function post(url: string, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
}

/**
 * A 60 KiB `title` for the long-variable fixture, sent as Latin-1: each byte is not UTF-8 and
 * decodes to U+FFFD (3 bytes in UTF-8), so serialised it is 180 KiB, past Linux's 128 KiB cap on
 * one argument. The body stays within the 64 KiB contract.
 */
export const LONG_TITLE_LENGTH = 60 * 1024;
export const LONG_TITLE_BODY = new Uint8Array(Buffer.concat([Buffer.from('{"variables": {"title": "'), Buffer.alloc(LONG_TITLE_LENGTH, 0xe9), Buffer.from('"}}')]));

/**
 * Copies a fixture composition into a template's compositions directory, as each template's
 * README says to swap the composition; returns its name there. The copy is replaced if present.
 */
export function installFixtureComposition(fixture: string, compositionsDir: string): string {
  const name = `vidkit-test-${fixture}`;
  fs.rmSync(path.join(compositionsDir, name), { recursive: true, force: true });
  fs.cpSync(path.join(FIXTURES, fixture), path.join(compositionsDir, name), { recursive: true });
  return name;
}

/** Asserts an MP4 is the long-variable fixture at 320x180 and 5 fps, grey by the whole title's length. */
export function assertLongTitleRender(bytes: Uint8Array): void {
  const file = path.join(tempDir('vidkit-template-'), 'render.mp4');
  fs.writeFileSync(file, bytes);
  const video = ffprobe(file).streams.find((s) => s.codec_type === 'video');
  assert.equal([video?.codec_name, video?.width, video?.height, video?.nb_read_frames], ['h264', 320, 180, '5']);
  const level = Math.floor(LONG_TITLE_LENGTH / 256);
  const pixel = rgbAt(decodeRgbFrame(file, 0, 320, 180), 320, 160, 90);
  assert.ok(pixel.every((v) => Math.abs(v - level) <= 6), `pixel ${pixel}, expected grey ${level}: the title did not arrive whole`);
}

/**
 * Marks the processes of one template server: every process it starts inherits the variable, the
 * render's vidkit and browser processes included.
 */
export function processMarker(): { env: { XDG_VIDKIT_TEST_RUN: string }; entry: string } {
  const id = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  // An XDG_ name, because vidkit starts Chromium with only the variables its allowlist names: the
  // marker has to reach the browser too, or a browser left running would go unseen.
  return { env: { XDG_VIDKIT_TEST_RUN: id }, entry: `XDG_VIDKIT_TEST_RUN=${id}` };
}

export interface MarkedProcess {
  pid: number;
  ppid: number;
  /** Its arguments joined by spaces. */
  cmdline: string;
}

/** Every process carrying the marker in its environment. */
export function markedProcesses(marker: string): MarkedProcess[] {
  return processTable()
    .filter((p) => processEnvironment(p.pid)?.includes(marker))
    .map((p) => ({ pid: p.pid, ppid: p.ppid, cmdline: p.cmdline.split('\0').join(' ') }));
}

/** The vidkit render and browser processes carrying the marker: `pid command line` each. */
export function renderProcesses(marker: string): string[] {
  return markedProcesses(marker)
    .filter((p) => /chrom|\/cli\/main\.js render /.test(p.cmdline))
    .map((p) => `${p.pid} ${p.cmdline.slice(0, 160)}`);
}

/**
 * POSTs a render that is to time out, waits until its browser is running (so there is one to leave
 * behind), and returns the response and what still runs once the template has answered.
 */
export async function renderPastTimeout(send: () => Promise<Response>, marker: string): Promise<{ res: Response; left: string[] }> {
  let settled = false;
  const pending = send().finally(() => (settled = true));
  let browserSeen = false;
  while (!settled && !browserSeen) {
    browserSeen = renderProcesses(marker).some((p) => /chrom/.test(p));
    await new Promise((r) => setTimeout(r, 100));
  }
  const res = await pending;
  assert.ok(browserSeen, 'the render ended before its browser started: nothing was left to stop');
  // Killed processes vanish within moments; give them until a deadline.
  let left = renderProcesses(marker);
  for (let i = 0; left.length > 0 && i < 50; i++) {
    await new Promise((r) => setTimeout(r, 100));
    left = renderProcesses(marker);
  }
  return { res, left };
}

/** Sends three renders at once to a template whose queue holds one waiting; returns them in order of status. */
export async function threeAtOnce(send: () => Promise<Response>): Promise<Response[]> {
  const answers = await Promise.all([send(), send(), send()]);
  return answers.sort((a, b) => a.status - b.status);
}

/** Asserts a 429 says the queue of `waiting` is full, with a whole number of seconds in Retry-After. */
export async function assertQueueFull(res: Response, waiting = 1): Promise<void> {
  assert.is(res.status, 429);
  const retryAfter = res.headers.get('retry-after') ?? '';
  assert.match(retryAfter, /^[1-9][0-9]*$/, `Retry-After: ${retryAfter}`);
  const { error } = (await res.json()) as { error: string };
  assert.is(error, `the render queue is full (${waiting} waiting, RENDER_MAX_WAITING); retry after ${retryAfter} s`);
}

/** What the timeout answers, the same in the three templates. */
export const TIMEOUT_ERROR = /^render timed out after 3 s \(RENDER_TIMEOUT_SECONDS\) and was stopped/;
/** The limits the queue and timeout tests run a template with: one waiting, a 3 s timeout. */
export const TIGHT_LIMITS = { RENDER_MAX_WAITING: '1', RENDER_TIMEOUT_SECONDS: '3' };

/**
 * What a finished render left in a template process's TMPDIR: every entry but the warm pool's own
 * directory (`vidkit-pool-*`: the browser profile and fetched assets it keeps between requests),
 * and in that directory anything but those (an output or a segment of the render).
 */
export function renderLeftovers(tmp: string): string[] {
  return fs.readdirSync(tmp).flatMap((entry) => {
    if (!entry.startsWith('vidkit-pool-')) return [entry];
    return fs
      .readdirSync(path.join(tmp, entry))
      .filter((inside) => inside !== 'assets' && !/^profile-\d+-\d+$/.test(inside))
      .map((inside) => `${entry}/${inside}`);
  });
}

/** The load test: this many renders at once, with this many allowed to wait behind the running one. */
export const BURST = 20;
export const BURST_MAX_WAITING = 3;

export interface BurstResult {
  /** The 429s, as answered. */
  refused: Response[];
  /** Each accepted render's final answer (the MP4, or its error). */
  finished: Response[];
  /** The most renders seen in flight at once, sampled every 20 ms. */
  maxInFlight: number;
  /** Whether a render was ever seen in flight (so the sampling saw them). */
  seen: boolean;
}

/**
 * Sends {@link BURST} renders at once to a template process that has not rendered this
 * composition yet (its first render launches a browser, so every request arrives while it runs),
 * follows each accepted one to its end with `finish` (the answer itself, or a poll), and samples
 * `inFlight` (renders under way in the process) until all have ended.
 */
export async function renderBurst(send: () => Promise<Response>, finish: (accepted: Response) => Promise<Response>, inFlight: () => number): Promise<BurstResult> {
  let running = true;
  let maxInFlight = 0;
  let seen = false;
  const sampler = (async () => {
    while (running) {
      const n = inFlight();
      maxInFlight = Math.max(maxInFlight, n);
      seen ||= n > 0;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  try {
    const answers = await Promise.all(Array.from({ length: BURST }, () => send()));
    const refused = answers.filter((r) => r.status === 429);
    const finished = await Promise.all(answers.filter((r) => r.status !== 429).map(finish));
    return { refused, finished, maxInFlight, seen };
  } finally {
    running = false;
    await sampler;
  }
}

/**
 * Asserts what the burst must give: one render at a time, {@link BURST_MAX_WAITING} waiting, the
 * rest 429 with Retry-After, and every accepted render an MP4 of the all-variable-types fixture.
 */
export async function assertBurst(result: BurstResult): Promise<void> {
  assert.ok(result.seen, 'no render was ever seen in flight');
  assert.is(result.maxInFlight, 1, 'renders ran at the same time');
  assert.is(result.refused.length, BURST - 1 - BURST_MAX_WAITING, `${result.refused.length} refused`);
  for (const res of result.refused) await assertQueueFull(res, BURST_MAX_WAITING);
  assert.is(result.finished.length, 1 + BURST_MAX_WAITING);
  for (const res of result.finished) {
    assert.is(res.status, 200, `${res.status}: ${res.status === 200 ? '' : await res.text()}`);
    assertAllTypesRender(new Uint8Array(await res.arrayBuffer()));
  }
}

/** Renders under way in a template process whose TMPDIR is `tmp`: the warm pool's render-<n> directories, each there while its frames are captured and encoded. */
export function rendersInFlight(tmp: string): number {
  return fs
    .readdirSync(tmp)
    .filter((e) => e.startsWith('vidkit-pool-'))
    .flatMap((pool) => {
      try {
        return fs.readdirSync(path.join(tmp, pool)).filter((e) => /^render-\d+$/.test(e));
      } catch {
        return [];
      }
    }).length;
}

/**
 * Asserts that once a template process has stopped, nothing it started still runs (found by the
 * marker in their environment) and its TMPDIR is empty; what it started stops on its own (the end
 * of its stdin, the exit of its parent), so they get until a deadline.
 */
export async function assertNothingLeft(marker: string, tmp: string): Promise<void> {
  const left = () => [...markedProcesses(marker).map((p) => p.cmdline.slice(0, 120)), ...fs.readdirSync(tmp)];
  for (const deadline = Date.now() + 15_000; left().length > 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 200));
  assert.equal(left(), [], 'processes or files outlived the template process');
}

/** Asserts an MP4 is the all-variable-types fixture at 320x180, 5 fps: three frames filled red by ALL_TYPES_VARIABLES. */
export function assertAllTypesRender(bytes: Uint8Array): void {
  const file = path.join(tempDir('vidkit-template-'), 'render.mp4');
  fs.writeFileSync(file, bytes);
  const video = ffprobe(file).streams.find((s) => s.codec_type === 'video');
  assert.equal([video?.codec_name, video?.width, video?.height, video?.nb_read_frames], ['h264', 320, 180, '3']);
  const [r, g, b] = rgbAt(decodeRgbFrame(file, 2, 320, 180), 320, 300, 170);
  assert.ok(r > 230 && g < 25 && b < 25, `fill pixel ${[r, g, b]}`);
}
