import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer-core';
import { ExitCode, VidkitError, errorMessage } from '../errors';

/** How frames are taken from the page. */
export type CaptureMode = 'beginframe' | 'screenshot';
/** Whether the browser composites on a GPU or in software (SwiftShader). */
export type GlMode = 'gpu' | 'software';

export interface BrowserProfile {
  executablePath: string;
  version: string;
  capture: CaptureMode;
  gl: GlMode;
  /** The WebGL renderer string the probe saw, for the report line. */
  glRenderer: string;
}

const CANDIDATES = [
  '/usr/bin/chromium-headless-shell',
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
];

/** `VIDKIT_BROWSER`, else the first Chromium found on this machine. */
export function findBrowser(): string {
  const fromEnv = process.env.VIDKIT_BROWSER;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) {
      throw new VidkitError(`VIDKIT_BROWSER=${fromEnv} is not an executable file`, { exitCode: ExitCode.MissingDependency });
    }
    return fromEnv;
  }
  const found = CANDIDATES.find(isExecutable);
  if (!found) {
    throw new VidkitError(
      'no Chromium found: install it (apt-get install chromium-headless-shell) or set VIDKIT_BROWSER to a Chromium binary',
      { exitCode: ExitCode.MissingDependency },
    );
  }
  return found;
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

// The closed network here refuses Chromium's background connections; these flags stop it trying.
const BASE_ARGS = [
  '--no-sandbox',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--disable-extensions',
  '--hide-scrollbars',
  '--mute-audio',
  // A Chromium renderer process takes text hinting from fontconfig, slight by default; only
  // --single-process (begin-frame capture) obeys this switch. Slight makes frames draw text as a
  // page in a browser (the player) does: with `none` they differed (37-39 dB at 960x540).
  '--font-render-hinting=slight',
  '--force-color-profile=srgb',
];

// Begin-frame control: the compositor draws only when we ask, so a frame is exactly one seek.
// One process per browser: 30% less memory per worker and a little faster than a browser, GPU and
// renderer process each (ui-3d-reveal 1080p, 3 workers: 1.5 GB and 18.6 s against 2.2 GB and 20.1 s).
const BEGIN_FRAME_ARGS = ['--deterministic-mode', '--disable-threaded-animation', '--disable-threaded-scrolling', '--single-process', '--no-zygote'];

// Software: CPU compositing and raster, 3x faster than compositing through SwiftShader GL at 1080p
// (7.5 vs 2.4 fps on ui-3d-reveal, 2 cores); WebGL still runs, on SwiftShader.
const GL_ARGS: Record<GlMode, string[]> = {
  software: ['--disable-gpu', '--enable-unsafe-swiftshader'],
  gpu: ['--enable-gpu', '--ignore-gpu-blocklist', '--use-angle=vulkan', '--enable-features=Vulkan', '--enable-gpu-rasterization'],
};

const SOFTWARE_RENDERER = /swiftshader|llvmpipe|softpipe|lavapipe|software|no webgl/i;

/**
 * `scale` renders the page's CSS pixels at that many device pixels each. It is a launch flag, not
 * an emulation setting, because begin-frame screenshots ignore the emulated scale factor.
 */
export async function launchBrowser(profile: Pick<BrowserProfile, 'executablePath' | 'capture' | 'gl'>, scale = 1): Promise<Browser> {
  const args = [
    ...BASE_ARGS,
    ...GL_ARGS[profile.gl],
    ...(profile.capture === 'beginframe' ? BEGIN_FRAME_ARGS : []),
    ...(scale !== 1 ? [`--force-device-scale-factor=${scale}`] : []),
  ];
  try {
    return await puppeteer.launch({
      executablePath: profile.executablePath,
      headless: 'shell',
      pipe: true,
      args,
      defaultViewport: null,
      protocolTimeout: 120_000,
    });
  } catch (err) {
    throw new VidkitError(`could not start ${profile.executablePath}: ${errorMessage(err).split('\n')[0]}`, {
      exitCode: ExitCode.MissingDependency,
    });
  }
}

/** Options a user can set; `auto` means probe. */
export interface ProfileRequest {
  executablePath: string;
  capture: CaptureMode | 'auto';
  /** `--no-browser-gpu` forces software GL without probing. */
  allowGpu: boolean;
}

/**
 * Decides capture and GL once per browser binary: beginFrame where the browser has it
 * (headless shell), screenshots otherwise; GPU where a hardware WebGL renderer shows up.
 * The answer is cached by binary path and modification time, so later renders skip the probe.
 */
export async function resolveProfile(req: ProfileRequest): Promise<BrowserProfile> {
  const probed = await cachedProbe(req.executablePath);
  const capture = req.capture === 'auto' ? probed.capture : req.capture;
  const gl: GlMode = req.allowGpu && probed.gl === 'gpu' ? 'gpu' : 'software';
  return { executablePath: req.executablePath, version: probed.version, capture, gl, glRenderer: req.allowGpu ? probed.glRenderer : 'SwiftShader (forced by --no-browser-gpu)' };
}

interface ProbeResult {
  key: string;
  version: string;
  capture: CaptureMode;
  gl: GlMode;
  glRenderer: string;
}

function probeCachePath(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'vidkit', 'browser-probe.json');
}

async function cachedProbe(executablePath: string): Promise<ProbeResult> {
  const real = fs.realpathSync(executablePath);
  const key = `${real}@${fs.statSync(real).mtimeMs}`;
  const file = probeCachePath();
  let cache: Record<string, ProbeResult> = {};
  try {
    cache = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    // No cache yet, or an unreadable one: probe and rewrite it.
  }
  if (cache[key]) return cache[key];
  const result = await probe(executablePath, key);
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ ...cache, [key]: result }, null, 2));
    fs.renameSync(tmp, file);
  } catch {
    // A read-only home only costs a probe per render.
  }
  return result;
}

async function probe(executablePath: string, key: string): Promise<ProbeResult> {
  const browser = await launchBrowser({ executablePath, capture: 'beginframe', gl: 'gpu' });
  try {
    const version = await browser.version();
    let page = await controlledPage(browser);
    const capture: CaptureMode = page ? 'beginframe' : 'screenshot';
    page ??= await browser.newPage();
    const glRenderer = await page.evaluate(() => {
      const gl = document.createElement('canvas').getContext('webgl');
      if (!gl) return 'no WebGL';
      const info = gl.getExtension('WEBGL_debug_renderer_info');
      return String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    });
    return { key, version, capture, gl: SOFTWARE_RENDERER.test(glRenderer) ? 'software' : 'gpu', glRenderer };
  } finally {
    await browser.close().catch(() => undefined);
  }
}

const PROBE_TIMEOUT_MS = 5000;

/** A page under begin-frame control that answers a beginFrame, or null: a full Chromium has none. */
async function controlledPage(browser: Browser): Promise<Page | null> {
  const attempt = async (): Promise<Page | null> => {
    const page = await openControlledPage(browser);
    const client = await page.createCDPSession();
    await client.send('HeadlessExperimental.beginFrame', { noDisplayUpdates: true });
    return page;
  };
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), PROBE_TIMEOUT_MS).unref());
  return Promise.race([attempt().catch(() => null), timeout]);
}

/** Opens a page whose compositor draws only on HeadlessExperimental.beginFrame. */
export async function openControlledPage(browser: Browser): Promise<Page> {
  const cdp = await browser.target().createCDPSession();
  const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank', enableBeginFrameControl: true });
  const target = await browser.waitForTarget((t) => (t as unknown as { _targetId: string })._targetId === targetId);
  const page = await target.page();
  if (!page) throw new VidkitError('the browser did not open a page for capture');
  // The default tab would otherwise compete for the compositor.
  for (const other of await browser.pages()) if (other !== page) await other.close();
  return page;
}
