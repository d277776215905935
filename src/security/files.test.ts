import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { built, errorLines, tempDir, vidkit, vidkitAsync } from '../test-support/cli';
import { decodeRgbFrame, rgbAt } from '../test-support/media';
import { NOISE, withSmallDisks } from '../test-support/small-disk';

// docs/reference/command-line.md and docs/guide/render.md ("Checked before any browser starts"): an output vidkit writes loses
// nothing of the user's, and what it keeps in TMPDIR goes, even after a SIGKILL. Every run here has
// a TMPDIR of its own, checked empty afterwards.
const work = tempDir('vidkit-files-test-');
const CLI = built('cli', 'main.js');

/**
 * A 160x90 project of `seconds` filled with its `fill` colour variable, and a media file of its
 * own; `noise` draws new random pixels every frame instead, which the encoder cannot compress.
 */
function project(name: string, seconds = 0.1, noise = false): string {
  const dir = path.join(work, name);
  fs.mkdirSync(path.join(dir, 'media'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html data-composition-variables='[{"id":"fill","type":"color","default":"#ff0000"}]'><head><style>html,body{margin:0}</style></head>
<body><div data-composition-id="${name}" data-width="160" data-height="90" data-duration="${seconds}"><div id="box" style="width:160px;height:90px"></div></div>
<script>document.getElementById('box').style.background = window.__vidkit.getVariables().fill;</script>
${noise ? NOISE : ''}</body></html>
`,
  );
  fs.writeFileSync(path.join(dir, 'media', 'intro.mp4'), 'the project’s own video');
  return dir;
}


/** A new, empty TMPDIR, and the environment that gives it to vidkit. */
function privateTmp(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir('vidkit-files-tmp-');
  return { dir, env: { TMPDIR: dir } };
}

/** What a run left in its TMPDIR. */
const leftIn = (dir: string) => fs.readdirSync(dir);

/** A file name of exactly `bytes` UTF-8 bytes ending in `extension`, in two-byte characters where it can. */
function nameOfBytes(bytes: number, extension: string): string {
  const room = bytes - Buffer.byteLength(extension);
  return `${'é'.repeat(Math.floor(room / 2))}${'x'.repeat(room % 2)}${extension}`;
}

const files = suite('security: files');

files('every legal output name works: a 255-byte name for vidkit render, vidkit still and a batch row', async () => {
  const dir = project('long-names');
  const tmp = privateTmp();
  const outDir = path.join(work, 'long-names-out');
  const video = path.join(outDir, nameOfBytes(255, '.mp4'));
  const rendered = await vidkitAsync(['render', dir, '--output', video, '--workers', '1'], { env: tmp.env });
  assert.is(rendered.status, 0, rendered.stderr);
  const image = path.join(outDir, nameOfBytes(255, '.png'));
  const still = await vidkitAsync(['still', dir, '--output', image], { env: tmp.env });
  assert.is(still.status, 0, still.stderr);
  assert.equal(fs.readdirSync(outDir).sort(), [path.basename(video), path.basename(image)].sort(), 'a partial file stayed');

  const batch = path.join(work, 'long-names.jsonl');
  const key = nameOfBytes(255, '.mp4');
  fs.writeFileSync(batch, `${JSON.stringify({ outputKey: key, variables: {} })}\n`);
  const batchDir = path.join(work, 'long-names-batch');
  const batched = await vidkitAsync(['render', dir, '--batch', batch, '--output-dir', batchDir, '--json'], { env: tmp.env });
  assert.is(batched.status, 0, batched.stderr);
  assert.is(JSON.parse(batched.stdout)[0].status, 'rendered');
  assert.equal(fs.readdirSync(batchDir).sort(), ['long-names.manifest.jsonl', key].sort());
  const [r, g, b] = rgbAt(decodeRgbFrame(path.join(batchDir, key), 0, 160, 90), 160, 80, 45);
  assert.ok(r > 230 && g < 25 && b < 25, `the row's video: ${[r, g, b]}`);
  // One byte more is not a legal name: refused before any browser starts.
  const tooLong = vidkit(['render', dir, '--output', path.join(outDir, nameOfBytes(256, '.mp4'))], { env: tmp.env });
  assert.is(tooLong.status, 2, tooLong.stderr);
  assert.match(errorLines(tooLong.stderr)[0], /its file name is 256 bytes, over the 255 a file system allows$/);
  assert.equal(leftIn(tmp.dir), []);
});

files('an output on /proc or /sys, or that is a device: refused before any browser starts (exit 4, exit 2)', () => {
  const dir = project('kernel-files');
  const tmp = privateTmp();
  for (const [output, system] of [
    ['/proc/vidkit-test.mp4', 'proc'],
    ['/sys/vidkit-test.mp4', 'sysfs'],
    ['/proc/self/vidkit/test.mp4', 'proc'],
  ]) {
    const run = vidkit(['render', dir, '--output', output], { env: tmp.env });
    assert.is(run.status, 4, `${output}: ${run.stderr}`);
    assert.match(errorLines(run.stderr)[0], new RegExp(`^vidkit: error: cannot write ${output}: /\\S+ is on ${system}, a file system of the kernel's own that holds no files; choose another --output$`));
    assert.not.match(run.stderr, /rendering/, 'a browser started');
  }
  const device = vidkit(['render', dir, '--output', '/dev/null'], { env: tmp.env });
  assert.is(device.status, 2, device.stderr);
  assert.equal(errorLines(device.stderr), ['vidkit: error: --output /dev/null is a device, not a file: name a file']);
  assert.equal(leftIn(tmp.dir), []);
});

files("an output that is a file of the project is refused (exit 2), by name or through a link, and left as it was; the project's out/ is vidkit's", () => {
  const dir = project('own-media');
  const tmp = privateTmp();
  const media = path.join(dir, 'media', 'intro.mp4');
  const before = fs.readFileSync(media);
  const linked = path.join(work, 'own-media-link');
  fs.symlinkSync(path.join(dir, 'media'), linked);
  for (const output of [media, path.join(linked, 'intro.mp4'), path.join(dir, 'index.html')]) {
    const run = vidkit(['render', dir, '--output', output], { env: tmp.env });
    assert.is(run.status, 2, `${output}: ${run.stderr}`);
    assert.match(errorLines(run.stderr)[0], /a file of the project .* that the page can load: a render never replaces one; choose a path outside the project or under its out\/ folder$/);
    assert.not.match(run.stderr, /rendering/);
  }
  assert.equal(fs.readFileSync(media), before, 'the project file changed');
  // A new file in the project, and vidkit's own out/ again and again, are fine.
  for (const output of [path.join(dir, 'media', 'new.mp4'), path.join(dir, 'out', 'own-media.mp4'), path.join(dir, 'out', 'own-media.mp4')]) {
    const run = vidkit(['render', dir, '--output', output, '--workers', '1'], { env: tmp.env });
    assert.is(run.status, 0, `${output}: ${run.stderr}`);
  }
  assert.equal(leftIn(tmp.dir), []);
});

files('a batch row whose outputKey leads out of --output-dir through a symlink fails, and nothing is written outside', async () => {
  const dir = project('batch-links');
  const tmp = privateTmp();
  const outputDir = path.join(work, 'batch-links-out');
  const elsewhere = path.join(work, 'batch-links-elsewhere');
  fs.mkdirSync(outputDir);
  fs.mkdirSync(elsewhere);
  fs.symlinkSync(elsewhere, path.join(outputDir, 'link'));
  fs.symlinkSync(path.join(elsewhere, 'target.mp4'), path.join(outputDir, 'file-link.mp4'));
  const batch = path.join(work, 'batch-links.jsonl');
  fs.writeFileSync(batch, ['link/a.mp4', 'link/deeper/b.mp4', 'file-link.mp4', 'inside/c.mp4'].map((k) => JSON.stringify({ outputKey: k, variables: {} })).join('\n'));
  const run = await vidkitAsync(['render', dir, '--batch', batch, '--output-dir', outputDir, '--json'], { env: tmp.env });
  assert.is(run.status, 1, run.stderr);
  const rows = JSON.parse(run.stdout) as Array<{ outputKey: string; status: string; error?: string }>;
  assert.equal(
    rows.map((r) => [r.outputKey, r.status]),
    [
      ['link/a.mp4', 'failed'],
      ['link/deeper/b.mp4', 'failed'],
      ['file-link.mp4', 'failed'],
      ['inside/c.mp4', 'rendered'],
    ],
  );
  assert.match(rows[0].error!, /^"outputKey" link\/a\.mp4 leads out of .* through a symlink \(to .*batch-links-elsewhere\/a\.mp4\): a batch writes only inside its --output-dir$/);
  assert.equal(fs.readdirSync(elsewhere), [], 'the batch wrote outside --output-dir');
  assert.equal(leftIn(tmp.dir), []);
});

files("resume compares the output's SHA-256 recorded when it was written: a damaged file of the same size renders again", async () => {
  const dir = project('resume');
  const tmp = privateTmp();
  const batch = path.join(work, 'resume.jsonl');
  fs.writeFileSync(batch, `${JSON.stringify({ outputKey: 'a.mp4', variables: {} })}\n`);
  const outputDir = path.join(work, 'resume-out');
  const statusOf = async () => {
    const run = await vidkitAsync(['render', dir, '--batch', batch, '--output-dir', outputDir, '--json'], { env: tmp.env });
    assert.is(run.status, 0, run.stderr);
    return (JSON.parse(run.stdout) as Array<{ status: string }>)[0].status;
  };
  assert.is(await statusOf(), 'rendered');
  assert.is(await statusOf(), 'skipped');
  const video = path.join(outputDir, 'a.mp4');
  const bytes = fs.readFileSync(video);
  bytes[bytes.length - 100] ^= 0xff;
  fs.writeFileSync(video, bytes);
  assert.is(await statusOf(), 'rendered');
  assert.is.not(fs.readFileSync(video)[bytes.length - 100], bytes[bytes.length - 100], 'the damaged byte stayed');
  assert.is(await statusOf(), 'skipped');
  assert.equal(leftIn(tmp.dir), []);
});

files('a full TMPDIR is exit 4 naming TMPDIR, before any browser starts or when it fills mid-render, with no browser warning and nothing left there', () => {
  const dir = project('full-tmp', 3, true);
  const full = withSmallDisks({ T: '1m' }, `TMPDIR="$T" $VIDKIT render ${dir} --output ${path.join(work, 'full-tmp.mp4')}; echo "exit $?"; ls -A "$T"`);
  assert.is(full.status, 0, full.stderr);
  assert.match(full.stdout, /^exit 4\n$/);
  assert.match(errorLines(full.stderr)[0], /^vidkit: error: TMPDIR \(\/\S+\) is full: 1\.0 MiB free, and a render needs at least 32 MiB there for its segments and browser profiles; free some space, or set TMPDIR to a directory with room$/);
  assert.not.match(full.stderr, /rendering/);

  // Room to start, then something else fills it while the frames are drawn.
  const filled = withSmallDisks(
    { T: '40m' },
    `TMPDIR="$T" $VIDKIT render ${dir} --output ${path.join(work, 'filled-tmp.mp4')} --workers 1 & pid=$!
for i in $(seq 600); do [ "$(cat "$T"/vidkit-render-*/part-* 2>/dev/null | wc -c)" -gt 4096 ] && break; sleep 0.1; done
dd if=/dev/zero of="$T/filler" bs=1M count=64 2>/dev/null
wait $pid; echo "exit $?"; rm -f "$T/filler"; ls -A "$T"`,
  );
  assert.is(filled.status, 0, filled.stderr);
  assert.match(filled.stdout, /^exit 4\n$/, filled.stderr);
  // Named by the write that failed, or by the check before a browser would be relaunched into it.
  assert.equal(errorLines(filled.stderr).length, 1, filled.stderr);
  assert.match(errorLines(filled.stderr)[0], /^vidkit: error: TMPDIR \(\/\S+\) is full: .*set TMPDIR to a directory with room/);
  assert.not.match(filled.stderr, /stopped answering|relaunching|internal error/);
  assert.not.ok(fs.existsSync(path.join(work, 'filled-tmp.mp4')));
});

/**
 * A server on loopback that holds every request until released: a page that waits for its answer
 * (`window.__vidkit.waitFor`) keeps its render at load, with its browser open, for as long as a
 * test needs. `asked` resolves at the first request.
 */
async function holdingServer(): Promise<{ url: string; asked: Promise<void>; release(): void; close(): Promise<void> }> {
  const held: http.ServerResponse[] = [];
  let released = false;
  let onAsked!: () => void;
  const asked = new Promise<void>((resolve) => (onAsked = resolve));
  const answer = (res: http.ServerResponse) => res.writeHead(200, { 'access-control-allow-origin': '*' }).end('released');
  const server = http.createServer((_req, res) => {
    onAsked();
    if (released) answer(res);
    else held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hold`,
    asked,
    release: () => {
      released = true;
      for (const res of held.splice(0)) answer(res);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A project whose page waits at load for an answer from `url`. */
function waitingProject(name: string, url: string): string {
  const dir = project(name);
  const page = path.join(dir, 'index.html');
  fs.writeFileSync(page, fs.readFileSync(page, 'utf8').replace('</body>', `<script>window.__vidkit.waitFor(fetch(${JSON.stringify(url)}));</script></body>`));
  return dir;
}

files("a SIGKILLed render's run directory is removed by the next vidkit render, never a running one's", async () => {
  const tmp = privateTmp();
  const runDirs = () => leftIn(tmp.dir).filter((name) => name.startsWith('vidkit-render-'));
  // The stand-in server is on loopback.
  const allow = ['--workers', '1', '--allow-private-network'];
  const first = await holdingServer();
  const killed = spawn(process.execPath, [CLI, 'render', waitingProject('killed', first.url), '--output', path.join(work, 'killed.mp4'), ...allow], {
    env: { ...process.env, ...tmp.env },
    stdio: 'ignore',
  });
  await first.asked;
  killed.kill('SIGKILL');
  await new Promise((resolve) => killed.on('close', resolve));
  await first.close();
  const left = runDirs();
  assert.is(left.length, 1, 'the killed render left no run directory to find');
  assert.ok(fs.readdirSync(path.join(tmp.dir, left[0])).some((name) => name.startsWith('profile-')), 'no browser profile in it');
  // Its browser's frame channel in shared memory (render/capture/frame-channel.ts) too.
  const channels = () => fs.readdirSync('/dev/shm').filter((name) => name.startsWith(`vidkit-frames-${killed.pid}.`));
  assert.is(channels().length, 1, 'the killed render left no frame channel to find');

  // A render held at load while the next one starts and ends keeps its directory, and then finishes.
  const second = await holdingServer();
  const running = vidkitAsync(['render', waitingProject('running', second.url), '--output', path.join(work, 'running.mp4'), ...allow], { env: tmp.env });
  await second.asked;
  const next = await vidkitAsync(['render', project('next'), '--output', path.join(work, 'next.mp4'), '--workers', '1'], { env: tmp.env });
  assert.is(next.status, 0, next.stderr);
  const afterNext = runDirs();
  second.release();
  const done = await running;
  await second.close();
  assert.is(done.status, 0, done.stderr);
  assert.not.ok(afterNext.includes(left[0]), 'the killed render’s directory stayed');
  assert.equal(channels(), [], 'the killed render’s frame channel stayed');
  assert.is(afterNext.length, 1, `the running render's directory went: ${afterNext}`);
  assert.equal(leftIn(tmp.dir), []);
});

files.run();
