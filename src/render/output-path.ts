import * as fs from 'node:fs';
import * as path from 'node:path';
import { ExitCode, VidkitError, badInput, errorMessage } from '../errors';

/**
 * Checks, before any browser starts, that `output` can be written: not a directory (unless the
 * format writes one), its parent made if missing, and writable. The output itself is written
 * under a partial name beside it.
 */
export function prepareOutput(output: string, opts: { directory?: boolean } = {}): void {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(output);
  } catch {
    // Not there yet: the usual case.
  }
  if (stat?.isDirectory() && !opts.directory) throw badInput(`--output ${output} is a directory: name a file in it`);
  const dir = path.dirname(output);
  try {
    fs.mkdirSync(dir, { recursive: true });
    // access(2) reports a read-only mount (EROFS) even to root.
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (err) {
    throw outputError(err, dir);
  }
}

const WRITE_FAILURES: Array<[RegExp, string]> = [
  [/ENOSPC|no space left/i, 'the disk is full; free some space or choose another --output'],
  [/EDQUOT|quota exceeded/i, 'the disk quota is exceeded; free some space or choose another --output'],
  [/EROFS|read-only file system/i, 'it is on a read-only file system; choose another --output'],
  [/EACCES|EPERM|permission denied/i, 'permission denied; choose another --output or fix its permissions'],
];

/**
 * A failed write as a one-line error with its own exit code, or `err` unchanged when it is no
 * write failure. `where` is the file or directory being written.
 */
export function outputError(err: unknown, where: string): unknown {
  const code = (err as NodeJS.ErrnoException)?.code ?? '';
  const text = `${code} ${errorMessage(err)}`;
  const known = WRITE_FAILURES.find(([pattern]) => pattern.test(text));
  if (!known) return err;
  return new VidkitError(`cannot write ${where}: ${known[1]}`, { exitCode: ExitCode.OutputFailed });
}

/**
 * The hidden name beside `output` that a render writes before renaming it into place:
 * `.<name>.<pid>[.<tag>].partial<extension>`, so a reader never sees a half-written output and
 * two processes (or two renders of one process, told apart by `tag`) never share one.
 */
export function partialPathFor(output: string, extension: string, tag?: number): string {
  const name = path.basename(output, extension);
  return path.join(path.dirname(output), `.${name}.${process.pid}${tag === undefined ? '' : `.${tag}`}.partial${extension}`);
}
