import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freePort } from './ports';
import * as assert from 'uvu/assert';
import { findBrowser, launchBrowser } from '../render/browser';
import { REPO_ROOT, tempDir } from './cli';
import { decodeRgbFrame, ffprobe, rgbAt } from './media';

export const TEMPLATES = path.join(REPO_ROOT, 'templates');
/** How the templates' local adapters run vidkit: the built CLI of this checkout. */
export const LOCAL_VIDKIT_CLI = `${process.execPath} ${path.join(REPO_ROOT, 'dist', 'cli', 'main.js')}`;

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
 * Opens the preview page in headless Chromium, waits until `<vidkit-player>` shows its composition
 * and returns the standard deviation of the screenshot's luma over the player: 0 for a blank frame.
 */
export async function previewFrameSpread(pageUrl: string): Promise<number> {
  const browser = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1100, height: 700 });
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
    // Let the composition play into its first animations.
    await new Promise((r) => setTimeout(r, 1500));
    const player = await page.$('vidkit-player');
    const png = (await player!.screenshot({ type: 'png' })) as Uint8Array;
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
  } finally {
    await browser.close();
  }
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
  ];
  for (const [what, body, message] of cases) {
    const { status, json } = await postJson(renderUrl, body);
    assert.is(status, 400, `${what}: status ${status} ${JSON.stringify(json)}`);
    assert.match(String(json.error), message, `${what}: ${JSON.stringify(json)}`);
  }
}
