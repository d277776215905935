import { ExitCode } from '../errors';
import { awsError } from '../sdk/aws-errors';
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
