import * as fs from 'node:fs';
import * as path from 'node:path';
import { HTMLElement, parse } from 'node-html-parser';
import { badInput } from '../errors';
import { projectFile } from '../values/project-files';
import { ROOT_SELECTORS, framesForDuration } from './root';
import { DeclarationSet, parseDeclarationSources } from './variables';

export const ENTRY_FILE = 'index.html';
export const DEFAULT_FPS = 30;

/** A project directory parsed once at the edge: everything a render needs to know about it. */
export interface Composition {
  projectDir: string;
  entryFile: string;
  id: string;
  width: number;
  height: number;
  /**
   * The root's `data-duration`; undefined when it has none, and the page tells the length once it
   * runs (timelines, media, clips: docs/guide/hyperframes.md).
   */
  durationSeconds?: number;
  /** `data-fps` when present, else {@link DEFAULT_FPS}; a caller may still override it. */
  fps: number;
  variables: DeclarationSet;
}

/**
 * Reads `<projectDir>/index.html`, or `file` (a path in the project: a host page or a
 * sub-composition file, docs/guide/hyperframes.md), and validates the composition root.
 */
export function loadComposition(projectDir: string, file: string = ENTRY_FILE): Composition {
  if (file === ENTRY_FILE) {
    const { dir, entryFile, html } = readEntry(projectDir);
    return parseComposition(html, dir, entryFile);
  }
  const dir = projectDirectory(projectDir);
  const entryFile = projectFile(dir, file.split(path.sep).join('/'));
  if (entryFile === undefined || !/\.html?$/i.test(entryFile)) {
    throw badInput(`--composition ${file}: no such HTML file in ${projectDir} (give a path inside the project, e.g. compositions/scene.html; \`vidkit compositions ${projectDir}\` lists them)`);
  }
  return parseComposition(fs.readFileSync(entryFile, 'utf8'), dir, entryFile);
}

/** The project directory, resolved, and its `index.html`; bad input naming what is missing. */
export function readEntry(projectDir: string): { dir: string; entryFile: string; html: string } {
  const dir = projectDirectory(projectDir);
  const entryFile = path.join(dir, ENTRY_FILE);
  try {
    return { dir, entryFile, html: fs.readFileSync(entryFile, 'utf8') };
  } catch {
    throw badInput(`no ${ENTRY_FILE} in ${projectDir}: a project's composition lives in ${ENTRY_FILE}`);
  }
}

function projectDirectory(projectDir: string): string {
  const dir = path.resolve(projectDir);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    throw badInput(`project directory not found: ${projectDir}`);
  }
  if (!stat.isDirectory()) throw badInput(`not a directory: ${projectDir} (pass the project directory)`);
  return dir;
}

export function parseComposition(html: string, projectDir: string, entryFile: string): Composition {
  const where = path.relative(process.cwd(), entryFile) || entryFile;
  const doc = parse(html);
  const root = readRoot(doc, where);
  const variables = parseDeclarationSources(
    declaringElements(doc).map((el) => el.getAttribute('data-composition-variables')),
    where,
  );
  return { projectDir, entryFile, ...root, variables };
}

/** The elements that declare variables: `<html>` first, then every other one in document order. */
export function declaringElements(doc: HTMLElement): HTMLElement[] {
  const htmlEl = doc.querySelector('html');
  return [...(htmlEl ? [htmlEl] : []), ...doc.querySelectorAll('[data-composition-variables]').filter((el) => el !== htmlEl)];
}

/** The composition root of a parsed document (docs/guide/hyperframes.md), if it has one. */
export function findRoot(doc: HTMLElement): HTMLElement | null {
  return doc.querySelector(ROOT_SELECTORS[0]) ?? doc.querySelector(ROOT_SELECTORS[1]);
}

/** The root's attributes, validated; `where` names the file in the messages. */
export function readRoot(doc: HTMLElement, where: string): Pick<Composition, 'id' | 'width' | 'height' | 'durationSeconds' | 'fps'> {
  const root = findRoot(doc);
  if (!root) {
    throw badInput(`${where}: no composition root (an element with data-composition-id)`);
  }
  const id = root.getAttribute('data-composition-id') ?? '';
  if (id.trim() === '') throw badInput(`${where}: data-composition-id is empty`);
  const attr = (name: string): string | undefined => root.getAttribute(name);
  const width = positiveInteger(attr('data-width'), 'data-width', where);
  const height = positiveInteger(attr('data-height'), 'data-height', where);
  const durationAttr = attr('data-duration');
  const durationSeconds = durationAttr === undefined ? undefined : positiveNumber(durationAttr, 'data-duration', where, 'seconds');
  const fpsAttr = attr('data-fps');
  const fps = fpsAttr === undefined ? DEFAULT_FPS : positiveNumber(fpsAttr, 'data-fps', where, 'frames per second');
  return { id, width, height, durationSeconds, fps };
}

/**
 * The frames of a render of `seconds` at `fps`, checked: `source` says where the length came from
 * (the root's data-duration, or the page) for the messages.
 */
export function checkedFrames(id: string, seconds: number | undefined, fps: number, source: string): number {
  if (seconds === undefined || !(seconds > 0)) {
    throw badInput(
      `${id}: the composition root has no data-duration (seconds), and the page gives no length to infer it from ` +
        '(no timeline, medium or clip with a known end): add data-duration to the root',
    );
  }
  if (seconds > MAX_DURATION_SECONDS) {
    throw badInput(
      `${id}: ${source} ${seconds}s (${totalFrames(seconds, fps)} frames at ${fps} fps) is over the ` +
        `${MAX_DURATION_SECONDS / 3600} hour maximum of one render; split it into parts`,
    );
  }
  const frames = totalFrames(seconds, fps);
  if (frames < 1) throw badInput(`${id}: ${source} ${seconds}s is shorter than one frame at ${fps} fps`);
  return frames;
}

/** The longest composition one render takes; longer ones are split by the author. */
export const MAX_DURATION_SECONDS = 6 * 3600;

function positiveNumber(raw: string | undefined, name: string, where: string, unit: string): number {
  if (raw === undefined || raw.trim() === '') {
    throw badInput(`${where}: the composition root has no ${name} (${unit})`);
  }
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    throw badInput(`${where}: ${name} must be a positive number of ${unit}, got "${raw}"`);
  }
  return n;
}

function positiveInteger(raw: string | undefined, name: string, where: string): number {
  const n = positiveNumber(raw, name, where, 'pixels');
  if (!Number.isInteger(n)) throw badInput(`${where}: ${name} must be a whole number of pixels, got "${raw}"`);
  // H.264 in yuv420p needs even dimensions.
  if (n % 2 !== 0) throw badInput(`${where}: ${name} must be even for H.264 yuv420p output, got ${n}`);
  return n;
}

/** Frames in a render ({@link framesForDuration}). */
export function totalFrames(durationSeconds: number, fps: number): number {
  return framesForDuration(durationSeconds, fps);
}
