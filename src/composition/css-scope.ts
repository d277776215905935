/**
 * Scopes a sub-composition's style sheet to one instance of it (docs/guide/hyperframes.md,
 * sub-compositions): every selector is prefixed with the host's selector; `html`,
 * `body` and `:root` at a selector's start name the host; the composition's own root (its `#id`
 * or `[data-composition-id="…"]`) names the instance's root. Rules inside @media, @supports,
 * @container, @layer and @scope are scoped too; @keyframes, @font-face and the like pass as they are.
 *
 * A small scanner rather than a CSS library: it only needs to find rule preludes and blocks
 * (skipping strings and comments) and to split selector lists at top-level commas.
 */
export interface CssScope {
  /** Selects the host element of the instance. */
  host: string;
  /** Selects the instance's root (the composition's element with data-composition-id). */
  root: string;
  /** The authored data-composition-id of the composition's root. */
  compositionId?: string;
  /** The authored `id` attribute of the composition's root. */
  rootDomId?: string;
}

const GROUPING_AT_RULES = new Set(['media', 'supports', 'container', 'layer', 'scope', 'document']);

export function scopeCss(css: string, scope: CssScope): string {
  let out = '';
  let i = 0;
  while (i < css.length) {
    const stop = scanTo(css, i, '{;}');
    const prelude = css.slice(i, stop).replace(/\/\*[\s\S]*?\*\//g, '');
    if (stop >= css.length || css[stop] === '}') {
      out += css.slice(i, stop + 1);
      i = stop + 1;
      continue;
    }
    if (css[stop] === ';') {
      out += css.slice(i, stop + 1);
      i = stop + 1;
      continue;
    }
    const close = blockEnd(css, stop);
    const body = css.slice(stop + 1, close);
    const trimmed = prelude.trim();
    const lead = prelude.slice(0, prelude.length - prelude.trimStart().length);
    if (trimmed.startsWith('@')) {
      const name = /^@([\w-]+)/.exec(trimmed)?.[1]?.toLowerCase() ?? '';
      out += prelude + '{' + (GROUPING_AT_RULES.has(name) ? scopeCss(body, scope) : body) + '}';
    } else {
      out += lead + splitTopLevel(trimmed).map((s) => scopeSelector(s.trim(), scope)).join(', ') + ' {' + body + '}';
    }
    i = close + 1;
  }
  return out;
}

function scopeSelector(selector: string, scope: CssScope): string {
  let s = selector;
  if (scope.rootDomId) s = s.replace(new RegExp(`#${escapeRegExp(scope.rootDomId)}(?![\\w-])`, 'g'), scope.root);
  if (scope.compositionId) {
    const id = escapeRegExp(scope.compositionId);
    s = s.replace(new RegExp(`\\[\\s*data-composition-id\\s*=\\s*(["']?)${id}\\1\\s*\\]`, 'g'), scope.root);
  }
  // `html`, `body` and `:root` stand for the host: `body.dark .x` is the host with that class.
  const documentLevel = /^(?:html|body|:root)(?![\w-])/i;
  if (documentLevel.test(s)) {
    while (documentLevel.test(s)) s = s.replace(documentLevel, '').replace(/^\s+(?=(?:html|body|:root)(?![\w-]))/i, '');
    if (s.trim() === '') return scope.host;
    return `${scope.host}${s}`;
  }
  return `${scope.host} ${s}`;
}

/** The index of the first of `chars` at nesting depth 0 from `from`, skipping strings and comments. */
function scanTo(css: string, from: number, chars: string): number {
  let depth = 0;
  for (let i = from; i < css.length; i++) {
    const c = css[i];
    if (c === '/' && css[i + 1] === '*') {
      const end = css.indexOf('*/', i + 2);
      i = end < 0 ? css.length : end + 1;
    } else if (c === '"' || c === "'") {
      i = stringEnd(css, i);
    } else if (c === '(' || c === '[') {
      depth++;
    } else if (c === ')' || c === ']') {
      depth = Math.max(0, depth - 1);
    } else if (depth === 0 && chars.includes(c)) {
      return i;
    }
  }
  return css.length;
}

/** The index of the `}` closing the block opened at `open`. */
function blockEnd(css: string, open: number): number {
  let depth = 0;
  for (let i = open; i < css.length; i++) {
    const c = css[i];
    if (c === '/' && css[i + 1] === '*') {
      const end = css.indexOf('*/', i + 2);
      i = end < 0 ? css.length : end + 1;
    } else if (c === '"' || c === "'") {
      i = stringEnd(css, i);
    } else if (c === '{') {
      depth++;
    } else if (c === '}' && --depth === 0) {
      return i;
    }
  }
  return css.length;
}

function stringEnd(css: string, open: number): number {
  for (let i = open + 1; i < css.length; i++) {
    if (css[i] === '\\') i++;
    else if (css[i] === css[open]) return i;
  }
  return css.length;
}

function splitTopLevel(selectors: string): string[] {
  const parts: string[] = [];
  let from = 0;
  for (;;) {
    const comma = scanTo(selectors, from, ',');
    parts.push(selectors.slice(from, comma));
    if (comma >= selectors.length) return parts;
    from = comma + 1;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
