import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import sirv from 'sirv';

export interface ProjectServer {
  /** Base URL ending in '/', on loopback unless another host was asked for. */
  url: string;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** 0 (the default) takes any free port. */
  port?: number;
  /** Default 127.0.0.1: nothing outside this machine can reach the project. */
  host?: string;
  /** Answers a request before the project's files are looked up; returns whether it did. */
  handle?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean;
}

/**
 * Serves the project directory so relative assets resolve as they do in preview.
 * sirv resolves paths inside the directory only, so a request cannot escape it.
 */
export async function serveProject(projectDir: string, options: ServeOptions = {}): Promise<ProjectServer> {
  const serve = sirv(projectDir, { dev: true, dotfiles: false, etag: false });
  const server = http.createServer((req, res) => {
    if (options.handle?.(req, res)) return;
    serve(req, res, () => {
      res.statusCode = 404;
      res.end('not found');
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
