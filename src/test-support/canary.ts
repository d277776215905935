import { createHash } from 'node:crypto';
import * as dgram from 'node:dgram';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One thing that reached the canary. */
export interface CanaryHit {
  /** `http` (a request, its path), `websocket` (an upgrade, its path), `tcp` (a connection, whatever it carried), `udp` (a datagram). */
  kind: 'http' | 'websocket' | 'tcp' | 'udp';
  /** The request's path for http and websocket; empty otherwise. */
  path: string;
}

/**
 * A server a page should never reach, recording everything that does: every TCP connection, every
 * HTTP request and WebSocket upgrade on it (by path), and every UDP datagram to the same port. It
 * answers as a permissive server would, so a page that may reach it sees it work: 200 with
 * `Access-Control-Allow-Origin: *`, an event stream under `/events`, a completed WebSocket handshake.
 */
export interface Canary {
  /** `http://<host>:<port>` */
  url: string;
  host: string;
  port: number;
  hits: CanaryHit[];
  /** The paths of the http and websocket hits. */
  paths(): string[];
  close(): Promise<void>;
}

export async function startCanary(host = '127.0.0.1', port = 0): Promise<Canary> {
  const hits: CanaryHit[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    hits.push({ kind: 'http', path: url });
    const headers = { 'access-control-allow-origin': '*', 'cache-control': 'no-store' };
    if (url.includes('/events')) {
      res.writeHead(200, { ...headers, 'content-type': 'text/event-stream' });
      res.write('data: reached\n\n');
      return;
    }
    if (url.endsWith('.js')) {
      res.writeHead(200, { ...headers, 'content-type': 'text/javascript' }).end('self.reached = true;');
      return;
    }
    res.writeHead(200, { ...headers, 'content-type': 'text/html' }).end('reached');
  });
  server.on('connection', (socket: Socket) => {
    hits.push({ kind: 'tcp', path: '' });
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (req, socket) => {
    hits.push({ kind: 'websocket', path: req.url ?? '/' });
    const key = String(req.headers['sec-websocket-key'] ?? '');
    const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
  });
  const udp = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
  udp.on('message', () => hits.push({ kind: 'udp', path: '' }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(bound, host, () => resolve());
  });
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    host,
    port: bound,
    hits,
    paths: () => hits.filter((h) => h.kind === 'http' || h.kind === 'websocket').map((h) => h.path),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        udp.close();
        server.close(() => resolve());
      }),
  };
}
