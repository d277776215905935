import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { errorMessage } from '../errors';
import { bundledFamilies, fontsStylesheet } from '../fonts/bundled-fonts';
import { FALLBACK_PACKAGES } from '../fonts/fallback-fonts';
import { browserFontconfig, fallbackFontDir } from '../fonts/fontconfig';
import { SCRIPT_SAMPLES } from '../fonts/script-samples';
import { surveyGlyphs } from '../render/glyph-survey';
import { loadNative, missingAddonHint, nativePackage } from '../native';
import { closeBrowser, findBrowser, gpuDevices, launchBrowser, resolveProfile } from '../render/browser/browser';
import { SandboxProbe, runsAsRoot } from '../render/browser/browser-sandbox';
import { withDeadline } from '../render/browser/deadline';
import { CheckResult, ok, problem, skipped, warning } from './check';

const INSTALL_BROWSER = 'apt-get install chromium-headless-shell, or set VIDKIT_BROWSER to a Chromium binary';
/** Milliseconds the browser may take to start and report its version, beyond the probe's own deadlines. */
const BROWSER_MS = 30_000;

/**
 * The browser a render would use, whether it starts now, and what the probe decided for it: capture
 * mode and GL (docs/guide/render.md). The probe's cached answer is reused, as a render does.
 */
export async function browserChecks(): Promise<CheckResult[]> {
  let executablePath: string;
  try {
    executablePath = findBrowser();
  } catch (err) {
    return [
      problem('browser', true, errorMessage(err), INSTALL_BROWSER),
      skipped('capture', true, 'no browser to probe'),
      skipped('gl', false, 'no browser to probe'),
      skipped('sandbox', false, 'no browser to probe'),
    ];
  }
  try {
    const profile = await withDeadline(resolveProfile({ executablePath, capture: 'auto', allowGpu: true }), BROWSER_MS, () => 'the browser probe did not finish');
    const browser = await launchBrowser(profile);
    try {
      await withDeadline(browser.version(), BROWSER_MS, () => 'the browser did not report its version');
    } finally {
      await closeBrowser(browser);
    }
    const capture =
      profile.capture === 'beginframe'
        ? ok('capture', true, 'begin-frame: each frame is drawn when asked (headless shell)')
        : warning('capture', true, 'screenshots: this Chromium has no begin-frame control, renders are slower', `apt-get install chromium-headless-shell (${executablePath} is a full Chromium)`);
    return [ok('browser', true, `${executablePath} (${profile.version})`), capture, glCheck(profile.gl, profile.glRenderer), sandboxCheck(profile.sandbox)];
  } catch (err) {
    return [
      problem('browser', true, `${executablePath} does not start: ${errorMessage(err).split('\n')[0]}`, `run ${executablePath} --headless --version to see what it lacks, or ${INSTALL_BROWSER}`),
      skipped('capture', true, 'the browser did not start'),
      skipped('gl', false, 'the browser did not start'),
      skipped('sandbox', false, 'the browser did not start'),
    ];
  }
}

function glCheck(gl: 'gpu' | 'software', renderer: string): CheckResult {
  if (gl === 'gpu') return ok('gl', false, `GPU: ${renderer}`);
  const devices = gpuDevices();
  if (devices.length === 0) return ok('gl', false, `software (SwiftShader): no GPU device in /dev, as on most servers`);
  return warning(
    'gl',
    false,
    `software, though ${devices.join(', ')} exist: ${renderer}`,
    "install the GPU's Vulkan driver (mesa-vulkan-drivers, or the NVIDIA driver's Vulkan ICD) so Chromium can use it; renders work in software meanwhile",
  );
}

/**
 * Whether the page's renderer runs in Chromium's sandbox (docs/explanation/security-model.md). Without it (no
 * user namespaces: AWS Lambda, a container whose seccomp profile forbids them) a render still works,
 * and the egress gate and the environment kept from the browser still hold.
 */
function sandboxCheck(sandbox: SandboxProbe): CheckResult {
  if (sandbox.on) return ok('sandbox', false, `Chromium's sandbox: ${sandbox.detail}`);
  return warning(
    'sandbox',
    false,
    `off: ${sandbox.detail}; pages run without Chromium's sandbox (as in AWS Lambda, which has no user namespaces)`,
    runsAsRoot() && sandbox.detail.includes('unshare')
      ? 'apt-get install util-linux (unshare), or run vidkit as a user other than root'
      : 'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0), or in a container a seccomp profile that permits them',
  );
}

/** The native addon loads, and which libav it carries. */
export function addonCheck(): CheckResult {
  try {
    const info = loadNative().nativeInfo();
    return ok('addon', true, `vidkit addon ${info.version}, libavcodec ${info.libavcodec}, libavformat ${info.libavformat}`);
  } catch (err) {
    const pkg = nativePackage();
    return problem('addon', true, errorMessage(err).split('. ')[0], pkg === undefined ? 'use Linux x64 with glibc' : missingAddonHint(pkg));
  }
}

const REINSTALL = 'reinstall vidkit (npm install; from a checkout, npm run build:ts): a font package or dist/fallback-fonts is incomplete';

/**
 * The bundled web fonts resolve, the faces fontconfig gives the browser are there, and the browser
 * draws a name in each script of {@link SCRIPT_SAMPLES}: a page of them goes through the render's
 * own glyph check (no browser: skipped, as the browser check has failed).
 */
export async function fontsCheck(): Promise<CheckResult> {
  try {
    fontsStylesheet();
    const fallback = fallbackFontDir();
    const ttf = fs.existsSync(fallback) ? fs.readdirSync(fallback).filter((f) => f.endsWith('.ttf')).length : 0;
    if (ttf === 0) return problem('fonts', true, `no system faces in ${fallback}`, 'reinstall vidkit (npm install): its dejavu-fonts-ttf dependency is incomplete');
  } catch (err) {
    return problem('fonts', true, errorMessage(err).split('\n')[0], REINSTALL);
  }
  try {
    findBrowser();
  } catch {
    return skipped('fonts', true, 'no browser to draw the scripts with');
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-doctor-fonts-'));
  try {
    const lines = SCRIPT_SAMPLES.map((s) => `<p id="${s.id}">${s.text}</p>`).join('');
    fs.writeFileSync(
      path.join(dir, 'index.html'),
      `<!doctype html><html><body><div data-composition-id="doctor-fonts" data-width="640" data-height="480" data-duration="0.1">${lines}</div></body></html>`,
    );
    const missing = await withDeadline(surveyGlyphs(dir), BROWSER_MS * 2, () => 'the browser did not draw the scripts');
    const lacking = SCRIPT_SAMPLES.flatMap((s) => {
      const found = missing.find((m) => m.element === `p#${s.id}`);
      return found ? [`${s.script} (${found.characters.join(' ')})`] : [];
    });
    if (lacking.length > 0) return problem('fonts', true, `no font draws ${lacking.join(', ')}`, REINSTALL);
    return ok(
      'fonts',
      true,
      `${bundledFamilies().length} bundled families, ${FALLBACK_PACKAGES.length} fallback faces; drawn: ${SCRIPT_SAMPLES.map((s) => s.script).join(', ')}; the browser's fontconfig: ${browserFontconfig()}`,
    );
  } catch (err) {
    return problem('fonts', true, `the scripts could not be drawn: ${errorMessage(err).split('\n')[0]}`, REINSTALL);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
