import type { HTMLElement } from 'node-html-parser';
import { VidkitError } from '../errors';

/**
 * Edits of one element of an HTML file as the studio makes them: an attribute, a property of its
 * inline style, its text. Each edit is a splice of the file's text at the offsets the parser
 * reports (node-html-parser's `range`) and a tokenizer of the start tag found there, so
 * everything else in the file (formatting, comments, attribute order, quoting) stays byte for byte.
 */

/** Replace `text.slice(start, end)` with `insert`. */
export interface Splice {
  start: number;
  end: number;
  insert: string;
}

/** An attribute as written in a start tag: offsets of the whole attribute and of its value (between quotes). */
export interface SourceAttribute {
  name: string;
  start: number;
  end: number;
  /** The value as written (entities not decoded); '' for an attribute without one. */
  raw: string;
  valueStart: number;
  valueEnd: number;
  /** `"`, `'`, or '' when unquoted or without a value. */
  quote: string;
}

export interface StartTag {
  tag: string;
  attributes: SourceAttribute[];
  /** Offset of the `>` (or of the `/` of a `/>`) that ends the tag. */
  close: number;
  /** Offset just past the `>`. */
  end: number;
}

const SPACE = /[\t\n\f\r ]/;

/** Tokenizes the start tag at `at` (where the parser says the element begins) as HTML reads attributes. */
export function readStartTag(html: string, at: number): StartTag {
  const open = /^<([A-Za-z][^\t\n\f\r />]*)/.exec(html.slice(at, at + 256));
  if (!open) throw new VidkitError(`no start tag at offset ${at}: the file and its parse disagree`);
  const attributes: SourceAttribute[] = [];
  let i = at + open[0].length;
  for (;;) {
    while (i < html.length && (SPACE.test(html[i]) || (html[i] === '/' && html[i + 1] !== '>'))) i++;
    if (i >= html.length) throw new VidkitError(`the start tag at offset ${at} is not closed`);
    if (html[i] === '>' || (html[i] === '/' && html[i + 1] === '>')) {
      const close = i;
      return { tag: open[1].toLowerCase(), attributes, close, end: html.indexOf('>', i) + 1 };
    }
    const start = i;
    // A name is at least one character, which may be "=" (as HTML reads it).
    i++;
    while (i < html.length && !SPACE.test(html[i]) && !'/>='.includes(html[i])) i++;
    const name = html.slice(start, i).toLowerCase();
    let j = i;
    while (j < html.length && SPACE.test(html[j])) j++;
    if (html[j] !== '=') {
      attributes.push({ name, start, end: i, raw: '', valueStart: i, valueEnd: i, quote: '' });
      continue;
    }
    j++;
    while (j < html.length && SPACE.test(html[j])) j++;
    const quote = html[j] === '"' || html[j] === "'" ? html[j] : '';
    if (quote) {
      const close = html.indexOf(quote, j + 1);
      if (close < 0) throw new VidkitError(`an attribute value at offset ${j} is not closed`);
      attributes.push({ name, start, end: close + 1, raw: html.slice(j + 1, close), valueStart: j + 1, valueEnd: close, quote });
      i = close + 1;
    } else {
      let k = j;
      while (k < html.length && !SPACE.test(html[k]) && html[k] !== '>') k++;
      attributes.push({ name, start, end: k, raw: html.slice(j, k), valueStart: j, valueEnd: k, quote: '' });
      i = k;
    }
  }
}

/** The start tag of a parsed element, checked against its tag name. */
export function startTagOf(html: string, el: HTMLElement): StartTag {
  const tag = readStartTag(html, el.range[0]);
  if (tag.tag !== el.rawTagName.toLowerCase()) throw new VidkitError(`<${el.rawTagName}> at offset ${el.range[0]}: the file and its parse disagree`);
  return tag;
}

/**
 * Sets (or, with null, removes) attributes of the element whose start tag is `tag`: a value is
 * rewritten inside its quotes, a new attribute goes at the end of the tag, after the others.
 */
export function setAttributes(tag: StartTag, values: Record<string, string | null>): Splice[] {
  const splices: Splice[] = [];
  const added: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    const lower = name.toLowerCase();
    if (!/^[a-z_:][a-z0-9_.:-]*$/.test(lower)) throw new VidkitError(`"${name}" is not an attribute name the studio writes`, { exitCode: 2 });
    const found = tag.attributes.find((a) => a.name === lower);
    if (value === null) {
      // The attribute with the space before it, so the tag reads as if it had never been there.
      if (found) splices.push({ start: found.start - 1, end: found.end, insert: '' });
    } else if (!found) {
      added.push(` ${name}="${escapeAttribute(value, '"')}"`);
    } else if (found.quote) {
      splices.push({ start: found.valueStart, end: found.valueEnd, insert: escapeAttribute(value, found.quote) });
    } else {
      splices.push({ start: found.start, end: found.end, insert: `${found.name}="${escapeAttribute(value, '"')}"` });
    }
  }
  if (added.length > 0) splices.push({ start: tag.close, end: tag.close, insert: added.join('') });
  return splices;
}

/**
 * Sets properties of the element's inline style (null removes one): a declaration already there
 * gets its value replaced in place, a new one is added at the end. Other declarations, their
 * order and spacing stay as written.
 */
export function setStyle(tag: StartTag, values: Record<string, string | null>): Splice[] {
  const attr = tag.attributes.find((a) => a.name === 'style');
  const style = attr ? decodeEntities(attr.raw) : '';
  let next = style;
  for (const [property, value] of Object.entries(values)) {
    if (!/^-?-?[a-z][a-z0-9-]*$/i.test(property)) throw new VidkitError(`"${property}" is not a CSS property`, { exitCode: 2 });
    if (value !== null && /[;{}<>]|\/\*/.test(value)) throw new VidkitError(`"${value}" is not a value the studio writes into a style`, { exitCode: 2 });
    next = setDeclaration(next, property, value);
  }
  if (next === style) return [];
  return setAttributes(tag, { style: next });
}

/** One declaration of a `style` attribute's text set, replaced or removed; the rest as it was. */
function setDeclaration(style: string, property: string, value: string | null): string {
  const found = declarations(style).find((d) => d.property === property.toLowerCase());
  if (found) {
    if (value === null) return (style.slice(0, found.start) + style.slice(found.end).replace(/^;\s*/, '')).replace(/\s+$/, '');
    return style.slice(0, found.valueStart) + value + style.slice(found.valueEnd);
  }
  if (value === null) return style;
  const kept = style.replace(/\s+$/, '');
  const joint = kept === '' ? '' : kept.endsWith(';') ? ' ' : '; ';
  return `${kept}${joint}${property}: ${value}`;
}

/** The declarations of a style text: property, where it starts and ends (the `;` excluded), where its value is. */
function declarations(style: string): Array<{ property: string; start: number; end: number; valueStart: number; valueEnd: number }> {
  const found: Array<{ property: string; start: number; end: number; valueStart: number; valueEnd: number }> = [];
  let start = 0;
  let depth = 0;
  let quote = '';
  for (let i = 0; i <= style.length; i++) {
    const c = style[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '(') {
      depth++;
    } else if (c === ')') {
      depth = Math.max(0, depth - 1);
    } else if (i === style.length || (c === ';' && depth === 0)) {
      const text = style.slice(start, i);
      const colon = text.indexOf(':');
      if (colon > 0) {
        const lead = text.length - text.trimStart().length;
        const afterColon = text.slice(colon + 1);
        const valueStart = start + colon + 1 + (afterColon.length - afterColon.trimStart().length);
        const valueEnd = start + text.trimEnd().length;
        found.push({ property: text.slice(lead, colon).trim().toLowerCase(), start: start + lead, end: i, valueStart, valueEnd: Math.max(valueStart, valueEnd) });
      }
      start = i + 1;
    }
  }
  return found;
}

/**
 * Replaces the text of an element that holds text only (no child elements): the whitespace
 * around it, which is the file's indentation, stays.
 */
export function setText(html: string, el: HTMLElement, text: string): Splice[] {
  if (el.childNodes.some((n) => n.nodeType === 1)) {
    throw new VidkitError(`<${el.rawTagName.toLowerCase()}> holds other elements: edit its text in the file, or pick the element that holds the text`, { exitCode: 2 });
  }
  const inner = innerRange(html, el);
  const current = html.slice(inner.start, inner.end);
  const lead = current.length - current.trimStart().length;
  const trail = current.trim() === '' ? 0 : current.length - current.trimEnd().length;
  return [{ start: inner.start + lead, end: inner.end - trail, insert: escapeText(text) }];
}

/** The offsets between the element's start tag and its end tag. */
function innerRange(html: string, el: HTMLElement): { start: number; end: number } {
  const tag = startTagOf(html, el);
  const body = html.slice(tag.end, el.range[1]);
  const close = new RegExp(`</${el.rawTagName}\\s*>$`, 'i').exec(body);
  if (!close) throw new VidkitError(`<${tag.tag}> at offset ${el.range[0]} has no end tag to edit its text within`, { exitCode: 2 });
  return { start: tag.end, end: el.range[1] - close[0].length };
}

/**
 * Adds a declaration to a `data-composition-variables` attribute: written before the list's
 * closing bracket, so the declarations already there keep their layout.
 */
export function addDeclaration(attr: SourceAttribute, declaration: object): Splice[] {
  const list = decodeEntities(attr.raw);
  const close = list.lastIndexOf(']');
  if (!list.trimStart().startsWith('[') || close < 0) throw new VidkitError('data-composition-variables is not a JSON list: fix it in the file first', { exitCode: 2 });
  const before = list.slice(0, close);
  const empty = before.trim() === '[';
  // A list written one declaration a line gets the new one on a line of its own, indented alike.
  const lineBreak = /\n([ \t]*)\S[^\n]*$/.exec(before.replace(/\s+$/, ''));
  const separator = empty ? '' : lineBreak ? `,\n${lineBreak[1]}` : ', ';
  const json = JSON.stringify(declaration);
  const kept = before.replace(/\s+$/, '');
  const at = attr.valueStart + encodedLength(attr.raw, kept.length);
  const quote = attr.quote || '"';
  return [{ start: at, end: at, insert: escapeAttribute(`${separator}${json}`, quote) }];
}

/**
 * The offset in the raw (entity-encoded) attribute text at which `decodedLength` decoded
 * characters have been read.
 */
function encodedLength(raw: string, decodedLength: number): number {
  let i = 0;
  for (let n = 0; n < decodedLength; n++) {
    const entity = raw[i] === '&' ? /^&(#\d+|#x[0-9a-f]+|[a-z]+);/i.exec(raw.slice(i)) : null;
    i += entity ? entity[0].length : 1;
  }
  return i;
}

/** Applies splices that do not overlap, in any order. */
export function applySplices(text: string, splices: readonly Splice[]): string {
  const sorted = [...splices].sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const s of sorted) {
    if (s.start < at) throw new VidkitError('two edits of the same place at once');
    out += text.slice(at, s.start) + s.insert;
    at = s.end;
  }
  return out + text.slice(at);
}

export function escapeAttribute(value: string, quote: string): string {
  const escaped = value.replace(/&/g, '&amp;');
  return quote === "'" ? escaped.replace(/'/g, '&#39;') : escaped.replace(/"/g, '&quot;');
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const NAMED: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>', nbsp: '\u00a0' };

/** Character references of an attribute value decoded (the named ones an attribute needs, and numeric ones). */
export function decodeEntities(raw: string): string {
  return raw.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return NAMED[ref.toLowerCase()] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return Number.isFinite(code) ? String.fromCodePoint(code) : whole;
  });
}
