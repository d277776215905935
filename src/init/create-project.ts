import * as fs from 'node:fs';
import * as path from 'node:path';
import { VidkitError, badInput, errorMessage } from '../errors';
import { starterFiles } from './starter';

/** A name that is one portable directory name and also a composition id. */
const PROJECT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MAX_NAME_LENGTH = 214;

export function checkProjectName(name: string): void {
  if (!PROJECT_NAME.test(name) || name.length > MAX_NAME_LENGTH || name.endsWith('.')) {
    throw badInput(
      `invalid project name "${name}": use letters, digits, ".", "_" and "-", starting with a letter or digit (at most ${MAX_NAME_LENGTH} characters)`,
    );
  }
}

/**
 * Creates `<parent>/<name>` with the starter project. The files are written into a hidden
 * directory beside it and renamed into place at the end, so a failure leaves nothing half made;
 * an existing directory is used only when empty.
 */
export function createProject(parent: string, name: string): { dir: string; files: string[] } {
  checkProjectName(name);
  const dir = path.resolve(parent, name);
  const existing = fs.statSync(dir, { throwIfNoEntry: false });
  if (existing && !existing.isDirectory()) throw badInput(`${dir} exists and is not a directory`);
  if (existing && fs.readdirSync(dir).length > 0) throw badInput(`${dir} is not empty: choose a new name or an empty directory`);
  const files = starterFiles(name, dir);
  const staging = path.join(path.dirname(dir), `.${name}.${process.pid}.partial`);
  try {
    fs.mkdirSync(staging);
    for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(staging, file), text);
    fs.renameSync(staging, dir);
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw new VidkitError(`cannot create ${dir}: ${errorMessage(err)}`);
  }
  return { dir, files: Object.keys(files) };
}
