import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import ipaddr from 'ipaddr.js';
import sirv from 'sirv';
import { errorMessage } from '../../errors';
import { serveBundledFonts } from '../../fonts/bundled-fonts';
import { ProjectLinks, projectFile } from '../../values/project-files';
import { projectPage } from '../../composition/project-page';
import { deferScriptsUntilFonts } from './after-fonts';
import { serveLateMount } from './late-mount';
import { storedCorsHeaders } from './remote-assets';

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
  /** Which symlinks of the project are followed (project-files.ts); by default those it contains. */
  links?: ProjectLinks;
  /** Serves a service worker's script (refused by default, see {@link isServiceWorkerScript}). */
  allowServiceWorkers?: boolean;
}

/**
 * Serves the project directory so relative assets resolve as they do in preview, and, under
 * {@link REMOTE_PREFIX}, `remoteDir`, and under FONTS_PREFIX (bundled-fonts.ts) the bundled fonts; each confined by {@link projectFile}: no dotfiles, nothing a
 * symlink leads to outside the directory. sirv sends the file checked there, with the range
 * requests that media elements make. Only requests whose Host names this server are answered
 * (see {@link hostAllowed}).
 */
export async function serveProject(projectDir: string, options: ServeOptions = {}): Promise<ProjectServer> {
  const sirvOptions = { dev: true, etag: false, extensions: [] };
  const serve = sirv(projectDir, sirvOptions);
  const serveRemote = options.remoteDir === undefined ? undefined : sirv(options.remoteDir, sirvOptions);
  const notFound = (res: http.ServerResponse) => {
    res.statusCode = 404;
    res.end('not found');
  };
  const sendFrom = (root: string, send: ReturnType<typeof sirv>, req: http.IncomingMessage, res: http.ServerResponse, remote: boolean) => {
    const file = projectFile(root, req.url ?? '/', options.links);
    if (file === undefined) return notFound(res);
    // The page asked the remote origin: its answer's CORS headers, and no others, decide what the page may read.
    if (remote) for (const [name, value] of Object.entries(storedCorsHeaders(file))) res.setHeader(name, value);
    if (!remote && /\.html?$/i.test(file)) return sendPage(file, req, res);
    req.url = encodeURI(`/${path.relative(root, file).split(path.sep).join('/')}`);
    return send(req, res, () => notFound(res));
  };
  // Every page goes through the one sub-composition transform, whoever asks for it. Its scripts
  // wait for its fonts, except in a document a frame of the page loads, which HyperFrames serves
  // as written.
  const sendPage = (file: string, req: http.IncomingMessage, res: http.ServerResponse) => {
    let page: string;
    try {
      const mounted = projectPage(projectDir, file);
      page = /^i?frame$/.test(String(req.headers['sec-fetch-dest'] ?? '')) ? mounted : deferScriptsUntilFonts(mounted);
    } catch (err) {
      res.statusCode = 500;
      res.setHeader('content-type', 'text/plain; charset=utf-8');
      return res.end(errorMessage(err));
    }
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.setHeader('cache-control', 'no-store');
    res.end(page);
  };
  const host = options.host ?? '127.0.0.1';
  const loopbackOnly = isLoopback(host);
  let port = 0;
  const server = http.createServer((req, res) => {
    if (!hostAllowed(req.headers.host, port, loopbackOnly)) {
      res.statusCode = 403;
      res.end(`forbidden: this server answers to localhost, 127.0.0.1 or [::1] on port ${port}${loopbackOnly ? '' : ', or an IP address'}`);
      return;
    }
    if (isServiceWorkerScript(req) && !options.allowServiceWorkers) {
      res.statusCode = 403;
      res.end('service workers are refused: allow them with --allow-service-workers');
      return;
    }
    if (options.handle?.(req, res)) return;
    if (serveBundledFonts(req, res)) return;
    if (serveLateMount(projectDir, req, res)) return;
    if (serveRemote && options.remoteDir !== undefined && req.url?.startsWith(REMOTE_PREFIX)) {
      req.url = req.url.slice(REMOTE_PREFIX.length - 1);
      return sendFrom(options.remoteDir, serveRemote, req, res, true);
    }
    return sendFrom(projectDir, serve, req, res, false);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Whether the browser is fetching a service worker's script (it says so in a `Service-Worker`
 * header). Refusing that fetch refuses the registration: a worker that would outlive the page,
 * answer the next render's requests in a warm browser, or stay installed on this origin in the
 * browser that opened a preview.
 */
function isServiceWorkerScript(req: http.IncomingMessage): boolean {
  return req.headers['service-worker'] === 'script';
}

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  return net.isIP(host) !== 0 && ipaddr.process(host).range() === 'loopback';
}

/**
 * Whether a request's Host header names this server: a loopback name (localhost, *.localhost,
 * 127.0.0.1, [::1]) with its port. A site that points its own name at 127.0.0.1 (DNS rebinding)
 * still sends that name, so its pages are refused. Bound elsewhere (`vidkit preview --host`), an
 * IP address with the port is answered too: a literal address cannot be rebound.
 */
function hostAllowed(header: string | undefined, port: number, loopbackOnly: boolean): boolean {
  if (header === undefined || !/^([a-z0-9.-]+|\[[0-9a-f:.]+\])(:\d+)?$/i.test(header)) return false;
  let url: URL;
  try {
    url = new URL(`http://${header}`);
  } catch {
    return false;
  }
  if (Number(url.port || 80) !== port) return false;
  const name = url.hostname;
  if (name === 'localhost' || name.endsWith('.localhost') || name === '127.0.0.1' || name === '[::1]') return true;
  return !loopbackOnly && net.isIP(name.replace(/^\[(.*)\]$/, '$1')) !== 0;
}
