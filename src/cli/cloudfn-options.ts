import { ExitCode, badInput } from '../errors';
import { flagOf } from '../options/registry';
import type { WebhookOptions } from '../sdk/webhook';
import type { ExitCodes } from './base-command';
import { CloudCommand } from './cloud-command';

/** A flag that takes a whole number of at least 1, or is absent. */
export function wholeNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw badInput(`${flag} must be a whole number of at least 1, got "${value}"`);
  return n;
}


/** Exit codes of the cloudfn commands that read the deployed stack, listed in their help (docs/guide/cloud.md). */
export const CLOUD_EXIT_CODES: ExitCodes = {
  ...CloudCommand.exitCodes,
  [ExitCode.MissingDependency]: 'missing dependency: no AWS region or credentials, AWS (or AWS_ENDPOINT_URL) unreachable, or no deployed stack to read the bucket or state machine from',
};
export const FORMAT_DESCRIPTION =
  'Output format: mp4 (default), webm (VP9 with alpha) or mov (ProRes 4444 with alpha); HDR (hdr-pq, hdr-hlg), gif, png-sequence and hls are rendered on this machine only (`vidkit render`)';

/** --webhook and its secret, checked before any request; undefined without --webhook. */
export async function webhookOptions(flags: { webhook?: string; webhookSecret?: string; webhookAllowPrivate: boolean }): Promise<WebhookOptions | undefined> {
  if (flags.webhook === undefined) {
    if (flags.webhookSecret !== undefined || flags.webhookAllowPrivate) throw badInput(`${flagOf('webhookSecret')} and ${flagOf('webhookAllowPrivate')} go with ${flagOf('webhook')} <url>`);
    return undefined;
  }
  const { checkWebhook } = await import('../sdk/webhook');
  return checkWebhook(
    { url: flags.webhook, secret: flags.webhookSecret ?? process.env.VIDKIT_WEBHOOK_SECRET, allowPrivateNetwork: flags.webhookAllowPrivate },
    { url: flagOf('webhook'), secret: `${flagOf('webhookSecret')} (or VIDKIT_WEBHOOK_SECRET)`, allow: flagOf('webhookAllowPrivate') },
  );
}
