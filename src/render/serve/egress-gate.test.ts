// tier: unit
import * as http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CheckedAddress, EgressPolicy } from './egress-policy';
import { QUIET_MS, SETTLE_LIMIT_MS, openEgressGate } from './egress-gate';

// The gate's wait for the requests a page sent as a render ends (EgressGate.settled), with
// requests sent to it as Chromium sends them through its proxy: an absolute URL to the gate's port.
const gate = suite('egress gate: settling the page requests');

const portOf = (args: string[]) => Number(/127\.0\.0\.1:(\d+)/.exec(args[0])![1]);

/** A plain http: request through the gate, as the browser makes one; resolves with its status. */
function throughGate(port: number, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: url, method: 'POST' }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end('x');
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

gate('a request that comes after the last script ran, within the quiet time, is judged before settled() resolves', async () => {
  const refused: string[] = [];
  const egress = await openEgressGate(new EgressPolicy(), (message) => refused.push(message));
  try {
    const since = Date.now();
    const settled = egress.settled(since).then(() => [...refused]);
    await sleep(QUIET_MS / 2);
    const status = await throughGate(portOf(egress.args), 'http://127.0.0.1:9/way/beacon');
    assert.is(status, 403);
    const seenBySettle = await settled;
    assert.is(seenBySettle.length, 1, 'settled() resolved before the late request was judged');
    assert.match(seenBySettle[0], /http:\/\/127\.0\.0\.1:9\/way\/beacon was refused: 127\.0\.0\.1 is a loopback address/);
    assert.ok(Date.now() - since >= QUIET_MS + QUIET_MS / 2 - 5, 'the quiet time counts again from the late request');
  } finally {
    await egress.close();
  }
});

gate('settled() waits for a verdict under way, and resolves at once after the quiet time when nothing comes', async () => {
  let answer: (address: CheckedAddress) => void = () => undefined;
  class SlowPolicy extends EgressPolicy {
    override resolve(): Promise<CheckedAddress> {
      return new Promise((resolve) => (answer = resolve));
    }
  }
  const egress = await openEgressGate(new SlowPolicy(), () => undefined);
  try {
    const upstream = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamPort = (upstream.address() as { port: number }).port;
    const request = throughGate(portOf(egress.args), `http://example.test:${upstreamPort}/slow`);
    await sleep(50);
    let done = false;
    const settled = egress.settled(Date.now() - QUIET_MS).then(() => (done = true));
    await sleep(QUIET_MS * 2);
    assert.not.ok(done, 'settled() resolved while a verdict was under way');
    answer({ address: '127.0.0.1', family: 4 });
    assert.is(await request, 200);
    await settled;
    upstream.close();

    // Long after the last request and the last script: nothing to wait for, not the 5 s limit.
    const started = Date.now();
    await egress.settled(started - QUIET_MS * 10);
    assert.ok(Date.now() - started < SETTLE_LIMIT_MS / 2, `settled() waited ${Date.now() - started} ms with nothing to wait for`);
  } finally {
    await egress.close();
  }
});

gate.run();
