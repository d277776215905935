import { Static, Type } from '@sinclair/typebox';
import { createHmac, timingSafeEqual } from 'node:crypto';
import * as net from 'node:net';
import { badInput } from '../errors';
import { nonPublicAddress } from '../render/serve/egress-policy';

/**
 * The completion webhook of a cloud render (docs/guide/cloud.md, Completion webhook): the render function posts
 * one JSON body when the render succeeds or fails, signed with HMAC-SHA256 over the raw body.
 */

/** `sha256=<hex of HMAC-SHA256(secret, raw body)>`. */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Vidkit-Signature';
/** The same id on every retry of one delivery: a receiver that saw it already can ignore the repeat. */
export const WEBHOOK_DELIVERY_HEADER = 'X-Vidkit-Delivery';

export const WebhookOptionsSchema = Type.Object({
  /** http(s) URL the body is POSTed to. */
  url: Type.String(),
  /** The HMAC key; the receiver holds the same. */
  secret: Type.String(),
  /** Loopback, private and link-local addresses are refused unless this is true. */
  allowPrivateNetwork: Type.Optional(Type.Boolean()),
});
export type WebhookOptions = Static<typeof WebhookOptionsSchema>;

/** One render's event; a batch's renders each send one, then the batch sends {@link BatchWebhookPayload}. */
export type WebhookPayload = RenderWebhookPayload | BatchWebhookPayload;

export interface RenderWebhookPayload {
  type: 'render.succeeded' | 'render.failed';
  renderId: string;
  /** Null for a direct render (`direct: true`), which runs without an execution. */
  executionArn: string | null;
  bucket: string;
  outputKey: string;
  /** When succeeded. */
  output?: { url: string; frames: number; bytes: number };
  /** When failed: the execution's error and its message, as `cloudfn progress` shows it. */
  error?: string;
  /** When the body was made (ISO 8601, UTC): a receiver can refuse old ones. */
  sentAt: string;
  /** The batch run the render belongs to, when it has one. */
  batchId?: string;
}

/** Sent once, when the last render a `render-batch` run started has ended. */
export interface BatchWebhookPayload {
  type: 'batch.completed';
  batchId: string;
  bucket: string;
  /** Renders the run started, and how they ended. */
  renders: number;
  done: number;
  failed: number;
  aborted: number;
  sentAt: string;
}

export function signWebhookBody(body: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * True only when `signature` (the X-Vidkit-Signature header) is the HMAC-SHA256 of exactly these
 * body bytes under `secret`. Pass the raw body as received, before any JSON parsing.
 */
export function verifyWebhookSignature(opts: { body: string | Buffer; signature: string | string[] | null | undefined; secret: string }): boolean {
  if (typeof opts.signature !== 'string' || opts.secret === '') return false;
  const expected = Buffer.from(signWebhookBody(opts.body, opts.secret));
  const got = Buffer.from(opts.signature.trim());
  return got.length === expected.length && timingSafeEqual(got, expected);
}

/** Checks a webhook before any request; `names` are the fields (or CLI flags) its messages name. */
export function checkWebhook(value: unknown, names = { url: 'webhook.url', secret: 'webhook.secret', allow: 'webhook.allowPrivateNetwork' }): WebhookOptions {
  if (typeof value !== 'object' || value === null) throw badInput('webhook must be { url, secret, allowPrivateNetwork? }');
  const w = value as Record<string, unknown>;
  let url: URL;
  try {
    url = new URL(String(w.url));
  } catch {
    throw badInput(`${names.url} must be an http or https URL, got ${JSON.stringify(w.url)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badInput(`${names.url} must be an http or https URL, got ${url.href}`);
  if (typeof w.secret !== 'string' || w.secret === '') {
    throw badInput(`${names.secret} is required with a webhook: the body is signed with it (HMAC-SHA256), so the receiver can tell it came from your render`);
  }
  const allowPrivateNetwork = w.allowPrivateNetwork === true;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = host === 'localhost' || host.endsWith('.localhost') ? 'a loopback address' : net.isIP(host) ? nonPublicAddress(host) : undefined;
  if (literal && !allowPrivateNetwork) throw badInput(`${names.url} ${url.href} is ${literal}, refused: allow private networks with ${names.allow}`);
  return { url: url.href, secret: w.secret, ...(allowPrivateNetwork ? { allowPrivateNetwork } : {}) };
}
