import { ExitCode, VidkitError } from '../errors';

/**
 * An AWS SDK failure a user can fix (no region, no credentials, an unreachable endpoint, a refused
 * request) as a VidkitError with its exit code; anything else as it came.
 */
export function awsError(err: unknown): unknown {
  if (err instanceof VidkitError || !(err instanceof Error)) return err;
  const e = err as Error & { code?: string; $metadata?: { httpStatusCode?: number } };
  const environment = (message: string) => new VidkitError(message, { exitCode: ExitCode.MissingDependency, cause: err });
  if (/Region is missing|Region not accepted/.test(e.message)) return environment('no AWS region: set AWS_REGION, or a region in your AWS profile');
  if (e.name === 'CredentialsProviderError') return environment(`no AWS credentials: ${e.message} (set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)`);
  if (e.code && ['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'ECONNRESET', 'EAI_AGAIN'].includes(e.code)) {
    return environment(`cannot reach AWS${process.env.AWS_ENDPOINT_URL ? ` at AWS_ENDPOINT_URL=${process.env.AWS_ENDPOINT_URL}` : ''}: ${e.message}`);
  }
  if (e.$metadata) return new VidkitError(`AWS refused the request: ${e.name}: ${e.message}`, { cause: err });
  return err;
}
