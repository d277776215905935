// tier: unit
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT } from '../test-support/cli';
import { headingSlug, markdownAnchors, markdownLinks } from './markdown-links';

// Every relative link in the repository's Markdown (README, docs/, ARCHITECTURE, CONTRIBUTING,
// the templates' READMEs…) leads to a file that exists and, with a #fragment, to a heading or id
// in it. Files only: no network.
const markdownFiles = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: REPO_ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file && fs.existsSync(path.join(REPO_ROOT, file)));

function anchorsOf(file: string, cache: Map<string, Set<string>>): Set<string> {
  let anchors = cache.get(file);
  if (!anchors) {
    anchors = markdownAnchors(fs.readFileSync(file, 'utf8'));
    cache.set(file, anchors);
  }
  return anchors;
}

/** Why a link in `file` is broken, or null when it leads somewhere. */
function brokenLink(file: string, target: string, cache: Map<string, Set<string>>): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return null;
  const [pathPart, fragment] = target.split('#', 2) as [string, string | undefined];
  const resolved = pathPart === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
  if (!resolved.startsWith(REPO_ROOT + path.sep)) return 'leads outside the repository';
  if (!fs.existsSync(resolved)) return 'no such file';
  if (fragment === undefined || !resolved.endsWith('.md')) return null;
  return anchorsOf(resolved, cache).has(decodeURIComponent(fragment).toLowerCase()) ? null : `no heading #${fragment} there`;
}

test('the slug of a heading is GitHub\'s', () => {
  assert.is(headingSlug('Security model: what a page can reach'), 'security-model-what-a-page-can-reach');
  assert.is(headingSlug('`vidkit render <projectDir>`'), 'vidkit-render-projectdir');
  assert.is(headingSlug('Resolution presets (`--resolution`)'), 'resolution-presets---resolution');
  assert.equal([...markdownAnchors('# A\n\n```\n# not a heading\n```\n## A\n<a id="x"></a>')], ['a', 'a-1', 'x']);
});

test('a link in code is not a link; inline links, images and definitions are', () => {
  const links = markdownLinks('[a](x.md) `[b](y.md)` ![c](img.png "t")\n```\n[d](z.md)\n```\n[e]: ref.md#top');
  assert.equal(links.map((l) => l.target), ['x.md', 'img.png', 'ref.md#top']);
});

test('every relative link in the Markdown of the repository leads to a file and heading that exist', () => {
  assert.ok(markdownFiles.includes('README.md') && markdownFiles.some((f) => f.startsWith('docs/')), markdownFiles.join(' '));
  const cache = new Map<string, Set<string>>();
  const broken: string[] = [];
  for (const relative of markdownFiles) {
    const file = path.join(REPO_ROOT, relative);
    for (const { target, line } of markdownLinks(fs.readFileSync(file, 'utf8'))) {
      const why = brokenLink(file, target, cache);
      if (why) broken.push(`${relative}:${line}: ${target}: ${why}`);
    }
  }
  assert.equal(broken, []);
});

test.run();
