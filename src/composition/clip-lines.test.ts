// tier: unit
import * as path from 'node:path';
import { HTMLElement, parse } from 'node-html-parser';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectReader } from './project-page';
import { FIXTURES } from '../test-support/cli';
import { clipLinesOfPage } from './clip-lines';
import { mountSubCompositions } from './sub-compositions';

const NESTED = path.join(FIXTURES, 'hf-sub-nested');

test('the clip lines of a page, its composition files nested three deep and an inline template', () => {
  const parts = clipLinesOfPage('index.html', projectReader(NESTED));
  assert.equal(parts, {
    'index.html': [
      { line: 11, tag: 'div' },
      { line: 12, tag: 'div' },
    ],
    'index.html#badge-template': [],
    'compositions/outer.html': [{ line: 4, tag: 'div' }],
    'compositions/middle.html': [{ line: 4, tag: 'div' }],
    'compositions/inner.html': [],
  });
});

test('the mounted page holds, part by part, as many clips of the same tags in the same order (the order the timeline joins them by)', () => {
  for (const project of [NESTED, path.join(FIXTURES, 'hf-sub-scenes'), path.join(FIXTURES, 'studio-tracks')]) {
    const read = projectReader(project);
    const doc = parse(mountSubCompositions(read('index.html')!, 'index.html', read));
    const root = doc.querySelector('[data-composition-id]');
    // As the page runtime lists them (timing.ts, clipList): by the data-vidkit-source around each clip.
    const mounted: Record<string, string[]> = {};
    for (const el of doc.querySelectorAll('[data-start], [data-composition-id]')) {
      if (el === root || ['SCRIPT', 'STYLE', 'TEMPLATE'].includes(el.tagName)) continue;
      let from: HTMLElement | null = el.parentNode;
      while (from && !from.hasAttribute?.('data-vidkit-source')) from = from.parentNode;
      const part = from?.getAttribute('data-vidkit-source') ?? 'index.html';
      (mounted[part] ??= []).push(el.tagName.toLowerCase());
    }
    const lines = clipLinesOfPage('index.html', read);
    for (const [part, tags] of Object.entries(mounted)) assert.equal(lines[part]?.map((l) => l.tag), tags, `${project} ${part}`);
  }
});

test.run();
