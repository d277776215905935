import * as dgram from 'node:dgram';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { startCanary } from './canary';
import { tempDir, vidkitAsync } from './cli';
import { WORLD_ADDRESSES } from './network-namespace';

/**
 * Run by network-namespace.ts inside a network namespace of its own (never on this machine's
 * network): a small internet in which a page tries to reach what it must not, through
 * `vidkit render` with the arguments given on the command line.
 *
 * - 169.254.169.254:80, the cloud metadata address, and 10.0.0.5:80, a private one: canaries.
 * - 1.2.3.4:80 stands for a public server: `/to-private` redirects to the private canary.
 * - DNS on 127.0.0.1:53: `metadata.test` is 169.254.169.254; `rebind.test` answers 1.2.3.4 and
 *   10.0.0.5 in turn (DNS rebinding: a name checked as public that points inside on the next look-up).
 *
 * The composition asks for each from the page (answered from vidkit's download) and from a worker
 * (through the browser's egress gate). Prints `{status, stderr, metadata, private, public}` as JSON:
 * the paths each server was asked for.
 */
const { metadata: METADATA, inside: PRIVATE, outside: PUBLIC } = WORLD_ADDRESSES;

async function main(): Promise<void> {
  const metadata = await startCanary(METADATA, 80);
  const inside = await startCanary(PRIVATE, 80);
  const publicPaths: string[] = [];
  const origin = http.createServer((req, res) => {
    publicPaths.push(req.url ?? '/');
    if (req.url?.startsWith('/to-private')) return res.writeHead(302, { location: `http://${PRIVATE}/way/redirect-hop` }).end();
    res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/plain' }).end('public');
  });
  await new Promise<void>((resolve) => origin.listen(80, PUBLIC, resolve));
  const dns = await startDns({ 'metadata.test': () => METADATA, 'rebind.test': alternate([PUBLIC, PRIVATE]) });

  const dir = path.join(tempDir('vidkit-private-world-'), 'project');
  fs.mkdirSync(dir);
  const targets = [
    `http://${METADATA}/latest/meta-data/iam/security-credentials/`,
    'http://metadata.test/latest/meta-data/',
    `http://${PUBLIC}/to-private`,
    ...[1, 2, 3, 4].map((n) => `http://rebind.test/way/rebind-${n}`),
  ];
  fs.writeFileSync(path.join(dir, 'worker.js'), `onmessage = (e) => fetch(e.data).then(() => postMessage('done'), () => postMessage('done'));\n`);
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html data-composition-variables='[]'><body><div data-composition-id="private-world" data-width="160" data-height="90" data-duration="0.1"></div>
<script>
const targets = ${JSON.stringify(targets)};
const viaWorker = (url) => new Promise((resolve) => { const w = new Worker('worker.js'); w.onmessage = resolve; w.onerror = resolve; w.postMessage(url); });
const tries = targets.flatMap((url) => [viaWorker(url + '?worker'), fetch(url + '?page').catch(() => undefined)]);
window.__vidkit.waitFor(Promise.all(tries));
</script></body></html>
`,
  );
  const run = await vidkitAsync(['render', dir, '--output', path.join(dir, '..', 'out.mp4'), '--workers', '1', ...process.argv.slice(2)]);
  process.stdout.write(
    `${JSON.stringify({ status: run.status, stderr: run.stderr, metadata: metadata.paths(), private: inside.paths(), public: publicPaths })}\n`,
  );
  await Promise.all([metadata.close(), inside.close(), new Promise((resolve) => origin.close(resolve))]);
  dns.close();
}

/** Answers each look-up with the next of `addresses`, round and round. */
function alternate(addresses: string[]): () => string {
  let next = 0;
  return () => addresses[next++ % addresses.length];
}

/**
 * A DNS server on 127.0.0.1:53 (UDP) for the names of `answers`: an A query gets the address its
 * function returns, an AAAA query no answer, any other name NXDOMAIN.
 */
async function startDns(answers: Record<string, () => string>): Promise<dgram.Socket> {
  const socket = dgram.createSocket('udp4');
  socket.on('message', (query, from) => {
    let at = 12;
    const labels: string[] = [];
    while (query[at] !== 0) {
      labels.push(query.toString('ascii', at + 1, at + 1 + query[at]));
      at += query[at] + 1;
    }
    const type = query.readUInt16BE(at + 1);
    const question = query.subarray(12, at + 5);
    const answer: (() => string) | undefined = answers[labels.join('.').toLowerCase()];
    const address = type === 1 && answer !== undefined ? answer() : undefined;
    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0);
    header.writeUInt16BE(answer !== undefined ? 0x8180 : 0x8183, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(address ? 1 : 0, 6);
    const record = address
      ? Buffer.concat([Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4]), Buffer.from(address.split('.').map(Number))])
      : Buffer.alloc(0);
    socket.send(Buffer.concat([header, question, record]), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(53, '127.0.0.1', resolve));
  return socket;
}

void main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : err}\n`);
  process.exit(1);
});
