// tier: unit
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../../test-support/cli';
import { httpGet } from '../../test-support/http';
import { serveProject } from './project-server';
import { RemoteAssets } from './remote-assets';
import { EgressPolicy, privateAddressRefusal } from './egress-policy';
import { download } from './remote-fetch';

const MiB = 1024 * 1024;

interface Origin {
  url: string;
  /** Requests the origin answered, by path. */
  requests: string[];
  close(): Promise<void>;
}

/** A real HTTP server standing in for a remote origin, on `host` (loopback: nothing else is reachable here). */
async function origin(handle: (req: http.IncomingMessage, res: http.ServerResponse) => void, host = '127.0.0.1'): Promise<Origin> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url!);
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const png = (res: http.ServerResponse, headers: http.OutgoingHttpHeaders = {}) => res.writeHead(200, { 'content-type': 'image/png', ...headers }).end('png bytes');

/** What `assets.file(url)` threw. */
async function fetchError(assets: RemoteAssets, url: string): Promise<string> {
  try {
    await assets.file(url);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${url} was fetched`);
}

// --- private networks ----------------------------------------------------------------------------

const privateNetworks = suite('remote assets: private networks');

privateNetworks('loopback, private, CGNAT, link-local, ULA, unspecified and IPv4-mapped addresses are refused; public unicast is not', () => {
  const refused = [
    '127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.254', '192.168.1.20', '100.64.0.1', '100.127.255.254',
    '169.254.169.254', '0.0.0.0', '0.1.2.3', '224.0.0.1', '255.255.255.255',
    '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:169.254.169.254',
  ];
  for (const address of refused) assert.ok(privateAddressRefusal(address), `${address} refused`);
  for (const address of ['8.8.8.8', '1.1.1.1', '100.63.255.255', '172.32.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8']) {
    assert.is(privateAddressRefusal(address), undefined, `${address} allowed`);
  }
  assert.is(privateAddressRefusal('127.0.0.1'), 'a loopback address, refused (a local render allows private networks with --allow-private-network)');
});

privateNetworks('a URL on loopback is refused before any request, by address, by name and as IPv4-mapped IPv6; allowed with allowPrivateNetwork', async () => {
  const cdn = await origin((_req, res) => png(res));
  const port = new URL(cdn.url).port;
  try {
    const assets = new RemoteAssets({ dir: tempDir('vidkit-assets-'), allowMissing: false });
    assert.is(
      await fetchError(assets, `${cdn.url}/a.png`),
      `media ${cdn.url}/a.png could not be fetched: 127.0.0.1 is a loopback address, refused (a local render allows private networks with --allow-private-network)`,
    );
    assert.match(await fetchError(assets, `http://localhost:${port}/b.png`), new RegExp(`^media http://localhost:${port}/b.png could not be fetched: localhost resolves to (127\\.0\\.0\\.1|::1), a loopback address, refused \\(a local render allows private networks with --allow-private-network\\)$`));
    // Loopback by definition, with a final dot or below localhost: the policy's answer, not DNS's (ENOTFOUND).
    for (const host of ['localhost.', 'preview.localhost', 'LOCALHOST.']) {
      assert.match(await fetchError(assets, `http://${host}:${port}/e.png`), new RegExp(`could not be fetched: ${host.replace(/\./g, '\\.')} resolves to (127\\.0\\.0\\.1|::1), a loopback address, refused`, 'i'));
    }
    for (const host of ['localhost.', 'preview.localhost.']) {
      const refused = await new EgressPolicy().resolve(host, Number(port)).then(() => 'resolved', (err: Error) => err.message);
      assert.match(refused, new RegExp(`^${host.replace(/\./g, '\\.')} resolves to (127\\.0\\.0\\.1|::1), a loopback address, refused`));
    }
    assert.match(await fetchError(assets, `http://[::ffff:127.0.0.1]:${port}/c.png`), /could not be fetched: ::ffff:7f00:1 is a loopback address/);
    assert.match(await fetchError(assets, `http://2130706433:${port}/d.png`), /could not be fetched: 127\.0\.0\.1 is a loopback address/);
    assert.equal(cdn.requests, []);

    // The stand-in origin is on loopback, which is exactly what the option allows.
    const allowed = new RemoteAssets({ dir: tempDir('vidkit-assets-'), allowMissing: false, policy: new EgressPolicy({ allowPrivateNetwork: true }) });
    assert.is(fs.readFileSync(await allowed.file(`${cdn.url}/a.png`), 'utf8'), 'png bytes');
  } finally {
    await cdn.close();
  }
});

privateNetworks('each redirect is checked again: to a refused address, or to another scheme, it fails without connecting', async () => {
  // Two loopback origins, one of which this policy treats as private: no public address is reachable here.
  const inner = await origin((_req, res) => png(res), '127.0.0.2');
  const outer = await origin((req, res) => {
    const to = req.url === '/to-inner' ? `${inner.url}/secret.png` : req.url === '/to-file' ? 'file:///etc/passwd' : '/a.png';
    if (req.url === '/a.png') return png(res);
    res.writeHead(302, { location: to }).end();
  });
  const limits = { refuseAddress: (a: string) => (a === '127.0.0.2' ? 'the inner network' : undefined), maxBytes: MiB, timeoutMs: 10_000 };
  const dir = tempDir('vidkit-assets-');
  try {
    await download(`${outer.url}/to-self`, path.join(dir, 'self.png'), limits);
    assert.is(fs.readFileSync(path.join(dir, 'self.png'), 'utf8'), 'png bytes', 'a redirect to an allowed address is followed');
    for (const [from, reason] of [
      ['/to-inner', `redirected to ${inner.url}/secret.png: 127.0.0.2 is the inner network`],
      ['/to-file', 'redirected to file:///etc/passwd: file: is not fetched, only http: and https:'],
    ]) {
      const error = await download(`${outer.url}${from}`, path.join(dir, 'x.png'), limits).then(() => 'fetched', (err: Error) => err.message);
      assert.is(error, reason);
    }
    assert.equal(inner.requests, []);
    assert.equal(fs.readdirSync(dir), ['self.png']);
  } finally {
    await inner.close();
    await outer.close();
  }
});

// --- size --------------------------------------------------------------------------------------------

const size = suite('remote assets: size limit');

/** An origin streaming `total` bytes of zeros, with or without a Content-Length, as fast as it is read. */
function streamingOrigin(total: number, withLength: boolean): Promise<Origin> {
  const chunk = Buffer.alloc(MiB);
  return origin((_req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4', ...(withLength ? { 'content-length': total } : {}) });
    let sent = 0;
    const write = () => {
      while (sent < total && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', write);
      }
      res.end();
    };
    res.on('error', () => undefined);
    write();
  });
}

for (const withLength of [false, true]) {
  size(`a 64 MiB body over an 8 MiB limit${withLength ? ' (Content-Length says so)' : ' (no Content-Length)'} is refused without holding it in memory and leaves no file`, async () => {
    const cdn = await streamingOrigin(64 * MiB, withLength);
    const dir = tempDir('vidkit-assets-');
    // The stand-in origin is on loopback.
    const assets = new RemoteAssets({ dir, allowMissing: false, policy: new EgressPolicy({ allowPrivateNetwork: true }), maxBytes: 8 * MiB });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 1);
    try {
      const error = await fetchError(assets, `${cdn.url}/big.mp4`);
      peak = Math.max(peak, process.memoryUsage().rss);
      assert.is(
        error,
        withLength
          ? `media ${cdn.url}/big.mp4 could not be fetched: it is 67108864 bytes (Content-Length), over the limit of 8388608 bytes per asset (--max-asset-bytes)`
          : `media ${cdn.url}/big.mp4 could not be fetched: it is over the limit of 8388608 bytes per asset (--max-asset-bytes)`,
      );
      assert.ok(peak - before < 32 * MiB, `RSS grew ${((peak - before) / MiB).toFixed(1)} MiB while refusing a 64 MiB body`);
      assert.equal(fs.readdirSync(dir), []);
    } finally {
      clearInterval(sampler);
      await cdn.close();
    }
  });
}

size('a body within the limit is kept whole', async () => {
  const cdn = await streamingOrigin(3 * MiB, false);
  const assets = new RemoteAssets({ dir: tempDir('vidkit-assets-'), allowMissing: false, policy: new EgressPolicy({ allowPrivateNetwork: true }), maxBytes: 3 * MiB });
  try {
    assert.is(fs.statSync(await assets.file(`${cdn.url}/ok.mp4`)).size, 3 * MiB);
  } finally {
    await cdn.close();
  }
});

// --- CORS --------------------------------------------------------------------------------------------

const cors = suite('remote assets: CORS headers');

cors('a copy is served with the CORS headers its origin sent, and none where it sent none', async () => {
  let origins: (string | undefined)[] = [];
  const cdn = await origin((req, res) => {
    origins.push(req.headers.origin);
    if (req.url === '/closed.png') return png(res);
    if (req.url === '/open.png') return png(res, { 'access-control-allow-origin': '*', 'timing-allow-origin': '*' });
    // As S3 and CloudFront do: CORS headers only for a request with an Origin.
    png(res, req.headers.origin ? { 'access-control-allow-origin': req.headers.origin, 'access-control-expose-headers': 'x-id', vary: 'Origin' } : {});
  });
  const remoteDir = tempDir('vidkit-assets-');
  const server = await serveProject(tempDir('vidkit-project-'), { remoteDir });
  const page = new URL(server.url).origin;
  // The stand-in origin is on loopback.
  const assets = new RemoteAssets({ dir: remoteDir, allowMissing: false, policy: new EgressPolicy({ allowPrivateNetwork: true }), origin: page });
  try {
    const served = async (name: string) => {
      const url = `${cdn.url}/${name}`;
      await assets.file(url);
      const res = await httpGet(server.url, `/__vidkit-remote/${assets.nameOf(url)}`);
      assert.is(res.body, 'png bytes');
      return Object.fromEntries(Object.entries(res.headers).filter(([k]) => k.startsWith('access-control-') || k === 'timing-allow-origin'));
    };
    assert.equal(await served('closed.png'), {});
    assert.equal(await served('open.png'), { 'access-control-allow-origin': '*', 'timing-allow-origin': '*' });
    assert.equal(await served('reflecting.png'), { 'access-control-allow-origin': page, 'access-control-expose-headers': 'x-id' });
    assert.equal(origins, [page, page, page]);
    // An audio file's FLAC copy stands for the remote file, so it carries the file's headers.
    for (const [name, proxy] of [['open.png', 'open.proxy.flac'], ['closed.png', 'closed.proxy.flac']]) {
      fs.writeFileSync(path.join(remoteDir, proxy), 'png bytes');
      assets.shareCors(`${cdn.url}/${name}`, proxy);
    }
    assert.is((await httpGet(server.url, '/__vidkit-remote/open.proxy.flac')).headers['access-control-allow-origin'], '*');
    assert.is((await httpGet(server.url, '/__vidkit-remote/closed.proxy.flac')).headers['access-control-allow-origin'], undefined);
    const sidecars = fs.readdirSync(remoteDir).filter((f) => f.startsWith('.'));
    assert.is(sidecars.length, 5);
    for (const sidecar of sidecars) assert.is((await httpGet(server.url, `/__vidkit-remote/${sidecar}`)).status, 404);
  } finally {
    origins = [];
    await server.close();
    await cdn.close();
  }
});

privateNetworks.run();
size.run();
cors.run();
