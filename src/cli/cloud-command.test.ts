import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TEST_CREDENTIALS } from '../test-support/aws-emulator';
import { freePort } from '../test-support/ports';
import { FIXTURES, errorLines, tempDir, vidkitAsync } from '../test-support/cli';

// AWS failures a user can fix end a cloudfn command with one error line and the exit code of
// src/errors.ts, never a stack trace.
const errors = suite('cloudfn errors from AWS');
const site = path.join(FIXTURES, 'frame-clock');
let server: http.Server;
let endpoint = '';

errors.before(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    res.statusCode = 400;
    res.setHeader('content-type', 'application/x-amz-json-1.0');
    res.end('{"__type":"AccessDeniedException","message":"no entry"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

errors.after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const EXECUTION = 'arn:aws:states:us-east-1:000000000000:execution:vidkit-render:0123456789abcdef';

async function run(env: NodeJS.ProcessEnv, args = ['cloudfn', 'sites', 'create', site]) {
  const result = await vidkitAsync(args, { env: { VIDKIT_BUCKET: 'b', AWS_MAX_ATTEMPTS: '1', ...env } });
  assert.not.match(result.stderr, /internal error|\n\s+at /);
  assert.is(errorLines(result.stderr).length, 1, result.stderr);
  return result;
}

errors('no region: exit 3, how to set one', async () => {
  // Undefined removes the variable from the child's environment.
  const r = await run({ AWS_REGION: undefined, AWS_DEFAULT_REGION: undefined, AWS_PROFILE: undefined, AWS_CONFIG_FILE: '/nonexistent', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'y' });
  assert.is(r.status, 3);
  assert.equal(errorLines(r.stderr), ['vidkit: error: no AWS region: set AWS_REGION, or a region in your AWS profile']);
});

errors('an unreachable endpoint: exit 3, naming it', async () => {
  const closed = `http://127.0.0.1:${await freePort()}`;
  const r = await run({ ...TEST_CREDENTIALS, AWS_ENDPOINT_URL: closed });
  assert.is(r.status, 3);
  assert.match(errorLines(r.stderr)[0], new RegExp(`^vidkit: error: cannot reach AWS at AWS_ENDPOINT_URL=${closed}: .*ECONNREFUSED`));
});

errors('a refused request: exit 1 with the service error', async () => {
  const r = await run({ ...TEST_CREDENTIALS, AWS_ENDPOINT_URL: endpoint }, ['cloudfn', 'progress', EXECUTION]);
  assert.is(r.status, 1);
  assert.equal(errorLines(r.stderr), ['vidkit: error: AWS refused the request: AccessDeniedException: no entry']);
});

const formats = suite('cloudfn formats');

formats('gif, png-sequence and hls are local only: exit 2 naming vidkit render, before any request', async () => {
  // A closed endpoint: a request would end in exit 3, "cannot reach AWS".
  const closed = `http://127.0.0.1:${await freePort()}`;
  for (const format of ['gif', 'png-sequence', 'hls']) {
    const r = await run({ ...TEST_CREDENTIALS, AWS_ENDPOINT_URL: closed }, ['cloudfn', 'render', site, '--format', format]);
    assert.is(r.status, 2, r.stderr);
    assert.equal(errorLines(r.stderr), [
      `vidkit: error: [validateConfig] config.format: format ${format} is rendered on this machine only (vidkit render --format ${format}); the cloud renders mp4, webm, mov`,
    ]);
  }
});

// A result far larger than a pipe holds (64 KiB) reaches a reader on a pipe whole: vidkit exits
// only once its output is written.
const output = suite('output on a pipe');

output('render-batch --dry-run --json over 20,000 lines prints every row, complete JSON, on a pipe', async () => {
  const file = path.join(tempDir('vidkit-big-json-'), 'batch.jsonl');
  const lines = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ outputKey: `renders/${i}.mp4`, variables: { fill: '#ff0000' } }));
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const result = await vidkitAsync(['cloudfn', 'render-batch', site, '--batch', file, '--dry-run', '--json'], { env: { VIDKIT_BUCKET: 'b' } });
  assert.is(result.status, 0, result.stderr);
  assert.ok(result.stdout.length > 1024 * 1024, `stdout ${result.stdout.length} bytes`);
  const rows = JSON.parse(result.stdout) as Array<{ status: string; outputKey: string }>;
  assert.is(rows.length, 20_000);
  assert.is(rows[19_999].outputKey, 'renders/19999.mp4');
});

errors.run();
formats.run();
output.run();
