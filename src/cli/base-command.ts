import { Command } from 'clipanion';
import { ExitCode, VidkitError, cliErrorText } from '../errors';

/** A command's exit codes and what each means, listed at the end of its help (docs/reference/command-line.md). */
export type ExitCodes = Readonly<Record<number, string>>;

/**
 * Every vidkit command: results on stdout, log lines on stderr, and an error the user can act on
 * printed as one `vidkit: error: …` line with a meaningful exit code (see docs/reference/command-line.md).
 */
export abstract class VidkitCommand extends Command {
  /** What a command that declares none of its own can exit with; a command adds its own meanings. */
  static exitCodes: ExitCodes = {
    [ExitCode.Ok]: 'success',
    [ExitCode.RenderFailed]: 'failed',
    [ExitCode.BadInput]: 'bad input: an option, argument or file it names (a command line that cannot be read included)',
  };

  protected abstract run(): Promise<number | void>;

  async execute(): Promise<number> {
    try {
      return (await this.run()) ?? ExitCode.Ok;
    } catch (err) {
      this.context.stderr.write(`${cliErrorText(err)}\n`);
      return err instanceof VidkitError ? err.exitCode : ExitCode.RenderFailed;
    }
  }

  protected log(message: string): void {
    this.context.stderr.write(`vidkit: ${message}\n`);
  }

  protected warn(message: string): void {
    this.context.stderr.write(`vidkit: warning: ${message}\n`);
  }
}
