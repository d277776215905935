import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errorMessage } from '../../errors';
import { VERSION } from '../../package-info';
import { checkedLookup } from './egress-policy';

/** What one download on behalf of a page may do. */
export interface DownloadLimits {
  /**
   * Why the page may not reach `address` (an IP address), or undefined when it may (an
   * EgressPolicy's). Asked of every address a host name resolves to, on the first request and on
   * every redirect.
   */
  refuseAddress: (address: string) => string | undefined;
  /** Bytes of body at most. */
  maxBytes: number;
  /** Milliseconds the whole download may take, redirects included. */
  timeoutMs: number;
  /** Sent as `Origin`: servers that answer CORS only to a request with one (S3, CloudFront) then include their headers. */
  origin?: string;
}

const REDIRECT_STATUSES = [301, 302, 303, 307, 308];
/** As many as fetch follows. */
const MAX_REDIRECTS = 20;

/**
 * Downloads the http(s) URL `url` into `file` and returns the final response's headers. Each
 * connection goes only to addresses `limits.refuseAddress` allows: a literal address is checked
 * before connecting, a name after DNS (every address it resolves to), and each redirect is checked
 * again. The body streams to `<file>.partial`, renamed when complete; a body over the limit, a
 * failure or the deadline deletes it.
 */
export async function download(url: string, file: string, limits: DownloadLimits): Promise<http.IncomingHttpHeaders> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const partial = `${file}.partial`;
  try {
    let target = new URL(url);
    for (let redirects = 0; ; redirects++) {
      let response: http.IncomingMessage;
      try {
        response = await get(target, limits, signal);
      } catch (err) {
        throw redirects === 0 ? err : new Error(`redirected to ${target.href}: ${errorMessage(err)}`);
      }
      const status = response.statusCode ?? 0;
      if (REDIRECT_STATUSES.includes(status) && response.headers.location !== undefined) {
        response.resume();
        if (redirects === MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
        target = redirectTarget(response.headers.location, target);
        continue;
      }
      if (status < 200 || status > 299) {
        response.resume();
        throw new Error(`HTTP ${status}`);
      }
      await save(response, partial, limits.maxBytes);
      fs.renameSync(partial, file);
      return response.headers;
    }
  } catch (err) {
    fs.rmSync(partial, { force: true });
    if (signal.aborted) throw new Error(`no complete answer within ${limits.timeoutMs / 1000} s`);
    throw err;
  }
}

function redirectTarget(location: string, from: URL): URL {
  try {
    return new URL(location, from);
  } catch {
    throw new Error(`redirected to ${JSON.stringify(location)}, which is not a URL`);
  }
}

function get(url: URL, limits: DownloadLimits, signal: AbortSignal): Promise<http.IncomingMessage> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(new Error(`${url.protocol} is not fetched, only http: and https:`));
  const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const refused = net.isIP(literal) === 0 ? undefined : limits.refuseAddress(literal);
  if (refused) return Promise.reject(new Error(`${literal} is ${refused}`));
  const headers: http.OutgoingHttpHeaders = {
    'user-agent': `vidkit/${VERSION}`,
    // The copy is served as received, and the size limit counts the bytes the page would get.
    'accept-encoding': 'identity',
    ...(limits.origin === undefined ? {} : { origin: limits.origin }),
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    client.get(url, { headers, signal, lookup: checkedLookup(limits.refuseAddress) }, resolve).on('error', reject);
  });
}

/** Streams the body to `file`, never holding more than a chunk; over `maxBytes`, stops reading and fails. */
async function save(response: http.IncomingMessage, file: string, maxBytes: number): Promise<void> {
  const overLimit = `over the limit of ${maxBytes} bytes per asset (--max-asset-bytes)`;
  const declared = Number(response.headers['content-length']);
  if (declared > maxBytes) {
    response.destroy();
    throw new Error(`it is ${declared} bytes (Content-Length), ${overLimit}`);
  }
  let received = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > maxBytes) done(new Error(`it is ${overLimit}`));
      else done(null, chunk);
    },
  });
  await pipeline(response, cap, fs.createWriteStream(file));
}
