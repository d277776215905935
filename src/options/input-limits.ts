// The bounds on what a caller hands a render: one variable, all of a render's variables, the
// nesting of any JSON, a batch file. Every path that takes input (flags, files, stdin, batch lines,
// render(), the cloud SDK, the web templates' server, the studio) checks it here before a browser
// starts, so a value too large for a page to lay out in time fails in milliseconds, named.
import * as fs from 'node:fs';
import { badInput } from '../errors';
import { DEFAULT_MAX_VARIABLES_BYTES, DEFAULT_MAX_VARIABLE_BYTES, MAX_JSON_DEPTH } from '../values/constants';
import { LIMIT_RULE, isValidLimit } from './checks';
import { flagOf } from './registry';

const MiB = 1024 * 1024;

export interface InputLimits {
  /** UTF-8 bytes one variable's value may have, as JSON. */
  variableBytes: number;
  /** UTF-8 bytes all of a render's variables may have together, as a JSON object. */
  variablesBytes: number;
}

export const DEFAULT_INPUT_LIMITS: InputLimits = { variableBytes: DEFAULT_MAX_VARIABLE_BYTES, variablesBytes: DEFAULT_MAX_VARIABLES_BYTES };

/** The environment variables a long-running server (the web templates', the studio) reads its limits from. */
const LIMIT_ENV = { variableBytes: 'VIDKIT_MAX_VARIABLE_BYTES', variablesBytes: 'VIDKIT_MAX_VARIABLES_BYTES' } as const;
/** Where each limit is raised, as a message names it. */
const RAISE = {
  variableBytes: `${flagOf('maxVariableBytes')} (render() and the SDK: maxVariableBytes; servers: ${LIMIT_ENV.variableBytes})`,
  variablesBytes: `${flagOf('maxVariablesBytes')} (render() and the SDK: maxVariablesBytes; servers: ${LIMIT_ENV.variablesBytes})`,
} as const;


/** `n` bytes as a reader sees them: `8388608 bytes (8 MiB)`. */
export function bytesText(n: number): string {
  if (n >= MiB && n % MiB === 0) return `${n} bytes (${n / MiB} MiB)`;
  if (n >= 1024 && n % 1024 === 0) return `${n} bytes (${n / 1024} KiB)`;
  return `${n} bytes`;
}

/** The limits with a caller's overrides (flags, render() options, the SDK's config), each checked. */
export function inputLimits(given: { maxVariableBytes?: number; maxVariablesBytes?: number } = {}, names = { maxVariableBytes: 'maxVariableBytes', maxVariablesBytes: 'maxVariablesBytes' }): InputLimits {
  for (const key of ['maxVariableBytes', 'maxVariablesBytes'] as const) {
    const value = given[key];
    if (value !== undefined && !isValidLimit(value)) throw badInput(`${names[key]} must be ${LIMIT_RULE}, got ${JSON.stringify(value)}`);
  }
  return {
    variableBytes: given.maxVariableBytes ?? DEFAULT_INPUT_LIMITS.variableBytes,
    variablesBytes: given.maxVariablesBytes ?? DEFAULT_INPUT_LIMITS.variablesBytes,
  };
}

/** A whole number of bytes from a flag's text, or undefined when the flag is absent. */
export function limitFlag(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!isValidLimit(n)) throw badInput(`${flag} must be ${LIMIT_RULE}, got "${text}"`);
  return n;
}

/** The limits a server takes from its environment (VIDKIT_MAX_VARIABLE_BYTES, VIDKIT_MAX_VARIABLES_BYTES); unset means the defaults. */
export function inputLimitsFromEnv(env: Record<string, string | undefined>): InputLimits {
  const read = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : limitFlag(name, env[name]));
  return inputLimits({ maxVariableBytes: read(LIMIT_ENV.variableBytes), maxVariablesBytes: read(LIMIT_ENV.variablesBytes) });
}

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, scanning no further than the
 * first level past it: JSON.parse takes any depth, but what walks the value later recursively
 * (JSON.stringify, the page's copy of its variables) overflows the stack on a deep one.
 */
export function depthOver(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Whether a value nests arrays and objects deeper than `limit`; iterative, so any depth is safe to ask about. */
function valueDepthOver(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

const depthMessage = (what: string) => `${what} nests arrays and objects deeper than the limit of ${MAX_JSON_DEPTH} levels`;

/** Refuses JSON text nested deeper than {@link MAX_JSON_DEPTH}, before it is parsed. */
export function checkJsonDepth(text: string, what: string): void {
  if (depthOver(text, MAX_JSON_DEPTH)) throw badInput(depthMessage(what));
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');

/**
 * Refuses variables over the limits, naming the variable, its size and the limit: each value as
 * JSON, then the whole object. `what` names where they came from (`--variables-file vars.json`,
 * `line 3`, `config.variables`). Returns the object's size as JSON.
 */
export function checkVariables(values: Record<string, unknown>, what: string, limits: InputLimits): number {
  if (valueDepthOver(values, MAX_JSON_DEPTH)) throw badInput(depthMessage(what));
  let total = 2;
  let largest = { id: '', bytes: 0 };
  for (const [id, value] of Object.entries(values)) {
    const bytes = jsonBytes(value);
    if (bytes > limits.variableBytes) {
      throw badInput(`${what}: variable "${id}" is ${bytes} bytes, over the limit of ${bytesText(limits.variableBytes)} for one variable; pass media as URLs, or raise it with ${RAISE.variableBytes}`);
    }
    if (bytes > largest.bytes) largest = { id, bytes };
    total += (total > 2 ? 1 : 0) + jsonBytes(id) + 1 + bytes;
  }
  if (total > limits.variablesBytes) {
    throw badInput(`${what}: the variables are ${total} bytes together (the largest, "${largest.id}", ${largest.bytes}), over the limit of ${bytesText(limits.variablesBytes)} for all of a render's variables; raise it with ${RAISE.variablesBytes}`);
  }
  return total;
}

/**
 * A variables file's text, or stdin's for `-`: refused without reading past the limit of all of a
 * render's variables, so a huge file costs no more memory than the limit. `flag` names the option.
 */
export function readVariablesFile(file: string, limits: InputLimits, flag: string): string {
  const what = file === '-' ? `${flag} - (stdin)` : `${flag} ${file}`;
  const fd = file === '-' ? 0 : fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(limits.variablesBytes + 1, 1024 * 1024));
    const parts: Buffer[] = [];
    let size = 0;
    for (;;) {
      let n: number;
      try {
        n = fs.readSync(fd, buffer, 0, buffer.length, null);
      } catch (err) {
        // A non-blocking stdin with nothing yet: wait for the writer.
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
          continue;
        }
        throw err;
      }
      if (n === 0) break;
      size += n;
      if (size > limits.variablesBytes) {
        throw badInput(`${what} is over ${bytesText(limits.variablesBytes)}, the limit for all of a render's variables; raise it with ${RAISE.variablesBytes}`);
      }
      parts.push(Buffer.from(buffer.subarray(0, n)));
    }
    return Buffer.concat(parts).toString('utf8');
  } finally {
    if (fd !== 0) fs.closeSync(fd);
  }
}

/**
 * Variables given as JSON text (a flag, a file, stdin, a batch line, a request): refused over the
 * limit of all variables as written, or nested too deep, before they are parsed; the values are
 * checked by {@link checkVariables} once parsed. Malformed text is left to the caller's parse message.
 */
export function checkVariablesText(text: string, what: string, limits: InputLimits): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.variablesBytes) {
    throw badInput(`${what} is ${bytes} bytes, over the limit of ${bytesText(limits.variablesBytes)} for all of a render's variables; raise it with ${RAISE.variablesBytes}`);
  }
  checkJsonDepth(text, what);
}

/**
 * A JSON object of variables that a parser already found well formed (a batch line's), checked
 * as text and as values by the limits, then parsed.
 */
export function parseCheckedVariables(text: string, what: string, limits: InputLimits): Record<string, unknown> {
  checkVariablesText(text, what, limits);
  const values = JSON.parse(text) as Record<string, unknown>;
  checkVariables(values, what, limits);
  return values;
}

/** Refuses a batch file larger than `maxBytes` before any of it is read. */
export function checkBatchFileSize(file: string, maxBytes: number): void {
  const size = fs.statSync(file, { throwIfNoEntry: false })?.size;
  if (size !== undefined && size > maxBytes) {
    throw badInput(`batch file ${file} is ${size} bytes, over the limit of ${bytesText(maxBytes)}; split it, or raise the limit with ${flagOf('maxBatchBytes')}`);
  }
}
