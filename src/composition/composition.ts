import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'node-html-parser';
import { badInput } from '../errors';
import { DeclarationSet, parseDeclarations } from './variables';

export const ENTRY_FILE = 'index.html';
export const DEFAULT_FPS = 30;

/** A project directory parsed once at the edge: everything a render needs to know about it. */
export interface Composition {
  projectDir: string;
  entryFile: string;
  id: string;
  width: number;
  height: number;
  durationSeconds: number;
  /** `data-fps` when present, else {@link DEFAULT_FPS}; a caller may still override it. */
  fps: number;
  variables: DeclarationSet;
}

/** Reads `<projectDir>/index.html` and validates the composition root (SPEC.md 2.2). */
export function loadComposition(projectDir: string): Composition {
  const dir = path.resolve(projectDir);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    throw badInput(`project directory not found: ${projectDir}`);
  }
  if (!stat.isDirectory()) throw badInput(`not a directory: ${projectDir} (pass the project directory)`);
  const entryFile = path.join(dir, ENTRY_FILE);
  let html: string;
  try {
    html = fs.readFileSync(entryFile, 'utf8');
  } catch {
    throw badInput(`no ${ENTRY_FILE} in ${projectDir}: a project's composition lives in ${ENTRY_FILE}`);
  }
  return parseComposition(html, dir, entryFile);
}

export function parseComposition(html: string, projectDir: string, entryFile: string): Composition {
  const where = path.relative(process.cwd(), entryFile) || entryFile;
  const doc = parse(html);
  const root = doc.querySelector('[data-composition-id]');
  if (!root) {
    throw badInput(`${where}: no composition root (an element with data-composition-id)`);
  }
  const id = root.getAttribute('data-composition-id') ?? '';
  if (id.trim() === '') throw badInput(`${where}: data-composition-id is empty`);
  const attr = (name: string): string | undefined => root.getAttribute(name);
  const width = positiveInteger(attr('data-width'), 'data-width', where);
  const height = positiveInteger(attr('data-height'), 'data-height', where);
  const durationSeconds = positiveNumber(attr('data-duration'), 'data-duration', where, 'seconds');
  const fpsAttr = attr('data-fps');
  const fps = fpsAttr === undefined ? DEFAULT_FPS : positiveNumber(fpsAttr, 'data-fps', where, 'frames per second');
  const htmlEl = doc.querySelector('html');
  const variables = parseDeclarations(htmlEl?.getAttribute('data-composition-variables'), where);
  return { projectDir, entryFile, id, width, height, durationSeconds, fps, variables };
}

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

/** Frames in a render: duration × fps, rounded to the nearest frame. */
export function totalFrames(durationSeconds: number, fps: number): number {
  return Math.round(durationSeconds * fps);
}
