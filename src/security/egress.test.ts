// tier: cloud
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateConfig } from '../sdk/render';
import { deploySite } from '../sdk/site';
import { WarmTemplateRenderer } from '../template-server/warm-render';
import { AwsEmulator, startAwsEmulator } from '../test-support/aws-emulator';
import { Canary, startCanary } from '../test-support/canary';
import { cloudHandler } from '../test-support/build';
import { REPO_ROOT, errorLines, tempDir, vidkitAsync } from '../test-support/cli';
import { testAwsClients } from '../test-support/cloud-stack';
import { WORLD_ADDRESSES, inNetworkNamespace } from '../test-support/network-namespace';
import { descendants } from '../test-support/processes';
import { NETWORK_WAYS, NetworkWay, UDP_WAYS, networkWaysProject, wayPath } from '../test-support/ways-out';

// docs/explanation/security-model.md: every way out of the browser, through every
// command that runs a page. A canary on loopback records every connection, request and datagram;
// without --allow-private-network it must see nothing, with it every way but UDP.
const work = tempDir('vidkit-egress-test-');
let canary: Canary;
/** Counts the datagrams of WebRTC's STUN and of QUIC (WebTransport), which no vidkit browser sends. */
let udp: Canary;
let project: string;
const ALLOW = ['--allow-private-network', '--allow-service-workers'];
/** The ways that reach the HTTP canary when allowed: all but those that would need UDP. */
const REACHING = NETWORK_WAYS.filter((way) => !UDP_WAYS.includes(way));

const egress = suite('security: what a page can reach');

egress.before(async () => {
  canary = await startCanary();
  udp = await startCanary();
  project = networkWaysProject(path.join(work, 'ways'), canary.url, `127.0.0.1:${udp.port}`);
});
egress.before.each(() => {
  canary.hits.length = 0;
  udp.hits.length = 0;
});
egress.after(async () => {
  await canary.close();
  await udp.close();
});

/** The canary paths of `ways`, sorted. */
const pathsOf = (ways: readonly NetworkWay[]) => ways.map(wayPath).sort();
/** What reached the canaries, as `kind path`, sorted. */
const seen = () => [...canary.hits, ...udp.hits].map((h) => `${h.kind} ${h.path}`).sort();

/** The refusal a failed run names: the gate's or the download's, with the flag that lifts it. */
function assertRefused(stderr: string): void {
  const [line] = errorLines(stderr);
  assert.ok(line, stderr);
  assert.match(line, /(was refused|could not be fetched): 127\.0\.0\.1 is a loopback address, refused \(a local render allows private networks with --allow-private-network\)$/);
}

egress('vidkit render: no way out reaches the canary; with --allow-private-network and --allow-service-workers every way but UDP does', async () => {
  const output = path.join(work, 'render.mp4');
  const refused = await vidkitAsync(['render', project, '--output', output, '--workers', '1']);
  assert.is(refused.status, 1, refused.stderr);
  assertRefused(refused.stderr);
  assert.equal(seen(), [], 'something reached a canary');
  assert.not.ok(fs.existsSync(output));

  const allowed = await vidkitAsync(['render', project, '--output', output, '--workers', '1', ...ALLOW]);
  assert.is(allowed.status, 0, allowed.stderr);
  assert.equal([...new Set(canary.paths())].sort(), pathsOf(REACHING));
  assert.equal(udp.hits, [], 'a datagram went out');
});

// The last frame's requests are judged while the output is joined: the output appears only after.
egress('a beacon a page sends as it draws its last frame fails the render, at any worker count, and no output appears', async () => {
  const dir = path.join(work, 'last-frame-beacon');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html><head><style>html,body{margin:0;background:#123}</style></head>
<body><div data-composition-id="last-beacon" data-width="320" data-height="180" data-duration="1"></div>
<script>
// 1.5 s of work at load (Event.timeStamp is the browser's real clock): the second worker's page is
// still loading when the first has drawn every frame, and stopping it must not hide the refusal.
const began = new Event('load-work').timeStamp;
while (new Event('load-work').timeStamp - began < 1500);
let sent = false;
const tick = () => {
  if (!sent && performance.now() >= 950) {
    sent = true;
    navigator.sendBeacon(${JSON.stringify(canary.url)} + '/way/last-frame', 'x');
  }
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
</script></body></html>`,
  );
  // Twice with two workers: which worker fails first is a race, and either must report the refusal.
  for (const workers of ['1', '2', '2']) {
    const output = path.join(work, `last-frame-${workers}.mp4`);
    const run = await vidkitAsync(['render', dir, '--output', output, '--workers', workers]);
    assert.is(run.status, 1, `--workers ${workers}: ${run.stderr}`);
    assertRefused(run.stderr);
    assert.match(run.stderr, /\/way\/last-frame was refused/);
    assert.not.ok(fs.existsSync(output), `--workers ${workers}: the output appeared`);
    assert.equal(fs.readdirSync(work).filter((f) => f.startsWith(`.last-frame-${workers}`)), [], 'a partial output was left');
  }
  assert.equal(seen(), [], 'the beacon reached the canary');
});

egress('a service worker is refused, naming it and the flag, even where private networks are allowed', async () => {
  const output = path.join(work, 'sw.mp4');
  const run = await vidkitAsync(['render', project, '--output', output, '--workers', '1', '--allow-private-network', '--variables', '{"way":"service-worker"}']);
  assert.is(run.status, 1, run.stderr);
  assert.match(errorLines(run.stderr)[0], /^vidkit: error: the page registered a service worker \(http:\/\/127\.0\.0\.1:\d+\/sw\.js\?[^)]*\), refused: a render allows service workers with --allow-service-workers$/);
  assert.equal(seen(), []);
});

egress('vidkit still: nothing reaches the canary; allowed, every way but UDP does', async () => {
  const output = path.join(work, 'still.png');
  const refused = await vidkitAsync(['still', project, '--output', output]);
  assert.is(refused.status, 1, refused.stderr);
  assertRefused(refused.stderr);
  assert.equal(seen(), []);
  const allowed = await vidkitAsync(['still', project, '--output', output, ...ALLOW]);
  assert.is(allowed.status, 0, allowed.stderr);
  assert.equal([...new Set(canary.paths())].sort(), pathsOf(REACHING));
  assert.equal(udp.hits, []);
});

egress('vidkit render --batch: one row per way on warm browsers; each is refused alone, and reaches the canary alone when allowed', async () => {
  const batch = path.join(work, 'ways.jsonl');
  fs.writeFileSync(batch, NETWORK_WAYS.map((way) => JSON.stringify({ outputKey: `${way}.mp4`, variables: { way } })).join('\n'));
  const refusedDir = path.join(work, 'batch-refused');
  const refused = await vidkitAsync(['render', project, '--batch', batch, '--output-dir', refusedDir, '--json', '--batch-concurrency', '1']);
  assert.is(refused.status, 1, refused.stderr);
  const rows = JSON.parse(refused.stdout) as Array<{ outputKey: string; status: string; error?: string }>;
  const statuses = Object.fromEntries(rows.map((r) => [r.outputKey.replace('.mp4', ''), r.status]));
  // The UDP ways send nothing a gate could refuse: they render, and reach nothing.
  assert.equal(statuses, Object.fromEntries(NETWORK_WAYS.map((way) => [way, UDP_WAYS.includes(way) ? 'rendered' : 'failed'])));
  for (const row of rows.filter((r) => r.status === 'failed')) {
    assert.match(row.error!, /refused/, `${row.outputKey}: ${row.error}`);
  }
  assert.equal(seen(), []);

  const allowed = await vidkitAsync(['render', project, '--batch', batch, '--output-dir', path.join(work, 'batch-allowed'), '--json', '--batch-concurrency', '1', ...ALLOW]);
  assert.is(allowed.status, 0, allowed.stderr);
  assert.equal([...new Set(canary.paths())].sort(), pathsOf(REACHING));
  assert.equal(udp.hits, []);
});

egress('a template render (the warm template renderer) reaches nothing', async () => {
  const renderer = new WarmTemplateRenderer();
  try {
    let failure = '';
    await renderer.render({ projectDir: project, variables: { way: 'all' }, env: {}, timeoutSeconds: 120 }).catch((err: Error) => (failure = err.message));
    assert.match(failure, /^render failed \(exit 1\): vidkit: error: .*127\.0\.0\.1 is a loopback address, refused/);
    assert.equal(seen(), []);
  } finally {
    await renderer.close();
  }
});

egress('cloud chunk in a Lambda-shaped sandbox, S3 on the emulator: reaches nothing, and its browser holds no AWS key', async () => {
  let emu: AwsEmulator | undefined;
  const outer = { ...process.env };
  try {
    emu = await startAwsEmulator();
    // The SDK clients of deploySite read the emulator from the environment; restored below, since
    // every test file shares this process.
    Object.assign(process.env, emu.env);
    const bucket = 'vidkit-egress-test';
    await testAwsClients(emu).s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const site = await deploySite({ projectDir: project, bucketName: bucket });
    const plan = validateConfig({ siteHandle: site, bucketName: bucket, config: { variables: { way: 'all' } }, outputKey: 'renders/ways.mp4' });
    const event = { version: plan.input.version, mode: 'chunk', render: plan.input.render, chunk: { index: 0, startFrame: 0, endFrame: 3, totalFrames: 3 } };
    const invoke = `require(${JSON.stringify(cloudHandler())}).handler(JSON.parse(process.argv[1])).then(() => process.exit(0), (e) => { console.error(String(e.message)); process.exit(1); })`;
    const env: Record<string, string> = { PATH: process.env.PATH!, HOME: '/tmp', ...emu.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
    // As lambda-sandbox.test.ts: a read-only root, an empty /tmp, the emulator's network shared.
    const child = spawn(
      'bwrap',
      [
        ...['--ro-bind', '/', '/', '--tmpfs', '/tmp', '--proc', '/proc', '--dev', '/dev', '--remount-ro', '/dev', '--die-with-parent', '--clearenv'],
        ...['--ro-bind', REPO_ROOT, REPO_ROOT],
        ...Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v]),
        ...[process.execPath, '-e', invoke, JSON.stringify(event)],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    // While it runs: the environment of every browser process under it, which this root process can read.
    const environments = new Map<number, string>();
    const watch = setInterval(() => {
      for (const pid of descendants(child.pid!)) {
        try {
          if (/chrom/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) environments.set(pid, fs.readFileSync(`/proc/${pid}/environ`, 'utf8'));
        } catch {
          // Gone already.
        }
      }
    }, 50);
    const status = await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
    clearInterval(watch);
    assert.is(status, 1, stderr);
    assert.match(stderr, /127\.0\.0\.1 is a loopback address, refused/);
    assert.equal(seen(), []);
    assert.ok(environments.size > 0, 'no browser process was seen');
    for (const [pid, environ] of environments) assert.not.match(environ, /AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN)=/, `browser ${pid} holds AWS credentials`);
  } finally {
    await emu?.stop();
    for (const name of Object.keys(emu?.env ?? {})) {
      if (outer[name] === undefined) delete process.env[name];
      else process.env[name] = outer[name];
    }
  }
});

egress('a cloud metadata address, a redirect into a private network and DNS rebinding: refused before any connection, in a network of their own', () => {
  const world = path.join(REPO_ROOT, 'src', 'test-support', 'private-network-world.ts');
  const addresses = Object.values(WORLD_ADDRESSES);
  const run = (args: string[]) => {
    const result = inNetworkNamespace(world, args, addresses);
    assert.is(result.status, 0, result.stderr);
    return JSON.parse(result.stdout) as { status: number; stderr: string; metadata: string[]; private: string[]; public: string[] };
  };
  const refused = run([]);
  assert.is(refused.status, 1, refused.stderr);
  assert.match(errorLines(refused.stderr)[0], /(169\.254\.169\.254|10\.0\.0\.5),? (is )?a (link-local|private) address, refused/);
  assert.equal([refused.metadata, refused.private], [[], []], 'the metadata service or the private host was reached');

  // Allowed, the same page reaches both: the redirect's second hop and the name that turned private.
  const allowed = run(['--allow-private-network']);
  assert.is(allowed.status, 0, allowed.stderr);
  assert.ok(allowed.metadata.some((p) => p.includes('?worker')) && allowed.metadata.some((p) => p.includes('?page')), JSON.stringify(allowed.metadata));
  assert.ok(allowed.private.includes('/way/redirect-hop'), JSON.stringify(allowed.private));
  assert.ok(allowed.private.some((p) => p.startsWith('/way/rebind-')), JSON.stringify(allowed.private));
});

egress.run();
