import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'node-html-parser';
import { ProjectReader, mountSubCompositions } from './sub-compositions';
import { projectFile } from '../values/project-files';

/**
 * The page `file` of the project as every caller gets it: its sub-compositions mounted
 * (docs/guide/hyperframes.md), each read from the project as {@link projectFile} allows.
 */
export function projectPage(projectDir: string, file: string): string {
  const page = path.relative(projectDir, file).split(path.sep).join('/');
  return mountSubCompositions(fs.readFileSync(file, 'utf8'), page, projectReader(projectDir));
}

/**
 * Whether the mounted page has a `<video>` element in its markup (one a script adds later is not
 * seen): the encoder is tuned for camera footage on such pages (quality.ts).
 */
export function hasVideoElement(page: string): boolean {
  return parse(page).querySelector('video') !== null;
}

/** Reads a project file by its path from the project root, as {@link projectFile} allows. */
export function projectReader(projectDir: string): ProjectReader {
  return (rel) => {
    const found = projectFile(projectDir, rel);
    return found === undefined ? undefined : fs.readFileSync(found, 'utf8');
  };
}
