import { VidkitError, badInput } from '../errors';

/**
 * The variable types (docs/guide/compositions.md): string, number, color, boolean, enum, and
 * HyperFrames' `font` (a font-family name) and `image` (an image URL or path), both strings.
 * Anything else is dropped silently.
 */
export const VARIABLE_TYPES = ['string', 'number', 'color', 'boolean', 'enum', 'font', 'image'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

export type VariableValue = string | number | boolean;

export interface EnumOption {
  value: VariableValue;
  label?: string;
}

export interface VariableDeclaration {
  id: string;
  type: VariableType;
  label?: string;
  default?: unknown;
  /** Only for `enum`; `options` may be given as plain values or as `{value, label}` objects. */
  options?: EnumOption[];
}

export interface DeclarationSet {
  declarations: VariableDeclaration[];
  /** Ids of declarations dropped for an unsupported `type`; their keys count as undeclared. */
  droppedIds: string[];
}

export type Overrides = Record<string, unknown>;

/** One finding of {@link checkOverrides}: a warning normally, a failure under strict mode. */
export interface VariableIssue {
  variable: string;
  message: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The declarations of every element that carries `data-composition-variables` (`<html>` first,
 * then the others in document order), one set: a later declaration of an id replaces an earlier.
 */
export function parseDeclarationSources(raws: Array<string | undefined>, where: string): DeclarationSet {
  const byId = new Map<string, VariableDeclaration>();
  const dropped = new Set<string>();
  for (const raw of raws) {
    const set = parseDeclarations(raw, where);
    for (const decl of set.declarations) {
      byId.delete(decl.id);
      byId.set(decl.id, decl);
      dropped.delete(decl.id);
    }
    for (const id of set.droppedIds) {
      byId.delete(id);
      dropped.add(id);
    }
  }
  return { declarations: [...byId.values()], droppedIds: [...dropped] };
}

/**
 * Parses the `data-composition-variables` attribute. `where` names the file for error messages.
 * Malformed JSON or a declaration without an `id` is an error; an unsupported `type` is not.
 */
export function parseDeclarations(raw: string | undefined, where: string): DeclarationSet {
  if (raw === undefined || raw.trim() === '') return { declarations: [], droppedIds: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw badInput(`${where}: data-composition-variables is not valid JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(parsed)) {
    throw badInput(`${where}: data-composition-variables must be a JSON array of declarations`);
  }
  const declarations: VariableDeclaration[] = [];
  const droppedIds: string[] = [];
  parsed.forEach((item, index) => {
    if (!isRecord(item) || typeof item.id !== 'string' || item.id === '') {
      throw badInput(`${where}: variable declaration #${index + 1} needs a non-empty string "id"`);
    }
    if (!(VARIABLE_TYPES as readonly unknown[]).includes(item.type)) {
      droppedIds.push(item.id);
      return;
    }
    const decl: VariableDeclaration = { id: item.id, type: item.type as VariableType };
    if (typeof item.label === 'string') decl.label = item.label;
    if ('default' in item) decl.default = item.default;
    if (decl.type === 'enum') decl.options = parseEnumOptions(item.options, item.id, where);
    declarations.push(decl);
  });
  return { declarations, droppedIds };
}

function parseEnumOptions(raw: unknown, id: string, where: string): EnumOption[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw badInput(`${where}: enum variable "${id}" needs a non-empty "options" list`);
  }
  return raw.map((opt) => {
    if (isPrimitiveValue(opt)) return { value: opt };
    if (isRecord(opt) && isPrimitiveValue(opt.value)) {
      return typeof opt.label === 'string' ? { value: opt.value, label: opt.label } : { value: opt.value };
    }
    throw badInput(`${where}: enum variable "${id}" has an option that is neither a value nor {value, label}`);
  });
}

function isPrimitiveValue(v: unknown): v is VariableValue {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

/**
 * A CSS colour as users write one: hex, a functional notation, or a named colour, with surrounding
 * blanks allowed. Written without regex flags so that a JSON Schema `pattern` can carry it as is.
 */
export const COLOR_PATTERN =
  '^\\s*(?:#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})' +
  '|(?:[rR][gG][bB][aA]?|[hH][sS][lL][aA]?|[hH][wW][bB]|[lL][aA][bB]|[lL][cC][hH]|[oO][kK][lL][aA][bB]|[oO][kK][lL][cC][hH])\\([^()]*\\)' +
  '|[a-zA-Z]+)\\s*$';
const COLOR = new RegExp(COLOR_PATTERN);

export function isColor(v: unknown): boolean {
  return typeof v === 'string' && COLOR.test(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  const t = typeof v;
  const shown = JSON.stringify(v);
  return shown !== undefined && shown.length <= 40 ? `${t} ${shown}` : t;
}

/**
 * The messages of an override that does not fit, as templates with `{placeholders}`: one wording
 * for `--strict-variables` and the web templates' request contract, which carries these templates
 * to the Python template (render-request.ts, `renderRequestSchema`).
 */
export const OVERRIDE_MESSAGES = {
  undeclared: 'variable "{id}" is not declared by the composition',
  mismatch: 'variable "{id}": expected {expected}, got {got}',
} as const;

/** A message template with its `{placeholders}` filled in. */
export function fillMessage(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** What a declaration expects, as its mismatch message names it: its type, or an enum's options. */
export function expectedOf(decl: VariableDeclaration): string {
  return decl.type === 'enum' ? `one of ${decl.options!.map((o) => JSON.stringify(o.value)).join(', ')}` : decl.type;
}

/** Why `value` does not fit `decl`, or undefined when it does. */
export function typeMismatch(decl: VariableDeclaration, value: unknown): string | undefined {
  let ok: boolean;
  switch (decl.type) {
    case 'string':
    case 'font':
    case 'image':
      ok = typeof value === 'string';
      break;
    case 'number':
      ok = typeof value === 'number' && Number.isFinite(value);
      break;
    case 'boolean':
      ok = typeof value === 'boolean';
      break;
    case 'color':
      ok = isColor(value);
      break;
    case 'enum':
      ok = decl.options!.some((o) => o.value === value);
      break;
  }
  return ok ? undefined : fillMessage(OVERRIDE_MESSAGES.mismatch, { id: decl.id, expected: expectedOf(decl), got: describe(value) });
}

/** Every override that is undeclared or of the wrong type, in the order given. */
export function checkOverrides(set: DeclarationSet, overrides: Overrides): VariableIssue[] {
  const byId = new Map(set.declarations.map((d) => [d.id, d]));
  const issues: VariableIssue[] = [];
  for (const [key, value] of Object.entries(overrides)) {
    const decl = byId.get(key);
    if (!decl) {
      issues.push({ variable: key, message: fillMessage(OVERRIDE_MESSAGES.undeclared, { id: key }) });
      continue;
    }
    const mismatch = typeMismatch(decl, value);
    if (mismatch) issues.push({ variable: key, message: mismatch });
  }
  return issues;
}

/** Declared defaults merged with overrides: what `window.__vidkit.getVariables()` returns. */
export function mergeVariables(set: DeclarationSet, overrides: Overrides): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const decl of set.declarations) {
    if (decl.default !== undefined) merged[decl.id] = decl.default;
  }
  return { ...merged, ...overrides };
}

/**
 * The ids whose value, or whether it is given at all, differs between two sets of variable values
 * (compared as JSON): what can make one batch row's frames differ from another's. The local and
 * the cloud batch both decide what they share with it.
 */
export function differingIds(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const ids = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...ids].filter((id) => Object.hasOwn(a, id) !== Object.hasOwn(b, id) || JSON.stringify(a[id]) !== JSON.stringify(b[id]));
}

/**
 * Reads overrides from `--variables` or `--variables-file` (never both). Both must hold a JSON
 * object; structured data travels as a serialised string inside it. `flags` names the two in
 * messages; the caller passes them from the option table, which the player's bundle (it uses this
 * module) leaves out. `checkText` refuses text over the input limits before it is parsed.
 */
export function parseOverrides(
  source: { json?: string; file?: string },
  readFile: (path: string) => string,
  flags: { json: string; file: string },
  checkText: (text: string, what: string) => void = () => undefined,
): Overrides {
  if (source.json !== undefined && source.file !== undefined) {
    throw badInput(`use either ${flags.json} or ${flags.file}, not both`);
  }
  let text: string;
  let what: string;
  if (source.json !== undefined) {
    text = source.json;
    what = flags.json;
  } else if (source.file !== undefined) {
    what = `${flags.file} ${source.file}`;
    try {
      text = readFile(source.file);
    } catch (err) {
      if (err instanceof VidkitError) throw err;
      const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw badInput(`cannot read ${what}: ${reason}`);
    }
  } else {
    return {};
  }
  checkText(text, what);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw badInput(`${what} is not valid JSON: ${(err as Error).message}`);
  }
  if (!isRecord(parsed)) {
    throw badInput(`${what} must be a JSON object of variable values, got ${describe(parsed).split(' ')[0]}`);
  }
  return parsed;
}
