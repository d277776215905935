// tier: unit
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scopeCss } from './css-scope';

// Sub-composition styles scoped to one instance (docs/guide/hyperframes.md).
const scope = { host: '[data-composition-id="card__hf1"]', root: '[data-vidkit-root="card__hf1"]', compositionId: 'card', rootDomId: 'card' };

test('selectors are prefixed with the host; #root and [data-composition-id] name the instance root; html, body and :root the host', () => {
  assert.is(
    scopeCss('.a, p:is(.b, .c) > span { color: red } #card .t, [data-composition-id="card"] { x: 1 } body.dark .x {} html body {} :root { --v: 1 }', scope),
    '[data-composition-id="card__hf1"] .a, [data-composition-id="card__hf1"] p:is(.b, .c) > span { color: red } ' +
      '[data-composition-id="card__hf1"] [data-vidkit-root="card__hf1"] .t, [data-composition-id="card__hf1"] [data-vidkit-root="card__hf1"] { x: 1 } ' +
      '[data-composition-id="card__hf1"].dark .x {} [data-composition-id="card__hf1"] {} [data-composition-id="card__hf1"] { --v: 1 }',
  );
});

test('rules inside @media are scoped; @keyframes, @font-face and @import pass as they are; braces in strings and comments do not count', () => {
  const css = '@import url("x.css"); @media (min-width: 1px) { .a { content: "}" } } @keyframes k { from { opacity: 0 } } @font-face { font-family: F; } /* { */ .b { }';
  assert.is(
    scopeCss(css, scope),
    '@import url("x.css"); @media (min-width: 1px) { [data-composition-id="card__hf1"] .a { content: "}" } } @keyframes k { from { opacity: 0 } } @font-face { font-family: F; }  [data-composition-id="card__hf1"] .b { }',
  );
});

test('an id that only begins with the root id is left alone', () => {
  assert.is(scopeCss('#card-title {}', scope), '[data-composition-id="card__hf1"] #card-title {}');
});

test.run();
