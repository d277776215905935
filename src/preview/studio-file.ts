import * as fs from 'node:fs';
import * as path from 'node:path';
import { VidkitError } from '../errors';
import { STUDIO_LINKS, projectFile } from '../values/project-files';

/** The largest project file the studio opens (source view) or edits. */
export const MAX_SOURCE_BYTES = 2 * 1024 * 1024;

/**
 * The absolute path of a project file the studio may read and write, as the project server would
 * serve it (no dotfiles, nothing outside, no link followed out of the project); bad input otherwise.
 */
export function studioFile(projectDir: string, file: string): string {
  const found = projectFile(projectDir, file, STUDIO_LINKS);
  if (found === undefined || path.relative(projectDir, found).split(path.sep).join('/') !== file.replace(/^\/+/, '')) {
    throw new VidkitError(`${file}: no such file in the project`, { exitCode: 2 });
  }
  if (fs.statSync(found).size > MAX_SOURCE_BYTES) throw new VidkitError(`${file} is over ${MAX_SOURCE_BYTES} bytes: open it in an editor`, { exitCode: 2 });
  return found;
}
