import { ExitCode, badInput } from '../errors';
import type { WebhookOptions } from '../sdk/webhook';
import { DEFAULT_STACK_NAME } from '../sdk/defaults';
import type { ExitCodes } from './base-command';
import { CloudCommand } from './cloud-command';

/** A flag that takes a whole number of at least 1, or is absent. */
export function wholeNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw badInput(`${flag} must be a whole number of at least 1, got "${value}"`);
  return n;
}

export const BUCKET_DESCRIPTION = "Render bucket (default: VIDKIT_BUCKET, else the stack's RenderBucketName)";
export const STATE_MACHINE_DESCRIPTION = "Render state machine ARN (default: VIDKIT_SFN_ARN, else the stack's RenderStateMachineArn)";
export const STACK_NAME_DESCRIPTION = `Deployed stack to read the bucket and state machine from when they are not given (default ${DEFAULT_STACK_NAME})`;

/** Exit codes of the cloudfn commands that read the deployed stack, listed in their help (docs/guide/cloud.md). */
export const CLOUD_EXIT_CODES: ExitCodes = {
  ...CloudCommand.exitCodes,
  [ExitCode.MissingDependency]: 'missing dependency: no AWS region or credentials, AWS (or AWS_ENDPOINT_URL) unreachable, or no deployed stack to read the bucket or state machine from',
};
export const FORMAT_DESCRIPTION =
  'Output format: mp4 (default), webm (VP9 with alpha) or mov (ProRes 4444 with alpha); HDR (hdr-pq, hdr-hlg), gif, png-sequence and hls are rendered on this machine only (`vidkit render`)';
export const HOST_LARGE_VARIABLES_DESCRIPTION = 'Put the variables of a render whose execution input would exceed 256 KiB in the render bucket, and pass their key';
export const DIRECT_DESCRIPTION = 'Run a render that plans to one chunk as one function invocation, without the state machine';

/** --webhook and its secret, checked before any request; undefined without --webhook. */
export async function webhookOptions(flags: { webhook?: string; webhookSecret?: string; webhookAllowPrivate: boolean }): Promise<WebhookOptions | undefined> {
  if (flags.webhook === undefined) {
    if (flags.webhookSecret !== undefined || flags.webhookAllowPrivate) throw badInput('--webhook-secret and --webhook-allow-private go with --webhook <url>');
    return undefined;
  }
  const { checkWebhook } = await import('../sdk/webhook');
  return checkWebhook(
    { url: flags.webhook, secret: flags.webhookSecret ?? process.env.VIDKIT_WEBHOOK_SECRET, allowPrivateNetwork: flags.webhookAllowPrivate },
    { url: '--webhook', secret: '--webhook-secret (or VIDKIT_WEBHOOK_SECRET)', allow: '--webhook-allow-private' },
  );
}
