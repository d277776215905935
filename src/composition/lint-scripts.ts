import * as fs from 'node:fs';
import * as path from 'node:path';
import { LintContext, lineAt, pageFile } from './lint-finding';
import { insideTemplate, isHost } from './sub-compositions';

/** An inline script, or a script file of the project's that the page loads. */
interface ScriptText {
  text: string;
  /** The file the text is in, relative to the project, and where the text begins in it. */
  file: string;
  offsetInFile: number;
  fileText: string;
}

interface Registrations {
  /** Keys assigned in window.__timelines with a literal name. */
  keys: Set<string>;
  /** A key computed at run time, or the registry filled by other means: keys cannot be known. */
  unknown: boolean;
  /** window.__timelines assigned an array. */
  array: boolean;
  /** Where each GSAP timeline is created: script and offset in it. */
  created: Array<{ script: ScriptText; index: number }>;
}

const LITERAL_KEY = /__timelines\s*\[\s*(['"`])([^'"`\n]+)\1\s*\]\s*=(?!=)/g;
const DOTTED_KEY = /__timelines\.([A-Za-z_$][\w$]*)\s*=(?!=)/g;
const COMPUTED_KEY = /__timelines\s*\[\s*(?!['"`])/;
const OBJECT_LITERAL = /__timelines\s*=\s*\{/g;
const ARRAY = /__timelines\s*=\s*\[/;
const OTHER_FILLING = /Object\.assign\(\s*(?:window\.)?__timelines|__timelines\s*=\s*(?!\[|\{|(?:window\.)?__timelines\b)[A-Za-z_$]/;
const GSAP_TIMELINE = /\bgsap\.timeline\s*\(|\bnew\s+Timeline(?:Lite|Max)\s*\(/g;

/**
 * What the page's scripts do with timelines, read as text (the page's own inline scripts and the
 * project's script files it loads): a guess, since code can build keys and timelines in ways no
 * pattern sees. Findings from it are warnings marked `heuristic`, except a length that nothing
 * at all could give.
 */
export function lintScripts(ctx: LintContext): void {
  const scripts = readScripts(ctx);
  const reg = registrations(scripts);
  lintUnregistered(ctx, reg);
  lintNestedTimelines(ctx, reg);
  lintLength(ctx, reg, scripts.length > 0);
}

function readScripts(ctx: LintContext): ScriptText[] {
  const scripts: ScriptText[] = [];
  for (const el of ctx.doc.querySelectorAll('script')) {
    const type = (el.getAttribute('type') ?? '').trim().toLowerCase();
    if (type !== '' && type !== 'module' && !type.includes('javascript')) continue;
    const src = el.getAttribute('src');
    if (src === undefined) {
      const text = el.rawText;
      // The element's text begins after its opening tag.
      const offset = ctx.html.indexOf(text, el.range[0]);
      scripts.push({ text, file: ctx.file, offsetInFile: offset < 0 ? el.range[0] : offset, fileText: ctx.html });
      continue;
    }
    const file = pageFile(ctx.projectDir, ctx.file, src);
    // Libraries are not the page's code: a minified file is skipped.
    if (!file || /\.min\.m?js$/.test(file)) continue;
    const text = fs.readFileSync(file, 'utf8');
    scripts.push({ text, file: path.relative(ctx.projectDir, file), offsetInFile: 0, fileText: text });
  }
  return scripts;
}

function registrations(scripts: ScriptText[]): Registrations {
  const reg: Registrations = { keys: new Set(), unknown: false, array: false, created: [] };
  for (const script of scripts) {
    const { text } = script;
    for (const m of text.matchAll(LITERAL_KEY)) reg.keys.add(m[2]);
    for (const m of text.matchAll(DOTTED_KEY)) reg.keys.add(m[1]);
    for (const m of text.matchAll(OBJECT_LITERAL)) for (const key of objectKeys(text, m.index! + m[0].length)) reg.keys.add(key);
    if (COMPUTED_KEY.test(text) || OTHER_FILLING.test(text)) reg.unknown = true;
    if (ARRAY.test(text)) reg.array = true;
    for (const m of text.matchAll(GSAP_TIMELINE)) reg.created.push({ script, index: m.index! });
  }
  return reg;
}

/**
 * The keys of the object literal whose body starts at `from` (just past its `{`): names and
 * quoted strings at its top level followed by `:`, or standing alone (shorthand). Nested
 * brackets and strings are skipped.
 */
function objectKeys(text: string, from: number): string[] {
  const keys: string[] = [];
  let depth = 0;
  let expectKey = true;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'" || c === '`') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) break;
      if (depth === 0 && expectKey && /^\s*:/.test(text.slice(end + 1))) keys.push(text.slice(i + 1, end));
      i = end;
      expectKey = false;
    } else if ('({['.includes(c)) {
      depth++;
    } else if (')]}'.includes(c)) {
      if (depth === 0) break;
      depth--;
    } else if (depth === 0 && c === ',') {
      expectKey = true;
    } else if (depth === 0 && expectKey && /[A-Za-z_$]/.test(c)) {
      const name = /^[A-Za-z_$][\w$]*/.exec(text.slice(i))![0];
      if (/^\s*[:,}]/.test(text.slice(i + name.length))) keys.push(name);
      i += name.length - 1;
      expectKey = false;
    }
  }
  return keys;
}

const registersAny = (reg: Registrations) => reg.keys.size > 0 || reg.array || reg.unknown;

/** A GSAP timeline created and never handed to the renderer stays where it was created. */
function lintUnregistered(ctx: LintContext, reg: Registrations): void {
  if (registersAny(reg) || reg.created.length === 0) return;
  const { script, index } = reg.created[0];
  ctx.report({
    severity: 'warning',
    rule: 'timeline-not-registered',
    heuristic: true,
    message:
      `a GSAP timeline is created here, and no script registers one in window.__timelines: the renderer cannot seek it, so a paused timeline never moves; ` +
      `register it as window.__timelines["${ctx.root?.getAttribute('data-composition-id') ?? 'id'}"]`,
    file: script.file,
    line: lineAt(script.fileText, script.offsetInFile + index),
  });
}

/**
 * A nested composition plays its timeline in its clip's own time only when the timeline is
 * registered under its id; under another key the timeline follows the root's time. Said only
 * when the scripts create more timelines than they register under composition ids (or as the
 * root's array), so a composition without animation of its own is not flagged.
 */
function lintNestedTimelines(ctx: LintContext, reg: Registrations): void {
  if (reg.unknown || !registersAny(reg)) return;
  const compositions = ctx.doc.querySelectorAll('[data-composition-id]');
  const named = [...reg.keys].filter((key) => compositions.some((el) => el.getAttribute('data-composition-id') === key)).length;
  if (reg.created.length <= named + (reg.array ? 1 : 0)) return;
  for (const el of compositions) {
    // A sub-composition's timeline is registered by its own file's or template's scripts.
    if (el === ctx.root || el.hasAttribute('data-no-timeline') || isHost(el, ctx.doc) || insideTemplate(el)) continue;
    const id = el.getAttribute('data-composition-id')!;
    if (reg.keys.has(id)) continue;
    ctx.report({
      severity: 'warning',
      rule: 'timeline-missing',
      heuristic: true,
      message:
        `no script registers window.__timelines["${id}"] for this nested composition: a timeline meant for it plays on the root's time, not from its clip's start; ` +
        'register it under the id, or mark the composition data-no-timeline if it has none',
      at: el,
    });
  }
}

/**
 * A root without data-duration takes its length from the page: timelines, media and nested
 * compositions with a start, or clips with an end (a page's own window.__hf gives none: the
 * renderer's protocol replaces it, as in HyperFrames). With none of
 * them the render fails; when scripts run, they may still add one, so that is a guess.
 */
function lintLength(ctx: LintContext, reg: Registrations, hasScripts: boolean): void {
  if (!ctx.root || ctx.root.hasAttribute('data-duration')) return;
  if (registersAny(reg)) return;
  const clips = ctx.doc.querySelectorAll('[data-start]').filter((el) => el !== ctx.root);
  const lengthFrom = clips.some(
    (el) =>
      el.tagName === 'VIDEO' ||
      el.tagName === 'AUDIO' ||
      el.tagName === 'IMG' ||
      el.hasAttribute('data-composition-id') ||
      el.hasAttribute('data-duration') ||
      el.hasAttribute('data-end'),
  );
  if (lengthFrom) return;
  ctx.report({
    severity: hasScripts ? 'warning' : 'error',
    rule: 'duration-unknown',
    ...(hasScripts ? { heuristic: true as const } : {}),
    message:
      'the root has no data-duration, and nothing to infer the length from was found (no registered timeline, no medium, nested composition or clip with an end): ' +
      `the render fails with exit 2${hasScripts ? ' unless a script adds one' : ''}; add data-duration to the root`,
    at: ctx.root,
  });
}
