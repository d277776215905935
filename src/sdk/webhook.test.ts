import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deliverWebhook } from '../lambda/webhook-delivery';
import { TEST_CREDENTIALS } from '../test-support/aws-emulator';
import { FIXTURES, errorLines, vidkitAsync } from '../test-support/cli';
import { freePort } from '../test-support/ports';
import { WebhookPayload, verifyWebhookSignature } from './webhook';

// Delivery as the render function makes it, to a real receiver on loopback: signed, retried on
// 5xx and network failures with the same delivery id, not retried on other 4xx, and never to a
// private address unless allowed. Then the CLI's refusals, all before any AWS request.
const SECRET = 's3cret';
const PAYLOAD: WebhookPayload = {
  type: 'render.succeeded',
  renderId: '0123456789abcdef',
  executionArn: 'arn:aws:states:us-east-1:000000000000:execution:vidkit-render:0123456789abcdef',
  bucket: 'b',
  outputKey: 'renders/a.mp4',
  output: { url: 's3://b/renders/a.mp4', frames: 30, bytes: 1234 },
  sentAt: '2026-01-01T00:00:00.000Z',
};
const FAST = { attempts: 3, firstDelayMs: 10, timeoutMs: 5000 };

interface Hit {
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}
let hits: Hit[] = [];
/** Statuses the receiver answers with, one per request; 200 once they run out. */
let answers: number[] = [];
let server: http.Server;
let url = '';

const delivery = suite('webhook delivery');

delivery.before(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      hits.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.statusCode = answers.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});

delivery.before.each(() => {
  hits = [];
  answers = [];
});

delivery.after(() => new Promise<void>((resolve) => server.close(() => resolve())));

delivery('a 503 is retried: two signed requests with one delivery id, then delivered', async () => {
  answers = [503];
  const result = await deliverWebhook({ url, secret: SECRET, allowPrivateNetwork: true }, PAYLOAD, FAST);
  assert.equal(result, { delivered: true, attempts: 2, status: 200 });
  assert.is(hits.length, 2);
  assert.is(hits[0].headers['x-vidkit-delivery'], hits[1].headers['x-vidkit-delivery']);
  for (const hit of hits) {
    assert.equal(JSON.parse(hit.body.toString('utf8')), PAYLOAD);
    assert.ok(verifyWebhookSignature({ body: hit.body, signature: hit.headers['x-vidkit-signature'], secret: SECRET }));
  }
});

delivery('a 400 is final: one request, not delivered', async () => {
  answers = [400];
  const result = await deliverWebhook({ url, secret: SECRET, allowPrivateNetwork: true }, PAYLOAD, FAST);
  assert.equal(result, { delivered: false, attempts: 1, status: 400 });
  assert.is(hits.length, 1);
});

delivery('5xx every time: every attempt made, then given up with the last status', async () => {
  answers = [500, 502, 503];
  const result = await deliverWebhook({ url, secret: SECRET, allowPrivateNetwork: true }, PAYLOAD, FAST);
  assert.equal(result, { delivered: false, attempts: 3, status: 503, error: 'HTTP 503' });
  assert.is(hits.length, 3);
});

delivery('a refused connection is retried, then reported', async () => {
  const closed = `http://127.0.0.1:${await freePort()}/hook`;
  const result = await deliverWebhook({ url: closed, secret: SECRET, allowPrivateNetwork: true }, PAYLOAD, FAST);
  assert.is(result.delivered, false);
  assert.is(result.attempts, 3);
  assert.match(result.error!, /ECONNREFUSED/);
});

delivery('loopback without allowPrivateNetwork: refused at once, by address and by name', async () => {
  const byAddress = await deliverWebhook({ url, secret: SECRET }, PAYLOAD, FAST);
  assert.equal(byAddress, {
    delivered: false,
    attempts: 1,
    error: '127.0.0.1 is a loopback address, refused (allow private networks with webhook.allowPrivateNetwork, --webhook-allow-private)',
  });
  const byName = await deliverWebhook({ url: url.replace('127.0.0.1', 'localhost'), secret: SECRET }, PAYLOAD, FAST);
  assert.is(byName.attempts, 1);
  assert.match(byName.error!, /^localhost resolves to (127\.0\.0\.1|::1), a loopback address, refused/);
  assert.is(hits.length, 0, 'nothing reached the receiver');
});

delivery.run();

const flags = suite('cloudfn render --webhook: refused before any request');

/** AWS at a closed port: a command that made any request would exit 3 (cannot reach AWS), not 2. */
async function render(args: string[], env: NodeJS.ProcessEnv = {}) {
  const endpoint = `http://127.0.0.1:${await freePort()}`;
  return vidkitAsync(['cloudfn', 'render', path.join(FIXTURES, 'frame-clock'), '--output-key', 'renders/a.mp4', ...args], {
    env: { ...TEST_CREDENTIALS, AWS_ENDPOINT_URL: endpoint, VIDKIT_BUCKET: undefined, VIDKIT_SFN_ARN: undefined, VIDKIT_WEBHOOK_SECRET: undefined, ...env },
  });
}

flags('a loopback URL without --webhook-allow-private', async () => {
  const r = await render(['--webhook', 'http://127.0.0.1:9/hook'], { VIDKIT_WEBHOOK_SECRET: 'k' });
  assert.is(r.status, 2, r.stderr);
  assert.equal(errorLines(r.stderr), ['vidkit: error: --webhook http://127.0.0.1:9/hook is a loopback address, refused: allow private networks with --webhook-allow-private']);
});

flags('no secret, a bad URL, a secret without --webhook', async () => {
  const noSecret = await render(['--webhook', 'https://hooks.example.com/vidkit']);
  assert.is(noSecret.status, 2, noSecret.stderr);
  assert.match(errorLines(noSecret.stderr)[0], /^vidkit: error: --webhook-secret \(or VIDKIT_WEBHOOK_SECRET\) is required with a webhook/);
  const badUrl = await render(['--webhook', 'ftp://hooks.example.com/x', '--webhook-secret', 'k']);
  assert.is(badUrl.status, 2, badUrl.stderr);
  assert.equal(errorLines(badUrl.stderr), ['vidkit: error: --webhook must be an http or https URL, got ftp://hooks.example.com/x']);
  const alone = await render(['--webhook-secret', 'k']);
  assert.is(alone.status, 2, alone.stderr);
  assert.equal(errorLines(alone.stderr), ['vidkit: error: --webhook-secret and --webhook-allow-private go with --webhook <url>']);
});

flags.run();
