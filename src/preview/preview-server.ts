import * as fs from 'node:fs';
import type * as http from 'node:http';
import * as path from 'node:path';
import { ENTRY_FILE, loadComposition } from '../composition/composition';
import { ExitCode, VidkitError, errorMessage } from '../errors';
import { PACKAGE_ROOT } from '../package-info';
import { ProjectServer, serveProject } from '../render/serve/project-server';
import { EventStream } from './event-stream';
import { previewPageHtml } from './preview-page';
import { watchProject } from './project-watcher';
import { StudioJobs } from './studio-jobs';
import { compositionInfo, studioRoutes } from './studio-routes';

/** Browser modules built by `npm run build:ts` (scripts/build-browser.mjs). */
const ASSETS: Record<string, string> = {
  '/__vidkit/player.js': path.join(PACKAGE_ROOT, 'dist', 'player', 'vidkit-player.js'),
  '/__vidkit/studio.js': path.join(PACKAGE_ROOT, 'dist', 'preview', 'studio.js'),
};

export interface PreviewOptions {
  projectDir: string;
  port: number;
  host: string;
  /** Serves the script of a service worker the page registers (refused by default). */
  allowServiceWorkers?: boolean;
  onChange?: (file: string) => void;
  /** Renders that may wait behind the running one (default 8, `RENDER_MAX_WAITING`); one more is answered 429. */
  maxWaiting?: number;
  /** A render of the page's queue warns (a variable of the wrong type, a missing medium allowed). */
  onWarning?: (message: string) => void;
}

/**
 * The project served as it is rendered, plus the preview page at `/`, the composition's
 * declarations at `/__vidkit/composition`, the studio's routes under `/__vidkit/studio/`
 * (studio-routes.ts), and server-sent events on `/__vidkit/events`: `change` each time a project
 * file is saved, `job` each time a render of the queue moves on.
 */
export async function startPreview(opts: PreviewOptions): Promise<ProjectServer> {
  const projectDir = path.resolve(opts.projectDir);
  const first = loadComposition(projectDir);
  for (const file of Object.values(ASSETS)) {
    if (!fs.existsSync(file)) throw new VidkitError(`${file} is missing: run npm run build:ts`);
  }
  const events = new EventStream();
  const jobs = new StudioJobs((job) => events.send('job', job), opts.maxWaiting);
  const studio = studioRoutes(projectDir, jobs, (m) => opts.onWarning?.(m));
  const handle = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    const route = new URL(req.url ?? '/', 'http://preview').pathname;
    if (route === '/') return send(res, 200, 'text/html', previewPageHtml(first.id));
    if (route in ASSETS) return send(res, 200, 'text/javascript', fs.readFileSync(ASSETS[route]));
    if (route === '/__vidkit/composition') return sendComposition(res, projectDir);
    if (route === '/__vidkit/events') return events.open(req, res);
    return studio(req, res);
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
    events.send('change', { file: path.relative(projectDir, file).split(path.sep).join('/') });
  });
  return {
    url: server.url,
    close: async () => {
      stopWatching();
      await jobs.close();
      events.close();
      await server.close();
    },
  };
}

/** The entry page's declarations; 422 with why while it does not parse (the page waits for the next save). */
function sendComposition(res: http.ServerResponse, projectDir: string): boolean {
  const info = compositionInfo(projectDir, ENTRY_FILE) as { error?: string };
  return send(res, info.error === undefined ? 200 : 422, 'application/json', JSON.stringify(info));
}

function send(res: http.ServerResponse, status: number, type: string, body: string | Buffer): true {
  res.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store' });
  res.end(body);
  return true;
}
