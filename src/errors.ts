/**
 * An error the user can act on: bad input, a missing dependency, a failed render step.
 * The CLI prints `message` as one line on stderr and exits with `exitCode`; anything else that is
 * thrown is a bug and is printed with its stack.
 */
export class VidkitError extends Error {
  readonly exitCode: number;

  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'VidkitError';
    this.exitCode = options.exitCode ?? ExitCode.RenderFailed;
  }
}

/** Exit codes of every vidkit command, documented in the README. */
export const ExitCode = {
  Ok: 0,
  RenderFailed: 1,
  BadInput: 2,
  MissingDependency: 3,
  Interrupted: 130,
} as const;

export function badInput(message: string): VidkitError {
  return new VidkitError(message, { exitCode: ExitCode.BadInput });
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
