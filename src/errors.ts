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

/** Exit codes of every vidkit command, documented in docs/reference/command-line.md. */
export const ExitCode = {
  Ok: 0,
  RenderFailed: 1,
  BadInput: 2,
  MissingDependency: 3,
  /** The output could not be written: full disk, read-only, no permission. */
  OutputFailed: 4,
  /** 128 + the signal's number, as shells report a process a signal ended. */
  Hangup: 129,
  Interrupted: 130,
  Terminated: 143,
} as const;

export function badInput(message: string): VidkitError {
  return new VidkitError(message, { exitCode: ExitCode.BadInput });
}

/**
 * What the CLI prints for an error that ends a command: `vidkit: error: …` for one the user can
 * act on, `vidkit: internal error:` and the stack for our own bugs.
 */
export function cliErrorText(err: unknown): string {
  if (err instanceof VidkitError) return `vidkit: error: ${err.message}`;
  return `vidkit: internal error: ${err instanceof Error ? err.stack : String(err)}`;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * An error's `code`: Node's errno name (`ENOSPC`) or the native addon's (`VIDKIT_DISK_FULL`, the
 * `ErrorCode`s of crates/vidkit-media/src/error.rs); '' when it has none.
 */
export function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : '';
}
