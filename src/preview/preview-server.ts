import * as fs from 'node:fs';
import type * as http from 'node:http';
import * as path from 'node:path';
import { loadComposition } from '../composition/composition';
import { ExitCode, VidkitError, errorMessage } from '../errors';
import { PACKAGE_ROOT } from '../package-info';
import { ProjectServer, serveProject } from '../render/project-server';
import { previewPageHtml } from './preview-page';
import { watchProject } from './project-watcher';

/** Browser modules built by `npm run build:ts` (scripts/build-browser.mjs). */
const ASSETS: Record<string, string> = {
  '/__vidkit/player.js': path.join(PACKAGE_ROOT, 'dist', 'player', 'vidkit-player.js'),
  '/__vidkit/panel.js': path.join(PACKAGE_ROOT, 'dist', 'preview', 'variables-panel.js'),
};

export interface PreviewOptions {
  projectDir: string;
  port: number;
  host: string;
  /** Serves the script of a service worker the page registers (refused by default). */
  allowServiceWorkers?: boolean;
  onChange?: (file: string) => void;
}

/**
 * The project served as it is rendered, plus the preview page at `/`, the composition's
 * declarations at `/__vidkit/composition`, and a server-sent event on `/__vidkit/events` each
 * time a project file is saved.
 */
export async function startPreview(opts: PreviewOptions): Promise<ProjectServer> {
  const projectDir = path.resolve(opts.projectDir);
  const first = loadComposition(projectDir);
  for (const file of Object.values(ASSETS)) {
    if (!fs.existsSync(file)) throw new VidkitError(`${file} is missing: run npm run build:ts`);
  }
  const listeners = new Set<http.ServerResponse>();
  const handle = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    const route = new URL(req.url ?? '/', 'http://preview').pathname;
    if (route === '/') return send(res, 200, 'text/html', previewPageHtml(first.id));
    if (route in ASSETS) return send(res, 200, 'text/javascript', fs.readFileSync(ASSETS[route]));
    if (route === '/__vidkit/composition') return sendComposition(res, projectDir);
    if (route === '/__vidkit/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      res.write(': connected\n\n');
      listeners.add(res);
      req.on('close', () => listeners.delete(res));
      return true;
    }
    return false;
  };
  let server: ProjectServer;
  try {
    server = await serveProject(projectDir, { port: opts.port, host: opts.host, handle, allowServiceWorkers: opts.allowServiceWorkers });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new VidkitError(`port ${opts.port} on ${opts.host} is in use: pass another --port`, { exitCode: ExitCode.BadInput });
    throw new VidkitError(`cannot listen on ${opts.host}:${opts.port}: ${errorMessage(err)}`, { exitCode: ExitCode.BadInput });
  }
  const stopWatching = watchProject(projectDir, (file) => {
    opts.onChange?.(file);
    const data = JSON.stringify({ file: path.relative(projectDir, file) });
    for (const res of listeners) res.write(`event: change\ndata: ${data}\n\n`);
  });
  return {
    url: server.url,
    close: async () => {
      stopWatching();
      for (const res of listeners) res.end();
      await server.close();
    },
  };
}

function sendComposition(res: http.ServerResponse, projectDir: string): boolean {
  try {
    const c = loadComposition(projectDir);
    const body = { id: c.id, width: c.width, height: c.height, durationSeconds: c.durationSeconds, fps: c.fps, declarations: c.variables.declarations };
    return send(res, 200, 'application/json', JSON.stringify(body));
  } catch (err) {
    // A half-edited file is normal while authoring: the page shows why and waits for the next save.
    return send(res, 422, 'application/json', JSON.stringify({ error: errorMessage(err) }));
  }
}

function send(res: http.ServerResponse, status: number, type: string, body: string | Buffer): true {
  res.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store' });
  res.end(body);
  return true;
}
