import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CliRun, FIXTURES, built, errorLines, frameClock, tempDir, vidkit, vidkitAsync } from '../../test-support/cli';
import { decodeGray, readBits } from '../../test-support/media';
import { gpuDevices } from './browser';
import { processTable } from './process-table';

const out = tempDir('vidkit-resilience-test-');
const fixture = (name: string) => path.join(FIXTURES, name);

/**
 * A machine as a new user has it: empty HOME and cache (so no probe result from an earlier run),
 * and a temporary directory of the run's own, where every segment, profile and browser of the
 * render lives, so what is left behind can be seen.
 */
function freshMachine() {
  const tmp = tempDir('vidkit-machine-');
  const env = { HOME: tempDir('vidkit-home-'), XDG_CACHE_HOME: tempDir('vidkit-cache-'), TMPDIR: tmp };
  return { env, tmp };
}

/** Processes whose command line names `dir`: the browsers of a render whose TMPDIR it is. */
function processesUsing(dir: string): string[] {
  return processTable()
    .map((p) => ({ pid: p.pid, cmdline: p.cmdline.replace(/\0/g, ' ') }))
    .filter((p) => p.cmdline.includes(dir))
    .map((p) => `${p.pid} ${p.cmdline.slice(0, 120)}`);
}

function framesDone(stderr: string): number {
  const counts = [...stderr.matchAll(/(\d+)\/\d+ frames/g)];
  return counts.length === 0 ? 0 : Number(counts[counts.length - 1][1]);
}

function clockErrors(file: string, count: number): string[] {
  const frames = decodeGray(file, 640, 360);
  if (frames.length !== count) return [`${frames.length} frames decoded, want ${count}`];
  const wrong: string[] = [];
  frames.forEach((f, i) => {
    const got = [readBits(f, 0), readBits(f, 1), readBits(f, 2)];
    if (got.some((v) => v !== i)) wrong.push(`frame ${i}: ${got.join('/')}`);
  });
  return wrong;
}

const probe = suite('browser probe on a new machine');

probe('with no probe cache, a short render finishes within 60 s and decides GL without hanging', () => {
  const { env } = freshMachine();
  const output = path.join(out, 'probe.mp4');
  const started = Date.now();
  const run = spawnSync(process.execPath, [built('cli', 'main.js'), 'render', frameClock(2, out), '--output', output, '--workers', '1'], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.is(run.status, 0, `exit ${run.status} (${run.signal ?? 'no signal'}) after ${(Date.now() - started) / 1000} s: ${run.stderr}`);
  if (gpuDevices().length === 0) assert.match(run.stderr, 'GL software (SwiftShader (no GPU device in /dev))');
  else assert.match(run.stderr, /GL (gpu|software) \(/);
  const cache = JSON.parse(fs.readFileSync(path.join(env.XDG_CACHE_HOME, 'vidkit', 'browser-probe.json'), 'utf8'));
  assert.ok(Object.keys(cache).some((k) => k.startsWith('capture:')), JSON.stringify(cache));
  assert.equal(clockErrors(output, 60), []);
});

const hangs = suite('pages that never finish');

for (const [name, flags, message] of [
  ['loops-on-load', ['--load-timeout', '2'], 'the composition did not become ready within the load timeout of 2 s'],
  ['loops-in-frame', ['--frame-timeout', '3'], 'frame 15 did not seek and draw within the frame timeout of 3 s'],
] as const) {
  hangs(`${name}: fails with the step and frame named, exit 1, its browser killed`, () => {
    const { env, tmp } = freshMachine();
    const run = vidkit(['render', fixture(name), '--output', path.join(out, `${name}.mp4`), '--workers', '1', ...flags], { env });
    assert.is(run.status, 1, run.stderr);
    assert.equal(errorLines(run.stderr).length, 1, run.stderr);
    assert.match(errorLines(run.stderr)[0], message);
    assert.not.match(run.stderr, 'internal error');
    assert.equal(processesUsing(tmp), []);
    assert.equal(fs.readdirSync(tmp), []);
    assert.not.ok(fs.existsSync(path.join(out, `${name}.mp4`)));
  });
}

hangs('a page that navigates away mid-render fails instead of capturing the other page', () => {
  const { env } = freshMachine();
  const output = path.join(out, 'navigates.mp4');
  const run = vidkit(['render', fixture('navigates-away'), '--output', output, '--workers', '1'], { env });
  assert.is(run.status, 1, run.stderr);
  assert.match(errorLines(run.stderr)[0], /the composition navigated away to http:\/\/127\.0\.0\.1:\d+\/elsewhere\.html at frame 1[5-6]/);
  assert.not.ok(fs.existsSync(output));
});

const recovery = suite('recovery from a killed browser');

recovery('SIGKILL of every browser of a 2-worker render mid-way: relaunched, every frame exact', async () => {
  const { env, tmp } = freshMachine();
  const output = path.join(out, 'killed.mp4');
  let killed: string[] = [];
  // Progress lines come every 2 s; by the first with 100 frames both workers are drawing, and at
  // under 400 frames a second (800 in one line's 2 s) frames are left for the relaunched browsers.
  // 360 frames were too few: one run drew 282 of them in the 2 s after its first line, and the
  // browsers were killed after the last frame.
  const run: CliRun = await vidkitAsync(['render', frameClock(30, out), '--output', output, '--workers', '2'], {
    env,
    watch: (stderr) => {
      // The real Chromium processes of this render (their profiles are under its TMPDIR).
      const browsers = processesUsing(tmp).filter((p) => p.includes('chromium') && !p.includes('/bin/sh'));
      if (killed.length > 0 || framesDone(stderr) < 100 || browsers.length < 2) return;
      killed = browsers;
      for (const p of killed) process.kill(Number(p.split(' ')[0]), 'SIGKILL');
    },
  });
  assert.is(killed.length, 2, `browsers killed: ${killed.join('\n')}`);
  assert.is(run.status, 0, run.stderr);
  assert.is((run.stderr.match(/relaunching it to render on from frame \d+ \(1 of 2\)/g) ?? []).length, 2, run.stderr);
  assert.equal(clockErrors(output, 900), []);
  assert.equal(processesUsing(tmp), []);
});

const signals = suite('signals');

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const) {
  signals(`${signal} mid-render exits ${code}, removes segments, partial output and profiles, leaves no browser`, async () => {
    const { env, tmp } = freshMachine();
    const outDir = tempDir('vidkit-signal-out-');
    const output = path.join(outDir, 'stopped.mp4');
    let sent = false;
    const run = await vidkitAsync(['render', frameClock(10, out), '--output', output, '--workers', '2'], {
      env,
      watch: (stderr, child) => {
        if (sent || framesDone(stderr) < 30) return;
        sent = true;
        child.kill(signal);
      },
    });
    assert.ok(sent, run.stderr);
    assert.is(run.status, code, run.stderr);
    assert.match(run.stderr, `vidkit: interrupted (${signal})`);
    assert.equal(processesUsing(tmp), []);
    assert.equal(fs.readdirSync(tmp), []);
    assert.equal(fs.readdirSync(outDir), []);
  });
}

const early = suite('errors before any browser starts');

early('an output that is a directory is bad input, named before a browser starts', () => {
  const run = vidkit(['render', fixture('frame-clock'), '--output', out]);
  assert.is(run.status, 2, run.stderr);
  assert.match(errorLines(run.stderr)[0], `--output ${out} is a directory`);
  assert.not.match(run.stderr, 'rendering frame-clock');
});

early('a composition over the maximum duration is refused with its frame count', () => {
  const dir = path.join(out, 'too-long');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.html'), '<div data-composition-id="long" data-width="320" data-height="180" data-duration="30000"></div>');
  const run = vidkit(['render', dir, '--output', path.join(out, 'long.mp4')]);
  assert.is(run.status, 2, run.stderr);
  assert.match(errorLines(run.stderr)[0], 'data-duration 30000s (900000 frames at 30 fps) is over the 6 hour maximum');
});

early('an output size over the encoders\' limit is refused', () => {
  const run = vidkit(['render', fixture('frame-clock'), '--output', path.join(out, 'huge.mp4'), '--width', '12800']);
  assert.is(run.status, 2, run.stderr);
  assert.match(errorLines(run.stderr)[0], 'output 12800x7200 is over the encoders\' limit');
});

/**
 * Runs vidkit with `dir` mounted as a tmpfs of `options` (read-only, tiny), in a mount namespace of
 * its own (unshare, util-linux): the machine's own mounts are untouched.
 */
function renderOnMount(dir: string, options: string, args: string[]) {
  fs.mkdirSync(dir, { recursive: true });
  const script = 'mount -t tmpfs -o "$1" tmpfs "$2" && shift 2 && exec "$@"';
  const r = spawnSync(
    'unshare',
    ['--map-root-user', '--mount', 'sh', '-c', script, 'sh', options, dir, process.execPath, built('cli', 'main.js'), ...args],
    { env: { ...process.env, ...freshMachine().env }, encoding: 'utf8', timeout: 120_000 },
  );
  return { status: r.status ?? -1, stderr: r.stderr };
}

early('a read-only output directory exits 4 before rendering', () => {
  const dir = path.join(out, 'read-only');
  const run = renderOnMount(dir, 'ro,size=1m', ['render', fixture('frame-clock'), '--output', path.join(dir, 'clip.mp4')]);
  assert.is(run.status, 4, run.stderr);
  assert.match(errorLines(run.stderr)[0], `cannot write ${dir}: it is on a read-only file system`);
  assert.not.match(run.stderr, 'rendering frame-clock');
});

early('a full disk exits 4 with its own message and leaves no partial file', () => {
  const dir = path.join(out, 'full');
  const run = renderOnMount(dir, 'size=8k', ['render', fixture('frame-clock'), '--output', path.join(dir, 'clip.mp4'), '--workers', '1']);
  assert.is(run.status, 4, run.stderr);
  assert.match(errorLines(run.stderr)[0], /^vidkit: error: cannot write .*clip\.mp4: the disk is full/);
  assert.not.match(run.stderr, 'internal error');
});

probe.run();
hangs.run();
recovery.run();
signals.run();
early.run();
