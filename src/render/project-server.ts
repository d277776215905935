import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import sirv from 'sirv';

export interface ProjectServer {
  /** Base URL ending in '/', on loopback unless another host was asked for. */
  url: string;
  close(): Promise<void>;
}

/** Where {@link serveProject} serves the render's fetched remote media (see remote-assets.ts). */
export const REMOTE_PREFIX = '/__vidkit-remote/';

export interface ServeOptions {
  /** 0 (the default) takes any free port. */
  port?: number;
  /** Default 127.0.0.1: nothing outside this machine can reach the project. */
  host?: string;
  /** Answers a request before the project's files are looked up; returns whether it did. */
  handle?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean;
  /** The render's copies of remote media, served under {@link REMOTE_PREFIX}. */
  remoteDir?: string;
}

/**
 * Serves the project directory so relative assets resolve as they do in preview, and, under
 * {@link REMOTE_PREFIX}, `remoteDir`. sirv resolves paths inside its directory only, so a request
 * cannot escape it, and it answers the range requests that media elements make.
 */
export async function serveProject(projectDir: string, options: ServeOptions = {}): Promise<ProjectServer> {
  const serve = sirv(projectDir, { dev: true, dotfiles: false, etag: false });
  // The page asked the remote origin, so its CORS check (fonts, crossorigin media) applies to
  // this answer; the remote copy is this render's own, on loopback.
  const serveRemote =
    options.remoteDir === undefined
      ? undefined
      : sirv(options.remoteDir, { dev: true, dotfiles: false, etag: false, setHeaders: (res) => res.setHeader('access-control-allow-origin', '*') });
  const notFound = (res: http.ServerResponse) => {
    res.statusCode = 404;
    res.end('not found');
  };
  const server = http.createServer((req, res) => {
    if (options.handle?.(req, res)) return;
    if (serveRemote && req.url?.startsWith(REMOTE_PREFIX)) {
      req.url = req.url.slice(REMOTE_PREFIX.length - 1);
      return serveRemote(req, res, () => notFound(res));
    }
    return serve(req, res, () => notFound(res));
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
