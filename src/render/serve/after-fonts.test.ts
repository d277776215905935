// tier: unit
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deferScriptsUntilFonts } from './after-fonts';

// The served page's script tags: what the parser would run outside <head> is marked, the rest as written.
function tags(page: string): string[] {
  return [...deferScriptsUntilFonts(page).matchAll(/<script\b(?:[^>"']|"[^"]*"|'[^']*')*>/g)].map((m) => m[0]);
}

test('classic and module scripts outside <head> are marked, keeping their other attributes; a type is replaced', () => {
  const page = '<!doctype html><html><head><script src="gsap.js"></script></head><body>' +
    '<script>a()</script><script type="text/javascript" src="b.js" defer data-x="1>0"></script><script type=module>m()</script></body></html>';
  const out = tags(page);
  // The fallback comes first, in the head.
  assert.is(out[0], '<script>');
  assert.equal(out.slice(1), [
    '<script src="gsap.js">',
    '<script type="text/vidkit-after-fonts">',
    '<script type="text/vidkit-after-fonts" src="b.js" defer data-x="1>0">',
    '<script type="text/vidkit-after-fonts+module">',
  ]);
});

test('data blocks, nomodule scripts and scripts in svg, template and noscript stay as written; a page with no script to mark is sent unchanged', () => {
  const body = '<script type="application/json">{"a":1}</script><script nomodule>old()</script>' +
    '<svg><script>s()</script></svg><template><script>t()</script></template><noscript><script>n()</script></noscript>';
  const page = `<!doctype html><html><head></head><body>${body}</body></html>`;
  assert.is(deferScriptsUntilFonts(page), page);
});

test('the fallback goes after the doctype in a page without <head> or <html>, never before it', () => {
  const out = deferScriptsUntilFonts('<!DOCTYPE html><p>x</p><script>a()</script>');
  assert.ok(out.startsWith('<!DOCTYPE html><script>document.addEventListener(\'DOMContentLoaded\''), out.slice(0, 80));
  assert.ok(out.endsWith('<p>x</p><script type="text/vidkit-after-fonts">a()</script>'));
});

test.run();
