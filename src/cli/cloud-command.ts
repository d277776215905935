import { ExitCode, VidkitError } from '../errors';
import { ExitCodes, VidkitCommand } from './base-command';

/**
 * A `vidkit cloudfn` command: AWS SDK failures that a user can fix (no region, no credentials,
 * an unreachable endpoint, a refused request) become one `vidkit: error:` line instead of a stack.
 */
export abstract class CloudCommand extends VidkitCommand {
  static exitCodes: ExitCodes = {
    ...VidkitCommand.exitCodes,
    [ExitCode.RenderFailed]: 'failed: AWS refused a request, or the render failed',
    [ExitCode.MissingDependency]: 'missing dependency: no AWS region or credentials, AWS (or AWS_ENDPOINT_URL) unreachable',
  };

  protected abstract runCloud(): Promise<number | void>;

  protected async run(): Promise<number | void> {
    try {
      return await this.runCloud();
    } catch (err) {
      throw awsError(err);
    }
  }
}

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
