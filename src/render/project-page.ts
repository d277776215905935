import * as fs from 'node:fs';
import * as path from 'node:path';
import { ProjectReader, mountSubCompositions } from '../composition/sub-compositions';
import { projectFile } from './project-files';

/**
 * The page `file` of the project as every caller gets it: its sub-compositions mounted
 * (docs/guide/hyperframes.md), each read from the project as {@link projectFile} allows.
 */
export function projectPage(projectDir: string, file: string): string {
  const page = path.relative(projectDir, file).split(path.sep).join('/');
  return mountSubCompositions(fs.readFileSync(file, 'utf8'), page, projectReader(projectDir));
}

/** Reads a project file by its path from the project root, as {@link projectFile} allows. */
export function projectReader(projectDir: string): ProjectReader {
  return (rel) => {
    const found = projectFile(projectDir, rel);
    return found === undefined ? undefined : fs.readFileSync(found, 'utf8');
  };
}
