#!/usr/bin/env node
// Runs uvu test files (paths relative to src/), each in a process of its own, several at a time.
//
//   node scripts/run-tests.mjs [--record] [--tier NAME] FILE... [--tier NAME FILE...]...
//
// A file runs under a deadline, and a file whose tests have all ended but whose process stays (a
// server, browser or child left open) is stopped and counted as a failure: one file can neither
// hang the suite nor hide in it. Files run longest first (by scripts/test-durations.json, which
// `--record` rewrites) over VIDKIT_TEST_LANES lanes (default: one more than the cores). Files that
// share something on disk (an image cache, a template's build folder) never run at the same time.
// Each file's output is printed whole when it ends. Tiers share one pool of lanes (no lane waits
// for a tier to end) and are counted apart: `tier NAME: N passed, N failed, N s of lane time` for
// each, then the last line `uvu: N passed, N failed`.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const DURATIONS = path.join(ROOT, 'scripts', 'test-durations.json');
// One lane more than the cores: test files also wait (package installs, the AWS emulator, image
// builds, browsers starting), so a file's time grows little with a third lane on 2 cores. The e2e
// and cloud tiers on clean clones of this 2-core machine: 1737 s with 2 lanes (3472 s of lane
// time), 1257 s with 3 (3768 s). CI with 3 lanes took 1433 s for 4296 s of lane time: a slower
// machine that day, not the lanes.
const lanes = Math.max(1, Number(process.env.VIDKIT_TEST_LANES ?? os.availableParallelism() + 1));
const fileDeadlineS = Number(process.env.VIDKIT_TEST_FILE_TIMEOUT ?? 900);
// How long a file's process may stay once uvu has printed its summary.
const EXIT_GRACE_MS = 30_000;

// Files that must not overlap, by what they share.
const SHARED = [
  // The Debian base and image caches that build-rootfs.sh and the template images write.
  ['image cache', /(^lambda\/render-image|-image)\.test\.ts$/],
  // Each web template's folder: its build outputs and packed vidkit.
  ['edge-container', /^templates\/edge-container/],
  ['serverless-container', /^templates\/serverless-container/],
  ['sandbox-platform', /^templates\/sandbox-platform/],
];

const args = process.argv.slice(2);
const record = args[0] === '--record';
const files = [];
const tierOf = {};
let tier = 'all';
for (const arg of record ? args.slice(1) : args) {
  if (tier === undefined) tier = arg;
  else if (arg === '--tier') tier = undefined;
  else {
    files.push(arg);
    tierOf[arg] = tier;
  }
}
const tiers = {};
const known = fs.existsSync(DURATIONS) ? JSON.parse(fs.readFileSync(DURATIONS, 'utf8')) : {};
// A file not timed yet runs early: it may be slow.
const expected = (file) => known[file] ?? 120;
const queue = [...files].sort((a, b) => expected(b) - expected(a));
const tagsOf = (file) => SHARED.filter(([, pattern]) => pattern.test(file)).map(([tag]) => tag);

const strip = (text) => text.replace(/\x1b\[[0-9;]*m/g, '');
let passed = 0;
let failed = 0;
const times = {};
const busy = new Set();

function runFile(file) {
  return new Promise((resolve) => {
    const started = Date.now();
    const dir = path.join('src', path.dirname(file));
    const name = path.basename(file).replace(/[.]/g, '\\.');
    const child = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'uvu', 'bin.js'), '-r', 'tsx/cjs', dir, `^${name}$`], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    let trouble = '';
    let graceTimer;
    const stop = (why) => {
      trouble ||= why;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const onData = (data) => {
      output += data;
      if (!graceTimer && /^\s*Duration:/m.test(output)) {
        graceTimer = setTimeout(() => stop(`its process did not exit within ${EXIT_GRACE_MS / 1000} s of its last test: something it started was left open`), EXIT_GRACE_MS);
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    const deadline = setTimeout(() => stop(`it ran past its ${fileDeadlineS} s deadline (VIDKIT_TEST_FILE_TIMEOUT)`), fileDeadlineS * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(deadline);
      clearTimeout(graceTimer);
      const seconds = (Date.now() - started) / 1000;
      times[file] = Math.round(seconds);
      const text = strip(output);
      const total = Number(text.match(/^\s*Total:\s*(\d+)/m)?.[1] ?? 0);
      const ok = Number(text.match(/^\s*Passed:\s*(\d+)/m)?.[1] ?? 0);
      let bad = total - ok;
      if (trouble) bad += 1;
      // A file that crashed before its summary counts as a failure, never as zero tests.
      else if ((code !== 0 || total === 0) && bad === 0) bad = 1;
      passed += ok;
      failed += bad;
      const counts = (tiers[tierOf[file]] ??= { passed: 0, failed: 0, seconds: 0 });
      counts.passed += ok;
      counts.failed += bad;
      counts.seconds += seconds;
      const verdict = bad === 0 ? 'ok' : 'FAILED';
      process.stdout.write(`\n── ${file}: ${ok}/${total} ${verdict} in ${seconds.toFixed(0)} s\n${output.trimEnd()}\n`);
      if (trouble) process.stdout.write(`── ${file}: FAILED: ${trouble}\n`);
      else if (code !== 0 && total === ok) process.stdout.write(`── ${file}: FAILED: exit ${code ?? signal}\n`);
      resolve();
    });
  });
}

async function lane() {
  for (;;) {
    const index = queue.findIndex((file) => !tagsOf(file).some((tag) => busy.has(tag)));
    if (index < 0) {
      if (queue.length === 0) return;
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    const [file] = queue.splice(index, 1);
    const tags = tagsOf(file);
    for (const tag of tags) busy.add(tag);
    await runFile(file);
    for (const tag of tags) busy.delete(tag);
  }
}

const started = Date.now();
await Promise.all(Array.from({ length: lanes }, lane));
const slowest = Object.entries(times).sort((a, b) => b[1] - a[1]).slice(0, 10);
process.stdout.write(`\nslowest files (s): ${slowest.map(([f, s]) => `${f} ${s}`).join(', ')}\n`);
for (const [name, c] of Object.entries(tiers)) process.stdout.write(`tier ${name}: ${c.passed} passed, ${c.failed} failed, ${c.seconds.toFixed(0)} s of lane time\n`);
process.stdout.write(`uvu: ${files.length} files over ${lanes} lanes in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
if (record) fs.writeFileSync(DURATIONS, JSON.stringify({ ...known, ...times }, Object.keys({ ...known, ...times }).sort(), 2) + '\n');
process.stdout.write(`uvu: ${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
