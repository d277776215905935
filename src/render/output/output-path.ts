import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ExitCode, VidkitError, badInput, errorCode, errorMessage } from '../../errors';
import { flagOf } from '../../options/registry';
import { tempDirError } from '../browser/run-dir';

/** What {@link prepareOutput} checks beyond the path itself. */
export interface OutputChecks {
  /** The format writes a directory (png-sequence, hls), not a file. */
  directory?: boolean;
  /** The project rendered: the output may not replace a file of it ({@link assertNotProjectFile}). */
  projectDir?: string;
  /** A batch's `--output-dir`: the output must stay inside it, symlinks resolved. */
  within?: string;
  /** An earlier output this one may replace although it lies in the project (a batch's own, recorded in its manifest). */
  replaces?: boolean;
  /** How the output was named, for messages: `--output` (default) or a batch's `"outputKey"`. */
  option?: string;
}

/** The longest file name, in bytes, of the file systems vidkit writes to (NAME_MAX of Linux). */
export const NAME_MAX = 255;

/**
 * Checks, before any browser starts, that `output` can be written and that writing it loses
 * nothing: a name the file system takes, not a directory (unless the format writes one) nor a
 * device or other special file, inside `within` once symlinks are resolved, not a file of the
 * project, its folder made if missing, on a file system that holds files (not /proc or /sys), and
 * writable there (a file is created and removed to know). Bad choices are exit 2, an output that
 * cannot be written exit 4 (docs/reference/command-line.md). The output itself is written under a partial
 * name beside it ({@link partialPathFor}).
 */
export function prepareOutput(output: string, opts: OutputChecks = {}): void {
  const option = opts.option ?? flagOf('output');
  const nameBytes = Buffer.byteLength(path.basename(output));
  if (nameBytes > NAME_MAX) throw badInput(`${option} ${output}: its file name is ${nameBytes} bytes, over the ${NAME_MAX} a file system allows`);
  if (opts.within !== undefined) assertWithin(output, opts.within, option);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(output);
  } catch {
    // Not there yet: the usual case.
  }
  if (stat?.isDirectory() && !opts.directory) throw badInput(`${option} ${output} is a directory: name a file in it`);
  if (stat && !stat.isFile() && !stat.isDirectory()) throw badInput(`${option} ${output} is ${specialFileWords(stat)}, not a file: name a file`);
  if (opts.projectDir !== undefined && !opts.replaces) assertNotProjectFile(output, opts.projectDir, option);
  prepareOutputDir(path.dirname(output), output);
}

/**
 * Makes `dir` if missing and checks that files can be written in it: on a file system that holds
 * files, writable (a hidden file is created and removed to know). Throws exit 4 naming `dir` (or
 * `output`, the file meant to go there).
 */
export function prepareOutputDir(dir: string, output = dir): void {
  // Checked on the nearest folder that exists before any is made: Node's recursive mkdir loops for ever under /proc.
  assertFileSystem(existingAncestor(dir), output);
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw outputError(err, dir);
  }
  const probe = path.join(dir, `.vidkit-${process.pid}-${Math.random().toString(36).slice(2, 10)}.check`);
  try {
    fs.closeSync(fs.openSync(probe, 'wx'));
    fs.rmSync(probe, { force: true });
  } catch (err) {
    throw outputError(err, dir);
  }
}

/** A file system of the kernel's own (its files are not data), by statfs(2) magic number. */
const KERNEL_FILE_SYSTEMS: Record<number, string> = {
  0x9fa0: 'proc',
  0x62656572: 'sysfs',
  0x1cd1: 'devpts',
  0x27e0eb: 'cgroup',
  0x63677270: 'cgroup2',
  0x64626720: 'debugfs',
  0x74726163: 'tracefs',
  0x73636673: 'securityfs',
  0xcafe4a11: 'bpf',
  0x6165676c: 'pstore',
  0x62656570: 'configfs',
  0xde5e81e4: 'efivarfs',
  0x65735543: 'fusectl',
  0x42494e4d: 'binfmt_misc',
  0x19800202: 'mqueue',
};

/** Throws exit 4 when `dir` is on a file system of the kernel's own, where no output can be kept. */
function assertFileSystem(dir: string, output: string): void {
  let type: number;
  try {
    type = fs.statfsSync(dir).type;
  } catch (err) {
    throw outputError(err, dir);
  }
  const name = KERNEL_FILE_SYSTEMS[type];
  if (name !== undefined) {
    throw new VidkitError(`cannot write ${output}: ${dir} is on ${name}, a file system of the kernel's own that holds no files; choose another --output`, {
      exitCode: ExitCode.OutputFailed,
    });
  }
}

/**
 * Throws exit 2 when the output would replace a file or folder of the project: an existing path
 * under the project directory (symlinks resolved), except under its `out/` folder (where vidkit
 * writes by default) and hidden paths, which the page cannot load.
 */
function assertNotProjectFile(output: string, projectDir: string, option: string): void {
  const real = realPathOf(output);
  let root: string;
  try {
    root = fs.realpathSync(projectDir);
  } catch {
    return;
  }
  if (real === undefined || !real.startsWith(root + path.sep) || !fs.existsSync(real)) return;
  const segments = path.relative(root, real).split(path.sep);
  if (segments[0] === 'out' || segments.some((s) => s.startsWith('.'))) return;
  throw badInput(
    `${option} ${output} is ${real === path.resolve(output) ? '' : `${real}, `}a file of the project ${projectDir} that the page can load: ` +
      'a render never replaces one; choose a path outside the project or under its out/ folder',
  );
}

/**
 * Throws exit 2 when `output` leaves `dir` once symlinks are resolved: a link on its way (the
 * output itself, or a folder between) that leads elsewhere. `dir` itself may be a link.
 */
function assertWithin(output: string, dir: string, option: string): void {
  let root: string;
  try {
    root = fs.realpathSync(dir);
  } catch {
    // Not made yet: nothing inside it can lead elsewhere.
    return;
  }
  const real = realPathOf(output);
  const linked = (() => {
    try {
      return fs.lstatSync(output).isSymbolicLink();
    } catch {
      return false;
    }
  })();
  if (linked || real === undefined || (real !== root && !real.startsWith(root + path.sep))) {
    throw badInput(`${option} ${path.relative(dir, output)} leads out of ${dir} through a symlink${real === undefined ? '' : ` (to ${real})`}: a batch writes only inside its --output-dir`);
  }
}

/** `dir` itself when it exists, else its nearest ancestor that does. */
function existingAncestor(dir: string): string {
  let at = path.resolve(dir);
  while (!fs.existsSync(at) && at !== path.dirname(at)) at = path.dirname(at);
  return at;
}

/** `file`'s real path: its own when it exists, else its deepest existing folder's with the rest appended; undefined when that fails. */
function realPathOf(file: string): string | undefined {
  const rest: string[] = [];
  for (let at = path.resolve(file); ; at = path.dirname(at)) {
    try {
      return path.join(fs.realpathSync(at), ...rest);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || at === path.dirname(at)) return undefined;
      rest.unshift(path.basename(at));
    }
  }
}

function specialFileWords(stat: fs.Stats): string {
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** What to do about a failed write, by the error's code: Node's errno names, or the addon's codes. */
const WRITE_FAILURES: Readonly<Record<string, string>> = {
  ENOSPC: 'the disk is full; free some space or choose another --output',
  VIDKIT_DISK_FULL: 'the disk is full (or its quota exceeded); free some space or choose another --output',
  EDQUOT: 'the disk quota is exceeded; free some space or choose another --output',
  EROFS: 'it is on a read-only file system; choose another --output',
  EACCES: 'permission denied; choose another --output or fix its permissions',
  EPERM: 'permission denied; choose another --output or fix its permissions',
  VIDKIT_PERMISSION_DENIED: 'permission denied or a read-only file system; choose another --output or fix its permissions',
};

/**
 * A failed write as a one-line error with its own exit code, or `err` unchanged when it is no
 * write failure. `where` is the file or directory being written.
 */
export function outputError(err: unknown, where: string): unknown {
  const known = Object.hasOwn(WRITE_FAILURES, errorCode(err)) ? WRITE_FAILURES[errorCode(err)] : undefined;
  if (known === undefined) return err;
  return new VidkitError(`cannot write ${where}: ${known}`, { exitCode: ExitCode.OutputFailed });
}

/**
 * A failed write of a render, wherever it happened (a frame, a segment, the gif palette's pass, an
 * hls playlist, the soundtrack, the joined file), as the exit-4 error naming its disk: TMPDIR,
 * where the render keeps its parts, or the folder of `output`; `err` unchanged when it is no write
 * failure. The disk is the one the error names a path on (Node's `dest` or `path`, or the addon's
 * message); a write that names none (Node's `write` to a file already open) is put on the one of
 * the two with less room left, read now, while the render's files still fill it.
 */
export function renderWriteError(err: unknown, output: string): unknown {
  if (err instanceof VidkitError || !Object.hasOwn(WRITE_FAILURES, errorCode(err))) return err;
  const inTemp = failedInTemp(err, path.dirname(path.resolve(output)));
  return (inTemp && tempDirError(err)) || outputError(err, output);
}

/** Whether the write failure `err` happened under TMPDIR rather than in `outputDir` (see {@link renderWriteError}). */
function failedInTemp(err: unknown, outputDir: string): boolean {
  const tmp = path.resolve(os.tmpdir());
  const { dest, path: named } = err as { dest?: unknown; path?: unknown };
  const where = typeof dest === 'string' ? dest : typeof named === 'string' ? named : undefined;
  const under = (dir: string) => (where === undefined ? errorMessage(err).includes(dir + path.sep) : path.resolve(where).startsWith(dir + path.sep));
  // The more specific folder wins: an output under TMPDIR is the output's.
  const [longer, shorter] = outputDir.length > tmp.length ? [outputDir, tmp] : [tmp, outputDir];
  if (under(longer)) return longer === tmp;
  if (under(shorter)) return shorter === tmp;
  return lessRoomInTemp(tmp, existingAncestor(outputDir));
}

/** Whether TMPDIR has less room than `outputDir`'s disk; true when they are one disk, or either cannot be read. */
function lessRoomInTemp(tmp: string, outputDir: string): boolean {
  try {
    if (fs.statSync(tmp).dev === fs.statSync(outputDir).dev) return true;
    const room = (dir: string) => {
      const stats = fs.statfsSync(dir);
      return stats.bavail * stats.bsize;
    };
    return room(tmp) <= room(outputDir);
  } catch {
    return true;
  }
}

/**
 * The hidden name beside `output` that a render writes before renaming it into place:
 * `.<name>.<pid>[.<tag>].partial<extension>`, so a reader never sees a half-written output and
 * two processes (or two renders of one process, told apart by `tag`) never share one. A name too
 * long for that keeps as much of itself as fits and a digest of the whole (see {@link hiddenSibling}).
 */
export function partialPathFor(output: string, extension: string, tag?: number): string {
  return hiddenSibling(output, extension, `.${process.pid}${tag === undefined ? '' : `.${tag}`}.partial${extension}`);
}

/**
 * `.<name without extension><suffix>` beside `file`, within {@link NAME_MAX} bytes: every legal
 * output name has one. A name that would be longer is cut (on a character boundary) and ends in
 * `~` and 8 hex digits of its SHA-256, so two long names still get two partial names.
 */
export function hiddenSibling(file: string, extension: string, suffix: string): string {
  const name = path.basename(file, extension);
  const room = NAME_MAX - 1 - Buffer.byteLength(suffix);
  if (Buffer.byteLength(name) <= room) return path.join(path.dirname(file), `.${name}${suffix}`);
  const digest = `~${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
  let cut = '';
  for (const char of name) {
    if (Buffer.byteLength(cut + char) > room - digest.length) break;
    cut += char;
  }
  return path.join(path.dirname(file), `.${cut}${digest}${suffix}`);
}
