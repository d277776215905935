import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import sirv from 'sirv';

export interface ProjectServer {
  /** Base URL ending in '/', on loopback. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the project directory on 127.0.0.1 so relative assets resolve as they do in preview.
 * sirv resolves paths inside the directory only, so a request cannot escape it.
 */
export async function serveProject(projectDir: string): Promise<ProjectServer> {
  const serve = sirv(projectDir, { dev: true, dotfiles: false, etag: false });
  const server = http.createServer((req, res) =>
    serve(req, res, () => {
      res.statusCode = 404;
      res.end('not found');
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
