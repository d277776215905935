import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { closeBrowser, findBrowser, launchBrowser, resolveProfile } from '../render/browser/browser';
import { serveProject } from '../render/serve/project-server';
import { ServingCli, tempDir, vidkitAsync, vidkitServe } from '../test-support/cli';
import { decodeImageRgb, decodeRgbFrame, rgbAt } from '../test-support/media';
import { descendants } from '../test-support/processes';
import { FILE_WAYS, fileWaysProject } from '../test-support/ways-out';

// docs/explanation/security-model.md: what a page may read of this machine's files, whatever the command,
// and the browser it runs in. What must never be reachable: paths that climb out (`..` in any
// spelling), dotfiles, file: URLs, a link to a hidden file (inside the project or out), and a link inside a folder the project
// links to that leads further out (the project's own links are followed: their author made them).
const work = tempDir('vidkit-confinement-test-');
const project = fileWaysProject(path.join(work, 'project'), path.join(work, 'outside'));

const pages = suite('security: what a page can read');

/** Which of the file-ways cells of an RGB frame (320x180) are red: the ways that got through. */
function redCells(rgb: Buffer): string[] {
  return FILE_WAYS.filter((_, i) => {
    const [r, g, b] = rgbAt(rgb, 320, (i % 4) * 80 + 40, Math.floor(i / 4) * 45 + 22);
    return r > 200 && g < 60 && b < 60;
  });
}
/** The controls read project files by the same means: they must turn red, or the check sees nothing. */
const CONTROLS = ['control-fetch', 'control-iframe', 'control-link'];

pages('vidkit render, vidkit still and vidkit render --batch: no way reads a file outside the project, a dotfile or through a link to one', async () => {
  const video = path.join(work, 'file-ways.mp4');
  const rendered = await vidkitAsync(['render', project, '--output', video, '--workers', '1']);
  assert.is(rendered.status, 0, rendered.stderr);
  assert.equal(redCells(decodeRgbFrame(video, 0, 320, 180)), CONTROLS);

  const image = path.join(work, 'file-ways.png');
  const still = await vidkitAsync(['still', project, '--output', image]);
  assert.is(still.status, 0, still.stderr);
  assert.equal(redCells(decodeImageRgb(image)), CONTROLS);

  const batch = path.join(work, 'file-ways.jsonl');
  fs.writeFileSync(batch, `${JSON.stringify({ outputKey: 'row.mp4', variables: {} })}\n`);
  const batched = await vidkitAsync(['render', project, '--batch', batch, '--output-dir', path.join(work, 'batch')]);
  assert.is(batched.status, 0, batched.stderr);
  assert.equal(redCells(decodeRgbFrame(path.join(work, 'batch', 'row.mp4'), 0, 320, 180)), CONTROLS);
});

/** A GET of `rawPath` exactly as written (no client-side normalisation), with the server's own Host. */
function rawGet(base: string, rawPath: string, headers: http.OutgoingHttpHeaders = {}): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: rawPath, headers: { host: url.host, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('latin1').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every spelling of a path out of the project (or into a hidden file) this suite knows, each answered 404 or 400, never the file. */
const ESCAPES = [
  '/../outside/red.png',
  '/%2e%2e/outside/red.png',
  '/%2E%2E/outside/red.png',
  '/.%2e/outside/red.png',
  '/%2e./outside/red.png',
  '/..%2foutside/red.png',
  '/..%2Foutside/red.png',
  '/%2e%2e%2foutside%2fred.png',
  '/..%5coutside%5cred.png',
  '/..\\outside\\red.png',
  '/%252e%252e/outside/red.png',
  '/%c0%ae%c0%ae/outside/red.png',
  '/%e0%80%ae%e0%80%ae/outside/red.png',
  '/sub/../../outside/red.png',
  '//../outside/red.png',
  '/shared/escape.png',
  '/public.png',
  '/env.png',
  '/.hidden.png',
  '/%2ehidden.png',
  '/.git/red.png',
  '/%2egit/red.png',
  '/.%67it/red.png',
  `/${path.join(work, 'outside', 'red.png')}`,
  `/file://${path.join(work, 'outside', 'red.png')}`,
  'http://evil.example/../outside/red.png',
];

async function assertConfined(base: string): Promise<void> {
  const red = fs.readFileSync(path.join(project, 'visible.png'), 'latin1');
  assert.is((await rawGet(base, '/visible.png')).body, red, 'the control file is served');
  for (const rawPath of ESCAPES) {
    const answer = await rawGet(base, rawPath);
    assert.ok(answer.status === 404 || answer.status === 400, `${rawPath}: HTTP ${answer.status}`);
    assert.is.not(answer.body, red, `${rawPath} served the red file`);
  }
}

pages("the render's project server: `..` in every spelling, dotfiles and links out or to a dotfile are never served", async () => {
  const server = await serveProject(project);
  try {
    await assertConfined(server.url);
  } finally {
    await server.close();
  }
});

let preview: ServingCli | undefined;
pages.after(async () => {
  await preview?.stop();
});

pages('vidkit preview: the same confinement; a service worker script is refused unless --allow-service-workers', async () => {
  preview = await vidkitServe(['preview', project, '--port', '0']);
  await assertConfined(preview.url);
  const asWorker = { 'service-worker': 'script' };
  assert.is((await rawGet(preview.url, '/visible.html', asWorker)).status, 403);
  assert.is((await rawGet(preview.url, '/visible.html')).status, 200);
  assert.is(await preview.stop(), 0);
  preview = await vidkitServe(['preview', project, '--port', '0', '--allow-service-workers']);
  assert.is((await rawGet(preview.url, '/visible.html', asWorker)).status, 200);
});

const sandbox = suite("security: Chromium's sandbox and environment");

sandbox("the page's renderer runs in Chromium's sandbox (seccomp, a user and a network namespace of its own), and no browser process holds vidkit's AWS keys", async () => {
  const secret = 'canary-secret-key-0123456789';
  const outer = process.env.AWS_SECRET_ACCESS_KEY;
  process.env.AWS_SECRET_ACCESS_KEY = secret;
  const profile = await resolveProfile({ executablePath: findBrowser(), capture: 'auto', allowGpu: false });
  // This machine allows user namespaces: the probe found the sandbox (vidkit doctor says so too).
  assert.ok(profile.sandbox.on, profile.sandbox.detail);
  const browser = await launchBrowser(profile);
  try {
    const page = await browser.newPage();
    await page.goto('data:text/html,<p>sandboxed</p>');
    const processes = browserProcesses(browser.process()!.pid!);
    const renderers = processes.filter((p) => p.args.includes('--type=renderer'));
    assert.ok(renderers.length > 0, 'no renderer process');
    const own = (pid: number | 'self', ns: string) => fs.readlinkSync(`/proc/${pid}/ns/${ns}`);
    for (const renderer of renderers) {
      assert.match(fs.readFileSync(`/proc/${renderer.pid}/status`, 'utf8'), /^Seccomp:\s+2$/m, `renderer ${renderer.pid} has no seccomp filter`);
      assert.is.not(own(renderer.pid, 'user'), own('self', 'user'));
      assert.is.not(own(renderer.pid, 'net'), own('self', 'net'));
    }
    for (const { pid, environ } of processes) assert.not.ok(environ.includes(secret), `browser process ${pid} holds the AWS secret`);
    // What vidkit does give the browser is there to read, so the check would see the secret. (Its
    // child processes rewrite that memory for their process titles.)
    assert.match(processes[0].environ, /FONTCONFIG_FILE=/, 'the browser process has not the environment vidkit gave it');
  } finally {
    await closeBrowser(browser);
    if (outer === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    else process.env.AWS_SECRET_ACCESS_KEY = outer;
  }
});

/** The browser's processes: `root` and everything under it, with their arguments and environment. */
function browserProcesses(root: number): Array<{ pid: number; args: string; environ: string }> {
  return [root, ...descendants(root)].map((pid) => ({
    pid,
    args: fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '),
    environ: fs.readFileSync(`/proc/${pid}/environ`, 'utf8'),
  }));
}

pages.run();
sandbox.run();
