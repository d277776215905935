import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP proxy in front of the AWS emulator that counts Step Functions StartExecution calls:
 * how many arrived and the most in flight at once. Each StartExecution is held `holdMs` before it
 * is forwarded, so overlapping calls overlap measurably. `throttle(body)` may answer a call with the
 * ThrottlingException a real account returns, and `fail(body)` with a 503, instead of forwarding it.
 */
export interface CountingProxy {
  endpoint: string;
  /** Every request, of any service. */
  requests: number;
  startExecutions: number;
  maxInFlight: number;
  throttled: number;
  /** StartExecution calls answered with a 503. */
  failed: number;
  close(): Promise<void>;
}

const START_EXECUTION = 'AWSStepFunctions.StartExecution';

export async function startCountingProxy(target: string, opts: { holdMs?: number; throttle?: (body: string) => boolean; fail?: (body: string) => boolean } = {}): Promise<CountingProxy> {
  const upstream = new URL(target);
  let inFlight = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      proxy.requests++;
      const isStart = req.headers['x-amz-target'] === START_EXECUTION;
      if (isStart) {
        proxy.startExecutions++;
        inFlight++;
        proxy.maxInFlight = Math.max(proxy.maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, opts.holdMs ?? 0));
        if (opts.throttle?.(body.toString('utf8'))) {
          inFlight--;
          proxy.throttled++;
          res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-errortype': 'ThrottlingException' });
          res.end(JSON.stringify({ __type: 'ThrottlingException', message: 'Rate exceeded' }));
          return;
        }
        if (opts.fail?.(body.toString('utf8'))) {
          inFlight--;
          proxy.failed++;
          res.writeHead(503, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-errortype': 'ServiceUnavailable' });
          res.end(JSON.stringify({ __type: 'ServiceUnavailable', message: 'Service is unavailable' }));
          return;
        }
      }
      const forward = http.request(
        { hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
          up.on('end', () => {
            if (isStart) inFlight--;
          });
        },
      );
      forward.on('error', (err) => {
        if (isStart) inFlight--;
        res.writeHead(502);
        res.end(String(err));
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: CountingProxy = {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: 0,
    startExecutions: 0,
    maxInFlight: 0,
    throttled: 0,
    failed: 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return proxy;
}
