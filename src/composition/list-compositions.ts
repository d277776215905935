import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'node-html-parser';
import { ROOT_SELECTORS } from './root';
import { VariableDeclaration, parseDeclarationSources } from './variables';

/** One composition of a project, as `vidkit compositions` lists it. */
export interface CompositionEntry {
  /** The file, relative to the project, with `/` separators. */
  file: string;
  id: string;
  /** data-width and data-height; null where the root declares none (a sub-composition filling its host). */
  width: number | null;
  height: number | null;
  /** The root's data-duration; null when the page infers its length. */
  durationSeconds: number | null;
  variables: VariableDeclaration[];
}

/** Folders never searched: hidden ones, dependencies. */
const SKIPPED = new Set(['node_modules']);

/**
 * Every HTML file of the project with a composition root (docs/guide/hyperframes.md):
 * index.html first, then the others by path. A sub-composition file counts with the root inside
 * its `<template>`; its variables are those of its `<html>` and of its elements.
 */
export function listCompositions(projectDir: string): CompositionEntry[] {
  const files = htmlFiles(projectDir, '').sort((a, b) => (a === 'index.html' ? -1 : b === 'index.html' ? 1 : a.localeCompare(b)));
  const entries: CompositionEntry[] = [];
  for (const file of files) {
    const doc = parse(fs.readFileSync(path.join(projectDir, file), 'utf8'));
    const root = doc.querySelector(ROOT_SELECTORS[0]) ?? doc.querySelector(ROOT_SELECTORS[1]);
    if (!root) continue;
    const number = (name: string): number | null => {
      const n = Number(root.getAttribute(name));
      return root.hasAttribute(name) && Number.isFinite(n) && n > 0 ? n : null;
    };
    const htmlEl = doc.querySelector('html');
    const declarers = [htmlEl, ...doc.querySelectorAll('[data-composition-variables]').filter((el) => el !== htmlEl)];
    const variables = parseDeclarationSources(
      declarers.map((el) => el?.getAttribute('data-composition-variables')),
      file,
    ).declarations;
    entries.push({
      file,
      id: root.getAttribute('data-composition-id') ?? '',
      width: number('data-width'),
      height: number('data-height'),
      durationSeconds: number('data-duration'),
      variables,
    });
  }
  return entries;
}

function htmlFiles(projectDir: string, under: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(path.join(projectDir, under), { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
    const rel = under === '' ? entry.name : `${under}/${entry.name}`;
    if (entry.isDirectory()) found.push(...htmlFiles(projectDir, rel));
    else if (entry.isFile() && /\.html?$/i.test(entry.name)) found.push(rel);
  }
  return found;
}
