import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer-core';
import { vidkitCacheDir } from '../../cache-dir';
import { ExitCode, VidkitError, errorMessage } from '../../errors';
import { browserFontconfig } from '../../fonts/fontconfig';
import { loadNative } from '../../native';
import { browserPreload } from './browser-preload';
import { NAMESPACE_UID, SandboxProbe, browserEnvironment, namespaceCommand, runsAsRoot, sandboxConditions } from './browser-sandbox';
import type { CaptureMode } from '../../values/capture-mode';
import { withDeadline } from './deadline';
import { hasSharedMemory } from './shared-memory';
import { killGroup, killGroupAndWait, trackProcess, untrackProcess } from './leftovers';

/** Whether the browser composites on a GPU or in software (SwiftShader). */
export type GlMode = 'gpu' | 'software';

export interface BrowserProfile {
  executablePath: string;
  version: string;
  capture: CaptureMode;
  gl: GlMode;
  /** The WebGL renderer string the probe saw, for the report line. */
  glRenderer: string;
  /** Chromium's own sandbox: on where this machine allows it (probed once), off with the reason elsewhere. */
  sandbox: SandboxProbe;
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
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--disable-extensions',
  '--hide-scrollbars',
  '--mute-audio',
  // No sound device: vidkit mixes the soundtrack itself. With one, PulseAudio's client left a
  // pulse-* directory in TMPDIR at every launch.
  '--disable-audio-output',
  // A Chromium renderer process takes text hinting from fontconfig, slight by default; only
  // --single-process (begin-frame capture) obeys this switch. Slight makes frames draw text as a
  // page in a browser (the player) does: with `none` they differed (37-39 dB at 960x540).
  '--font-render-hinting=slight',
  '--force-color-profile=srgb',
];

// Begin-frame control: the compositor draws only when we ask, so a frame is exactly one seek.
// A changed tile is repainted whole: repainting only its changed part left pixels that depend on
// the frames this browser drew before (a still box's edge, 1/255 apart between workers).
// The window is never shown: the page's viewport is the emulated one (capture-session.ts) and a
// begin-frame screenshot copies the page's own surface, so the window only makes the compositor
// draw the page a second time, into it. At 16x16 that draw is almost free: 2.5-4.5 ms less
// compositor time a 1080p frame on a page of ten moving cards than at the default 800x600, and
// the same screenshots.
const BEGIN_FRAME_ARGS = ['--deterministic-mode', '--disable-threaded-animation', '--disable-threaded-scrolling', '--disable-partial-raster', '--window-size=16,16'];
// Without the sandbox, one process per browser: 30% less memory per worker and a little faster than
// a browser, GPU and renderer process each (ui-3d-reveal 1080p, 3 workers: 1.5 GB and 18.6 s against
// 2.2 GB and 20.1 s). The sandbox confines a renderer process, so a sandboxed browser keeps its
// processes apart. Software GL only: a GPU process folded into the browser hung WebGL context
// creation on a machine without a GPU (Chromium 156, --use-angle=vulkan).
const SINGLE_PROCESS_ARGS = ['--single-process', '--no-zygote'];

// Software: CPU compositing and raster, 3x faster than compositing through SwiftShader GL at 1080p
// (7.5 vs 2.4 fps on ui-3d-reveal, 2 cores); WebGL still runs, on SwiftShader.
const GL_ARGS: Record<GlMode, string[]> = {
  software: ['--disable-gpu', '--enable-unsafe-swiftshader'],
  gpu: ['--enable-gpu', '--ignore-gpu-blocklist', '--use-angle=vulkan', '--enable-gpu-rasterization'],
};

/**
 * Chromium features turned on (one switch: a second --enable-features would replace the first).
 * CanvasDrawElement gives a canvas `drawElementImage`, which HyperFrames' shader transitions draw
 * their scenes with in a render, as HyperFrames launches its browser.
 */
const FEATURES: Record<GlMode, string[]> = { software: ['CanvasDrawElement'], gpu: ['CanvasDrawElement', 'Vulkan'] };

const SOFTWARE_RENDERER = /swiftshader|llvmpipe|softpipe|lavapipe|software|no webgl/i;

/** Milliseconds Chromium may take to start and answer on its pipe. */
const LAUNCH_TIMEOUT_MS = 30_000;
/** Milliseconds a browser may take to close before it is killed. */
const CLOSE_TIMEOUT_MS = 5_000;
/** Milliseconds a killed browser's processes may take to end before closing returns anyway. */
const KILL_WAIT_MS = 3_000;
/**
 * The protocol's own limit on any one call: a backstop behind the deadlines each step sets
 * (load, frame), so a call with none still ends.
 */
const PROTOCOL_TIMEOUT_MS = 180_000;

export interface LaunchOptions {
  /**
   * Renders the page's CSS pixels at that many device pixels each. A launch flag, not an emulation
   * setting, because begin-frame screenshots ignore the emulated scale factor.
   */
  scale?: number;
  /** The browser's profile directory; by default puppeteer makes one and removes it on close. */
  userDataDir?: string;
  /** The file its begin-frame screenshots' pixels go to (capture/frame-channel.ts). */
  frameChannel?: string;
  /** The switches of the egress gate its pages go out through (egress-gate.ts). */
  egress?: string[];
}

/**
 * Starts Chromium for `profile`: in its sandbox where the profile's probe found one (a browser
 * launched without a probed profile, as the tests' own are, runs without it).
 */
export async function launchBrowser(
  profile: Pick<BrowserProfile, 'executablePath' | 'capture' | 'gl'> & Partial<Pick<BrowserProfile, 'sandbox'>>,
  options: LaunchOptions = {},
): Promise<Browser> {
  const scale = options.scale ?? 1;
  const sandboxed = profile.sandbox?.on ?? false;
  const args = [
    ...BASE_ARGS,
    ...(sandboxed ? [] : ['--no-sandbox']),
    ...GL_ARGS[profile.gl],
    `--enable-features=${FEATURES[profile.gl].join(',')}`,
    ...(profile.capture === 'beginframe' ? BEGIN_FRAME_ARGS : []),
    ...(!sandboxed && profile.capture === 'beginframe' && profile.gl === 'software' ? SINGLE_PROCESS_ARGS : []),
    ...(hasSharedMemory() ? [] : ['--disable-dev-shm-usage']),
    ...(scale !== 1 ? [`--force-device-scale-factor=${scale}`] : []),
    ...(options.egress ?? []),
  ];
  // As root, the sandboxed browser runs as a user of its own namespace (browser-sandbox.ts), with
  // the arguments puppeteer would have given it.
  const wrapper = sandboxed && runsAsRoot() ? namespaceCommand() : undefined;
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath: wrapper?.file ?? profile.executablePath,
      headless: 'shell',
      pipe: true,
      ...(wrapper
        ? { ignoreDefaultArgs: true, args: [...wrapper.args, profile.executablePath, ...puppeteer.defaultArgs({ headless: 'shell', args, userDataDir: options.userDataDir })] }
        : { args, userDataDir: options.userDataDir }),
      defaultViewport: null,
      env: browserEnvironment({ FONTCONFIG_FILE: browserFontconfig(), ...preloadVariables(options.frameChannel) }),
      timeout: LAUNCH_TIMEOUT_MS,
      protocolTimeout: PROTOCOL_TIMEOUT_MS,
      // vidkit's own handlers clean up and choose the exit code (docs/reference/command-line.md).
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  } catch (err) {
    throw new VidkitError(`could not start ${profile.executablePath}: ${errorMessage(err).split('\n')[0]}`, {
      exitCode: ExitCode.MissingDependency,
    });
  }
  const proc = browser.process();
  if (proc) trackProcess(proc);
  return browser;
}

/** The preloaded library, and the frame channel it writes screenshots into (capture/frame-channel.ts). */
function preloadVariables(frameChannel: string | undefined): Record<string, string> {
  const file = browserPreload();
  if (file === undefined) return {};
  return { LD_PRELOAD: file, ...(frameChannel === undefined ? {} : { [loadNative().FRAME_CHANNEL_VARIABLE]: frameChannel }) };
}

/**
 * Closes `browser`, then kills its process group: what did not close in time (a page looping
 * forever) and any child a launcher script left behind.
 */
export async function closeBrowser(browser: Browser): Promise<void> {
  const proc = browser.process();
  try {
    await withDeadline(browser.close(), CLOSE_TIMEOUT_MS, () => 'the browser did not close');
  } catch {
    // Hung or already gone: the process is killed below either way.
  }
  if (proc) {
    await killGroupAndWait(proc, KILL_WAIT_MS);
    untrackProcess(proc);
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
 * Decides sandbox, capture and GL once per browser binary, in seconds, without ever failing the
 * render: Chromium's sandbox wherever a sandboxed browser starts here (user namespaces);
 * beginFrame where the browser has it (headless shell), screenshots otherwise; GPU only where this
 * machine has a GPU device and a browser of its own shows a hardware WebGL renderer in time.
 * Answers are cached by binary path and modification time (for the sandbox, also the user and
 * the kernel's namespace settings; for GL, the GPU devices seen).
 */
export async function resolveProfile(req: ProfileRequest): Promise<BrowserProfile> {
  const binary = binaryKey(req.executablePath);
  const sandbox = await cached(`sandbox:${binary}:${sandboxConditions()}`, () => probeSandbox(req.executablePath));
  const probed = await cached(`capture:${binary}:sandbox=${sandbox.on}`, () => probeCapture(req.executablePath, sandbox));
  const capture = req.capture === 'auto' ? probed.capture : req.capture;
  if (!req.allowGpu) {
    return { executablePath: req.executablePath, version: probed.version, capture, gl: 'software', glRenderer: 'SwiftShader (forced by --no-browser-gpu)', sandbox };
  }
  const devices = gpuDevices();
  const gl: GlProbe =
    devices.length === 0
      ? { gl: 'software', glRenderer: 'SwiftShader (no GPU device in /dev)' }
      : await cached(`gl:${binary}:${devices.join(',')}:sandbox=${sandbox.on}`, () => probeGl(req.executablePath, sandbox));
  return { executablePath: req.executablePath, version: probed.version, capture, ...gl, sandbox };
}

interface CaptureProbe {
  version: string;
  capture: CaptureMode;
}

interface GlProbe {
  gl: GlMode;
  glRenderer: string;
}

function binaryKey(executablePath: string): string {
  const real = fs.realpathSync(executablePath);
  return `${real}@${fs.statSync(real).mtimeMs}`;
}

/** Render nodes and NVIDIA devices: without one, a GPU probe can only find software GL. */
export function gpuDevices(): string[] {
  const list = (dir: string, match: RegExp) => {
    try {
      return fs.readdirSync(dir).filter((name) => match.test(name)).map((name) => path.join(dir, name));
    } catch {
      return [];
    }
  };
  return [...list('/dev/dri', /^renderD\d+$/), ...list('/dev', /^nvidia\d+$/)];
}

function probeCachePath(): string {
  return path.join(vidkitCacheDir(), 'browser-probe.json');
}

async function cached<T>(key: string, probe: () => Promise<T>): Promise<T> {
  const file = probeCachePath();
  let cache: Record<string, T> = {};
  try {
    cache = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    // No cache yet, or an unreadable one: probe and rewrite it.
  }
  if (cache[key]) return cache[key];
  const result = await probe();
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

/** Milliseconds the begin-frame check may take before the browser counts as having none. */
const CAPTURE_PROBE_MS = 5_000;
/** Milliseconds the GPU browser may take to report its WebGL renderer. */
const GL_PROBE_MS = 10_000;

/** Milliseconds a sandboxed browser may take to draw a page before the sandbox counts as unavailable. */
const SANDBOX_PROBE_MS = 15_000;

/**
 * Whether Chromium starts with its sandbox here and runs a page in it: a sandboxed browser dumps a
 * page's DOM. Where the kernel or a container forbids user namespaces (AWS Lambda, Docker's
 * default seccomp profile), Chromium refuses to start without `--no-sandbox`: the browser then
 * runs without it, and `vidkit doctor` says so.
 */
async function probeSandbox(executablePath: string): Promise<SandboxProbe> {
  const how = runsAsRoot() ? `as uid ${NAMESPACE_UID} of a user namespace of its own (vidkit runs as root, which Chromium refuses its sandbox to)` : 'user namespaces';
  const wrapper = runsAsRoot() ? namespaceCommand() : undefined;
  if (runsAsRoot() && !wrapper) {
    return { on: false, detail: 'vidkit runs as root, and util-linux unshare, which would start Chromium as another user, is not installed' };
  }
  const marker = 'vidkit-sandbox-probe';
  const args = ['--headless', '--no-first-run', '--disable-gpu', '--disable-extensions', '--dump-dom', `data:text/html,<p>${marker}</p>`];
  const command = wrapper ? [wrapper.file, ...wrapper.args, executablePath, ...args] : [executablePath, ...args];
  const run = await runWithDeadline(command, browserEnvironment({}), SANDBOX_PROBE_MS);
  if (run.stdout.includes(marker)) return { on: true, detail: how };
  // Chromium's own words, without its log prefix: "No usable sandbox! …" where namespaces are forbidden.
  const said = run.stderr.split('\n').find((line) => /sandbox/i.test(line)) ?? run.stderr.split('\n').find((line) => line.trim() !== '') ?? run.failure;
  return { on: false, detail: `Chromium's sandbox does not start here: ${said.replace(/^\[[^\]]*\]\s*/, '').split('. ')[0].trim()}` };
}

/** Runs `command` in a process group of its own, killed whole at the deadline; its output, and how it ended. */
function runWithDeadline(command: string[], env: Record<string, string>, timeoutMs: number): Promise<{ stdout: string; stderr: string; failure: string }> {
  return new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    trackProcess(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => killGroup(child), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      untrackProcess(child);
      resolve({ stdout, stderr, failure: errorMessage(err) });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      untrackProcess(child);
      resolve({ stdout, stderr, failure: signal ? `killed after ${timeoutMs / 1000} s (${signal})` : `exit code ${code}` });
    });
  });
}

/** Whether the browser answers a begin-frame, in the software browser renders use. */
async function probeCapture(executablePath: string, sandbox: SandboxProbe): Promise<CaptureProbe> {
  const browser = await launchBrowser({ executablePath, capture: 'beginframe', gl: 'software', sandbox });
  try {
    const version = await withDeadline(browser.version(), CAPTURE_PROBE_MS, () => 'the browser did not report its version');
    const answered = await withDeadline(
      (async () => {
        const page = await openControlledPage(browser);
        const client = await page.createCDPSession();
        await client.send('HeadlessExperimental.beginFrame', { noDisplayUpdates: true });
        return true;
      })(),
      CAPTURE_PROBE_MS,
      () => 'no begin-frame answer',
    ).catch(() => false);
    return { version, capture: answered ? 'beginframe' : 'screenshot' };
  } finally {
    await closeBrowser(browser);
  }
}

/** The WebGL renderer of a GPU browser; any failure or silence means software. */
async function probeGl(executablePath: string, sandbox: SandboxProbe): Promise<GlProbe> {
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser({ executablePath, capture: 'screenshot', gl: 'gpu', sandbox });
    const page = await browser.newPage();
    const glRenderer = await withDeadline(
      page.evaluate(() => {
        const gl = document.createElement('canvas').getContext('webgl');
        if (!gl) return 'no WebGL';
        const info = gl.getExtension('WEBGL_debug_renderer_info');
        return String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
      }),
      GL_PROBE_MS,
      () => `no WebGL answer within ${GL_PROBE_MS / 1000} s`,
    );
    return SOFTWARE_RENDERER.test(glRenderer) ? { gl: 'software', glRenderer } : { gl: 'gpu', glRenderer };
  } catch (err) {
    return { gl: 'software', glRenderer: `SwiftShader (GPU probe failed: ${errorMessage(err).split('\n')[0]})` };
  } finally {
    if (browser) await closeBrowser(browser);
  }
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
