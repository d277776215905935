import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import { errorMessage } from '../errors';
import { VERSION } from '../package-info';
import { checkedLookup, nonPublicAddress } from '../render/serve/egress-policy';
import { WEBHOOK_DELIVERY_HEADER, WEBHOOK_SIGNATURE_HEADER, WebhookOptions, WebhookPayload, signWebhookBody } from '../sdk/webhook';

export interface DeliveryResult {
  delivered: boolean;
  attempts: number;
  /** The last response's HTTP status, when there was one. */
  status?: number;
  /** Why the last attempt failed. */
  error?: string;
}

export interface DeliveryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** Wait before the first retry; doubled before each further one. */
  firstDelayMs: number;
  /** One attempt's limit, connection and answer included. */
  timeoutMs: number;
}

/** 5 attempts, 1 s, 2 s, 4 s, 8 s apart: at most about 65 s with every attempt timing out, well inside the function's 900 s. */
export const DELIVERY_POLICY: DeliveryPolicy = { attempts: 5, firstDelayMs: 1000, timeoutMs: 10_000 };

/** A status worth trying again: the receiver's fault, or it asked for time. Any other 4xx will not change. */
const retryable = (status: number) => status >= 500 || status === 429 || status === 408;

/**
 * POSTs the signed payload, retrying network failures, timeouts, 5xx, 408 and 429 with doubling
 * delays. Never throws: the render's outcome stands whether or not the receiver got it.
 */
export async function deliverWebhook(webhook: WebhookOptions, payload: WebhookPayload, policy: DeliveryPolicy = DELIVERY_POLICY): Promise<DeliveryResult> {
  const body = JSON.stringify(payload);
  const headers = {
    'content-type': 'application/json',
    'user-agent': `vidkit/${VERSION}`,
    [WEBHOOK_SIGNATURE_HEADER]: signWebhookBody(body, webhook.secret),
    [WEBHOOK_DELIVERY_HEADER]: randomUUID(),
  };
  const refuse = webhook.allowPrivateNetwork ? () => undefined : refusal;
  let result: DeliveryResult = { delivered: false, attempts: 0 };
  for (let attempt = 1; attempt <= policy.attempts; attempt++) {
    if (attempt > 1) await new Promise((r) => setTimeout(r, policy.firstDelayMs * 2 ** (attempt - 2)));
    try {
      const status = await post(new URL(webhook.url), body, headers, refuse, policy.timeoutMs);
      result = { delivered: status >= 200 && status < 300, attempts: attempt, status };
      if (result.delivered || !retryable(status)) return result;
      result.error = `HTTP ${status}`;
    } catch (err) {
      result = { delivered: false, attempts: attempt, error: errorMessage(err) };
      if (err instanceof RefusedAddress) return result;
    }
  }
  return result;
}

class RefusedAddress extends Error {}

function refusal(address: string): string | undefined {
  const words = nonPublicAddress(address);
  return words && `${words}, refused (allow private networks with webhook.allowPrivateNetwork, --webhook-allow-private)`;
}

/** One POST; resolves with the status once the answer is read, so the connection is freed. */
function post(url: URL, body: string, headers: http.OutgoingHttpHeaders, refuse: (address: string) => string | undefined, timeoutMs: number): Promise<number> {
  const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const refused = net.isIP(literal) === 0 ? undefined : refuse(literal);
  if (refused) return Promise.reject(new RefusedAddress(`${literal} is ${refused}`));
  const client = url.protocol === 'https:' ? https : http;
  // A name that resolves to a refused address fails in the lookup; that is final, not worth a retry.
  let refusedByLookup = false;
  const lookup = checkedLookup((address) => {
    const why = refuse(address);
    refusedByLookup ||= why !== undefined;
    return why;
  });
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, lookup, signal: AbortSignal.timeout(timeoutMs) },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', (err) => reject(refusedByLookup ? new RefusedAddress(err.message) : err));
    req.end(body);
  });
}
