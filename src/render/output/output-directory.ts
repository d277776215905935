import * as fs from 'node:fs';
import { badInput } from '../../errors';
import type { OutputFormat } from '../../values/formats';
import { hiddenSibling } from './output-path';

/** What vidkit writes into the directory of each directory format. */
const OWN_FILES: Partial<Record<OutputFormat, RegExp>> = {
  'png-sequence': /^frame_\d{6}\.png$/,
  hls: /^(master\.m3u8|stream\.m3u8|stream_\d{5}\.ts)$/,
};

/**
 * Checks, before any browser starts, that the directory output of a png-sequence or hls render
 * can take its place: absent, empty, or holding only an earlier output of the same format
 * (which it replaces). Any other file in it stops the render, so nothing of the user's is lost.
 */
export function assertReplaceableDirectory(output: string, format: OutputFormat): void {
  let entries: string[];
  try {
    if (!fs.statSync(output).isDirectory()) throw badInput(`--output ${output} is a file, but --format ${format} writes a directory: name a directory`);
    entries = fs.readdirSync(output);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const own = OWN_FILES[format]!;
  const foreign = entries.find((name) => !own.test(name));
  if (foreign !== undefined) {
    throw badInput(`--output ${output} holds ${foreign}, which a ${format} render does not write: choose another --output or empty the directory`);
  }
}

/**
 * Puts the finished directory `partial` in place of `output` (an earlier output there is moved
 * aside first and removed after), so the output directory is never seen half written.
 */
export function publishDirectory(partial: string, output: string): void {
  const old = hiddenSibling(output, '', `.${process.pid}.old`);
  const replacing = fs.existsSync(output);
  if (replacing) fs.renameSync(output, old);
  fs.renameSync(partial, output);
  if (replacing) fs.rmSync(old, { recursive: true, force: true });
}
