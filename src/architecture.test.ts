// tier: unit
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT } from './test-support/cli';

// ARCHITECTURE.md is read by whoever is about to change the code: the crates and folders it lists
// are the ones there are.
const page = fs.readFileSync(path.join(REPO_ROOT, 'ARCHITECTURE.md'), 'utf8');

/** The first cells of the Markdown table rows under the heading `heading`. */
function firstCells(heading: string): string[] {
  const section = page.split(/^## /m).find((s) => s.startsWith(`${heading}\n`));
  assert.ok(section, `ARCHITECTURE.md has a section "## ${heading}"`);
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !/^\|[-| ]+\|$/.test(line))
    .map((line) => line.split('|')[1].trim());
}

function folders(dir: string, holding?: string): string[] {
  return fs
    .readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && (holding === undefined || fs.existsSync(path.join(REPO_ROOT, dir, e.name, holding))))
    .map((e) => e.name)
    .sort();
}

const NUMBERS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

test('ARCHITECTURE.md lists every crate there is, and no other', () => {
  const listed = firstCells('The Rust core')
    .map((cell) => /^\[crates\/([^\]]+)\]/.exec(cell)?.[1])
    .filter((name): name is string => name !== undefined)
    .sort();
  const crates = folders('crates', 'Cargo.toml');
  assert.equal(listed, crates);
  assert.match(page, new RegExp(`built from ${NUMBERS[crates.length]} crates`));
});

test('ARCHITECTURE.md lists every top-level folder of src/, and no other', () => {
  const listed = firstCells('Folder layout')
    .flatMap((cell) => [...cell.matchAll(/`src\/([^/`]+)\/`/g)].map((m) => m[1]))
    .sort();
  assert.equal(listed, folders('src').filter((name) => name !== 'node_modules'));
});

test.run();
