import * as http from 'node:http';

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** GET `urlPath` from the server at `base`, sending `host` as the Host header (fetch would not send another). */
export function httpGet(base: string, urlPath: string, host?: string): Promise<HttpAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: url.hostname, port: url.port, path: urlPath, headers: { host: host ?? url.host } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

/** A request with any method, headers and body, to `urlPath` of the server at `base` (Host defaults to the server's). */
export function httpRequest(base: string, urlPath: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<HttpAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: urlPath, method: opts.method ?? 'GET', headers: { host: url.host, ...opts.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}
