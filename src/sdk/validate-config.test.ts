import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TEST_CREDENTIALS } from '../test-support/aws-emulator';
import { FIXTURES, built, errorLines, tempDir, vidkitAsync } from '../test-support/cli';
import { EPOCH_FORMS } from '../values/epoch';
import { validateConfig } from './render';
import { prepareSite } from './site';
import type { RenderConfigInput } from './validate-config';

// Checks made before any AWS request. The "AWS endpoint" here is a loopback server that only counts
// the requests it gets (and fails them): a check that ran after a request would show in the count.
const SDK = built('sdk', 'index.js');
const out = tempDir('vidkit-validate-test-');
let server: http.Server;
let requests = 0;
let endpoint = '';

interface Outcome {
  error?: string;
  warnings: string[];
}

/** renderToLambda in a fresh process (the SDK's clients read AWS_ENDPOINT_URL once), config from a file. */
function renderToLambda(config: unknown, project = 'frame-clock', outputKey = 'renders/out.mp4'): Promise<Outcome> {
  const file = path.join(out, `config-${Date.now()}-${Math.random()}.json`);
  fs.writeFileSync(file, JSON.stringify(config));
  const script = `
    const sdk = require(${JSON.stringify(SDK)});
    const warnings = [];
    sdk.renderToLambda({
      siteHandle: sdk.prepareSite(process.argv[1]),
      bucketName: 'vidkit-test-bucket',
      stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:vidkit-test',
      outputKey: process.argv[3],
      config: JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8')),
      onWarning: (m) => warnings.push(m),
    }).then(
      () => console.log(JSON.stringify({ warnings })),
      (e) => console.log(JSON.stringify({ error: e.message, warnings })),
    );`;
  return new Promise((resolve, reject) => {
    const { execFile } = require('node:child_process') as typeof import('node:child_process');
    execFile(process.execPath, ['-e', script, path.join(FIXTURES, project), file, outputKey], { env: { ...process.env, ...TEST_CREDENTIALS, AWS_ENDPOINT_URL: endpoint, AWS_MAX_ATTEMPTS: '1' } }, (err, stdout) =>
      err ? reject(err) : resolve(JSON.parse(stdout)),
    );
  });
}

const checks = suite('cloud checks before any request');

checks.before(async () => {
  server = http.createServer((req, res) => {
    requests += 1;
    req.resume();
    res.statusCode = 500;
    res.end('{"__type":"InternalFailure","message":"counting endpoint"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

checks.after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  fs.rmSync(out, { recursive: true, force: true });
});

checks('an execution input over 262144 bytes is refused with [validateConfig] config:, the size, the limit and the advice; no request', async () => {
  requests = 0;
  const big = await renderToLambda({ variables: { fill: 'x'.repeat(300_000) } });
  assert.is(requests, 0, 'no request reached the endpoint');
  assert.ok(big.error?.startsWith('[validateConfig] config: the serialised execution input is '), big.error);
  const bytes = Number(/is (\d+) bytes/.exec(big.error!)![1]);
  assert.ok(bytes > 300_000 && bytes < 301_000, `stated size ${bytes}`);
  assert.match(big.error!, /over the limit of 262144 bytes \(256 KiB\)/);
  assert.match(big.error!, /pass media as URL references/);
  assert.match(big.error!, /or host the variables in the render bucket with --host-large-variables \(SDK hostLargeVariables: true\)$/);

  // The same render under the limit passes the check and does reach the endpoint: the counter works.
  const fits = await renderToLambda({ variables: { fill: 'x'.repeat(250_000) } });
  assert.not.match(fits.error ?? '', /validateConfig/);
  assert.ok(requests > 0, 'a valid render made requests');
});

checks('config.format: HDR is refused with the error naming distributed mode, unknown names are refused, before any request', async () => {
  requests = 0;
  for (const format of ['hdr-pq', 'hdr-hlg']) {
    const hdr = await renderToLambda({ format });
    assert.is(
      hdr.error,
      `[validateConfig] config.format: format ${format}: the HDR mp4 output format is rejected in distributed mode; it is supported in-process only (vidkit render --format ${format})`,
    );
  }
  const unknown = await renderToLambda({ format: 'mp4-hdr' });
  assert.is(unknown.error, '[validateConfig] config.format: must be one of mp4, webm, mov, hdr-pq, hdr-hlg, gif, png-sequence, hls, got "mp4-hdr"');
  const mismatch = await renderToLambda({ format: 'webm' });
  assert.is(mismatch.error, 'outputKey renders/out.mp4 does not match format webm: name a .webm object');
  assert.is(requests, 0);
});

checks('config.format webm and mov pass the checks and reach the endpoint', async () => {
  for (const [format, key] of [
    ['webm', 'renders/out.webm'],
    ['mov', 'renders/out.MOV'],
  ]) {
    requests = 0;
    const run = await renderToLambda({ format }, 'frame-clock', key);
    assert.not.match(run.error ?? '', /validateConfig|outputKey/, `${format}: ${run.error}`);
    assert.ok(requests > 0, `${format}: a valid render made requests`);
  }
});

checks('cloudfn render --format hdr-pq and render-batch --format hdr-hlg are refused before any request (exit 2)', async () => {
  requests = 0;
  const env = { ...TEST_CREDENTIALS, AWS_ENDPOINT_URL: endpoint, VIDKIT_BUCKET: 'b', VIDKIT_SFN_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:m' };
  const render = await vidkitAsync(['cloudfn', 'render', path.join(FIXTURES, 'color-var'), '--format', 'hdr-pq', '--wait'], { env });
  assert.is(render.status, 2, render.stderr);
  assert.equal(errorLines(render.stderr), [
    'vidkit: error: [validateConfig] config.format: format hdr-pq: the HDR mp4 output format is rejected in distributed mode; it is supported in-process only (vidkit render --format hdr-pq)',
  ]);
  const batchFile = path.join(out, 'hdr.jsonl');
  fs.writeFileSync(batchFile, '{"outputKey": "b/one.mp4", "variables": {}}\n');
  const batch = await vidkitAsync(['cloudfn', 'render-batch', path.join(FIXTURES, 'color-var'), '--batch', batchFile, '--format', 'hdr-hlg'], { env });
  assert.is(batch.status, 2, batch.stderr);
  assert.match(errorLines(batch.stderr)[0], /^vidkit: error: \[validateConfig\] config\.format: format hdr-hlg: the HDR mp4 output format is rejected in distributed mode/);
  assert.is(requests, 0);
});

checks('chunks likely to outrun the 15-minute cap are warned about with the options to use; small ones are not', async () => {
  const slow = await renderToLambda({ width: 6400, maxParallelChunks: 1 });
  assert.is(slow.warnings.length, 1, JSON.stringify(slow));
  assert.match(slow.warnings[0], /^chunks of 150 frames at 6400x3600 may outrun the 15-minute function cap \(about \d+ min each by estimate\); use more, shorter chunks: raise --max-parallel-chunks, or set --target-chunk-frames$/);
  const fast = await renderToLambda({});
  assert.equal(fast.warnings, []);
});

checks('config.seed and config.epoch are checked before any request and reach the execution input every chunk reads', async () => {
  requests = 0;
  assert.is((await renderToLambda({ seed: 7 })).error, '[validateConfig] config.seed: must be a string, got 7');
  assert.is((await renderToLambda({ epoch: '2024-02-30' })).error, `[validateConfig] config.epoch: must be ${EPOCH_FORMS}, got "2024-02-30"`);
  assert.is(requests, 0);
  const render = (config: RenderConfigInput) =>
    validateConfig({ siteHandle: prepareSite(path.join(FIXTURES, 'frame-clock')), bucketName: 'b', outputKey: 'renders/out.mp4', config }).input.render.config;
  const given = render({ seed: 'shapes', epoch: '2030-06-15T12:00:00+02:00' });
  assert.equal([given.seed, given.epoch], ['shapes', Date.UTC(2030, 5, 15, 10)]);
  assert.is(render({ epoch: 1_893_456_000_000 }).epoch, 1_893_456_000_000);
  // Unset, the render function applies the same defaults as `vidkit render` and the player.
  const unset = render({});
  assert.equal([unset.seed, unset.epoch], [undefined, undefined]);
});

checks('cloudfn render reads --variables-file before any request: a missing one is named', async () => {
  requests = 0;
  const run = await vidkitAsync(['cloudfn', 'render', path.join(FIXTURES, 'color-var'), '--variables-file', path.join(out, 'vars.json')], {
    env: { ...TEST_CREDENTIALS, AWS_ENDPOINT_URL: endpoint, VIDKIT_BUCKET: 'b', VIDKIT_SFN_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:m' },
  });
  assert.is(run.status, 2, run.stderr);
  assert.equal(errorLines(run.stderr), [`vidkit: error: cannot read --variables-file ${path.join(out, 'vars.json')}: ENOENT`]);
  assert.is(requests, 0);
});

checks('--help of each cloudfn command lists its options', () => {
  const help: Array<[string[], string[]]> = [
    [['cloudfn', 'deploy'], ['--concurrency', '--memory', '--image-uri']],
    [['cloudfn', 'sites', 'create'], ['<projectDir>', '--bucket']],
    [
      ['cloudfn', 'render'],
      ['--site-id', '--width', '--height', '--variables', '--format', '--output-key', '--wait', '--max-parallel-chunks', '--target-chunk-frames', '--chunk-size'],
    ],
    [['cloudfn', 'render-batch'], ['--batch', '--format', '--dry-run']],
    [['cloudfn', 'progress'], ['--json', '--state-machine-arn', '--stack-name']],
    [['cloudfn', 'render'], ['--stack-name', '--estimate', '--webhook', '--webhook-secret', '--webhook-allow-private']],
    [['cloudfn', 'destroy'], ['--stack-name', '--yes', '--json']],
    [['cloudfn', 'sites', 'ls'], ['--bucket', '--stack-name', '--json']],
    [['cloudfn', 'sites', 'rm'], ['<siteId>', '--bucket', '--stack-name']],
    [['cloudfn', 'renders', 'ls'], ['--limit', '--state-machine-arn', '--stack-name', '--json']],
  ];
  for (const [command, flags] of help) {
    const text = execFileSync(process.execPath, [built('cli', 'main.js'), ...command, '--help'], { encoding: 'utf8' });
    for (const flag of flags) assert.ok(text.includes(flag), `${command.join(' ')} --help mentions ${flag}`);
  }
});

checks.run();
