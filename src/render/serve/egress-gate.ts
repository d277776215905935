import * as http from 'node:http';
import * as net from 'node:net';
import type { Duplex } from 'node:stream';
import { errorMessage } from '../../errors';
import { EgressPolicy, EgressRefusal } from './egress-policy';

/**
 * One browser's way out: an HTTP proxy on loopback that every connection of the browser goes
 * through (docs/explanation/security-model.md). Chromium sends every http: request to it and opens every
 * https:, ws: and wss: connection as a CONNECT tunnel through it, whichever target asks: the page,
 * its iframes, dedicated, shared and service workers, prefetches, beacons, each hop of a redirect.
 * The gate resolves each host once, asks the {@link EgressPolicy} about every address, and connects
 * to the address it checked; what the policy refuses never gets a connection, and is reported
 * through `onRefused`.
 */
export interface EgressGate {
  /** The Chromium switches that send all of the browser's traffic through the gate. */
  args: string[];
  /**
   * Resolves once no request or tunnel awaits the policy's verdict and none has come for
   * {@link QUIET_MS} after `since` (a time in ms from `Date.now()`), or after {@link SETTLE_LIMIT_MS}
   * at most; never rejects. A request a page sends as a render ends (a beacon, a keepalive fetch,
   * a WebSocket) reaches the gate a moment after the script that sent it: the render waits for
   * it, so that a refusal fails the render that made it, not the next one or none.
   */
  settled(since: number): Promise<void>;
  close(): Promise<void>;
}

/** Milliseconds without a new request after which a page's requests are taken to have all come. */
export const QUIET_MS = 300;
/** The longest {@link EgressGate.settled} waits, for verdicts that need a name resolved. */
export const SETTLE_LIMIT_MS = 5_000;

/** Headers about the hop to the proxy, not the request: never passed on. */
const HOP_HEADERS = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

/** Milliseconds a connection to an allowed address may take to open. */
const CONNECT_TIMEOUT_MS = 30_000;

export async function openEgressGate(policy: EgressPolicy, onRefused: (message: string) => void): Promise<EgressGate> {
  const sockets = new Set<net.Socket | Duplex>();
  const track = (socket: net.Socket | Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  // Keeps connections to the project server (and other allowed origins) open between requests;
  // each is made to an address the policy checked, and a pooled one is reused only for that address.
  const agent = new http.Agent({ keepAlive: true });
  // When the last request or tunnel came, and how many await the policy's verdict.
  let lastArrival = 0;
  let awaiting = 0;
  const judged = <T>(verdict: Promise<T>): Promise<T> => {
    awaiting += 1;
    return verdict.finally(() => (awaiting -= 1));
  };

  const server = http.createServer((req, res) => {
    lastArrival = Date.now();
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return res.writeHead(400).end('the egress gate forwards absolute http: URLs only');
    }
    if (url.protocol !== 'http:') return res.writeHead(400).end(`the egress gate does not forward ${url.protocol}`);
    // Chromium marks the fetch of a service worker's script; refusing it refuses the registration.
    if (req.headers['service-worker'] === 'script' && !policy.allowServiceWorkers) {
      onRefused(`the page registered a service worker (${url.href}), refused: a render allows service workers with --allow-service-workers`);
      return res.writeHead(403).end('service workers are refused');
    }
    const port = Number(url.port || 80);
    judged(policy.resolve(url.hostname, port)).then(
      ({ address, family }) => {
        const headers = { ...req.headers };
        for (const name of HOP_HEADERS) delete headers[name];
        const upstream = http.request(
          { host: address, family, port, method: req.method, path: `${url.pathname}${url.search}`, headers, agent, timeout: CONNECT_TIMEOUT_MS },
          (answer) => {
            const answerHeaders = { ...answer.headers };
            for (const name of HOP_HEADERS) delete answerHeaders[name];
            res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answerHeaders);
            answer.pipe(res);
            answer.on('error', () => res.destroy());
          },
        );
        upstream.on('timeout', () => upstream.destroy(new Error('no connection within the time allowed')));
        upstream.on('error', (err) => {
          if (res.headersSent) res.destroy();
          else res.writeHead(502).end(errorMessage(err));
        });
        res.on('close', () => {
          if (!res.writableFinished) upstream.destroy();
        });
        req.pipe(upstream);
      },
      (err) => {
        if (err instanceof EgressRefusal) onRefused(`the page's request for ${url.href} was refused: ${err.message}`);
        res.writeHead(err instanceof EgressRefusal ? 403 : 502).end(errorMessage(err));
      },
    );
  });

  // https:, ws:, wss: (and WebRTC's TCP through the proxy): a tunnel to host:port, after the check.
  server.on('connect', (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    lastArrival = Date.now();
    track(client);
    client.on('error', () => client.destroy());
    const target = authority(req.url ?? '');
    if (!target) return client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    judged(policy.resolve(target.host, target.port)).then(
      ({ address, family }) => {
        const upstream = net.connect({ host: address, family, port: target.port, timeout: CONNECT_TIMEOUT_MS });
        track(upstream);
        upstream.once('connect', () => {
          upstream.setTimeout(0);
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length > 0) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on('timeout', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
        upstream.on('close', () => client.destroy());
        client.on('close', () => upstream.destroy());
      },
      (err) => {
        if (err instanceof EgressRefusal) onRefused(`the page's connection to ${target.host}:${target.port} (https, wss or ws) was refused: ${err.message}`);
        client.end(`HTTP/1.1 ${err instanceof EgressRefusal ? '403 Forbidden' : '502 Bad Gateway'}\r\n\r\n`);
      },
    );
  });

  // Chromium tunnels WebSockets with CONNECT; an upgrade on a plain request is not forwarded.
  server.on('upgrade', (_req, socket: Duplex) => socket.end('HTTP/1.1 501 Not Implemented\r\n\r\n'));
  server.on('connection', track);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    args: [
      `--proxy-server=http://127.0.0.1:${port}`,
      // Loopback too (Chromium sends it direct by default): the project server is reached through the gate.
      '--proxy-bypass-list=<-loopback>',
      // WebRTC may not send UDP of its own (ICE, STUN): only TCP through the proxy.
      '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
      // The browser resolves no name itself: names travel to the gate, which resolves and checks them.
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ],
    settled: (since) =>
      new Promise<void>((resolve) => {
        const limit = Date.now() + SETTLE_LIMIT_MS;
        const check = () => {
          const now = Date.now();
          const quietUntil = Math.max(since, lastArrival) + QUIET_MS;
          if (now >= limit || (awaiting === 0 && now >= quietUntil)) return resolve();
          setTimeout(check, awaiting > 0 ? 20 : Math.min(quietUntil - now, limit - now));
        };
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}

/** `host:port` of a CONNECT request (an IPv6 host in brackets); undefined when it is not one. */
function authority(value: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]\s]+):(\d{1,5})$/i.exec(value);
  if (!match) return undefined;
  const port = Number(match[2]);
  return port > 0 && port < 65536 ? { host: match[1], port } : undefined;
}
