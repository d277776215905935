import * as path from 'node:path';
import * as readline from 'node:readline';
import type { Readable } from 'node:stream';
import type { Overrides } from '../composition/variables';
import { badInput, errorMessage } from '../errors';
import { DEFAULT_INPUT_LIMITS, InputLimits, checkJsonDepth, checkVariables, inputLimitsFromEnv } from '../options/input-limits';
import { RenderTimeoutError } from './render-errors';
import type { WarmTemplateRenderer } from './warm-render';

type RequestId = string | number;

/** One line of `vidkit render-server`'s input (docs/guide/templates.md). */
export interface RenderServerRequest {
  /** Echoed in the answer, so a caller can pair them. */
  id: RequestId;
  projectDir: string;
  /** Rendered under --strict-variables rules. */
  variables: Overrides;
  /** The MP4 to write: whole once answered `ok`, absent otherwise. */
  output: string;
  timeoutSeconds: number;
}

/** One line of its output. */
export type RenderServerAnswer =
  | { id: RequestId; ok: true }
  | { id: RequestId | null; ok: false; error: string; kind: 'timeout' | 'bad-input' | 'failed' };

const FIELDS = ['id', 'projectDir', 'variables', 'output', 'timeoutSeconds'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is RequestId => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/**
 * Reads one input line: throws a bad-input VidkitError naming the line and the field to fix. Its
 * variables are bounded by `limits` (VIDKIT_MAX_VARIABLE_BYTES, VIDKIT_MAX_VARIABLES_BYTES).
 */
export function parseRenderServerRequest(line: string, lineNumber: number, limits: InputLimits = DEFAULT_INPUT_LIMITS): RenderServerRequest {
  const where = `stdin line ${lineNumber}`;
  checkJsonDepth(line, where);
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (err) {
    throw badInput(`${where} is not JSON (${errorMessage(err)}): send one {"id", "projectDir", "variables", "output", "timeoutSeconds"} object per line`);
  }
  if (!isObject(parsed)) throw badInput(`${where} must be a JSON object {"id", "projectDir", "variables", "output", "timeoutSeconds"}`);
  const missing = FIELDS.filter((f) => !(f in parsed));
  const unknown = Object.keys(parsed).filter((f) => !FIELDS.includes(f));
  if (missing.length > 0) throw badInput(`${where} lacks ${missing.map((f) => JSON.stringify(f)).join(', ')}`);
  if (unknown.length > 0) throw badInput(`${where} has unknown field ${unknown.map((f) => JSON.stringify(f)).join(', ')}`);
  const { id, projectDir, variables, output, timeoutSeconds } = parsed;
  if (!isId(id)) throw badInput(`${where}: "id" must be a string or a number`);
  if (typeof projectDir !== 'string' || !path.isAbsolute(projectDir)) throw badInput(`${where}: "projectDir" must be an absolute path`);
  if (!isObject(variables)) throw badInput(`${where}: "variables" must be a JSON object of variable values`);
  checkVariables(variables, `${where}: "variables"`, limits);
  if (typeof output !== 'string' || !path.isAbsolute(output) || !output.endsWith('.mp4')) throw badInput(`${where}: "output" must be an absolute path ending in .mp4`);
  if (typeof timeoutSeconds !== 'number' || !(timeoutSeconds > 0) || !Number.isFinite(timeoutSeconds)) throw badInput(`${where}: "timeoutSeconds" must be a positive number`);
  return { id, projectDir, variables, output, timeoutSeconds };
}

/** The id of a line that was refused, when it has a readable one, so its sender still gets its answer. */
function refusedId(line: string): RequestId | null {
  try {
    const parsed: unknown = JSON.parse(line);
    return isObject(parsed) && isId(parsed.id) ? parsed.id : null;
  } catch {
    return null;
  }
}

/**
 * Answers every request line of `input`, one render at a time in arrival order, with one JSON line
 * through `write`; a line that cannot be read is answered with a bad-input error, never a crash.
 * Resolves when `input` ends and every request read is answered.
 */
export async function serveRenderRequests(input: Readable, write: (line: string) => void, renderer: WarmTemplateRenderer, env: NodeJS.ProcessEnv): Promise<void> {
  let lineNumber = 0;
  for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
    lineNumber++;
    if (line.trim() === '') continue;
    write(`${JSON.stringify(await answer(line, lineNumber, renderer, env))}\n`);
  }
}

async function answer(line: string, lineNumber: number, renderer: WarmTemplateRenderer, env: NodeJS.ProcessEnv): Promise<RenderServerAnswer> {
  let request: RenderServerRequest;
  try {
    request = parseRenderServerRequest(line, lineNumber, inputLimitsFromEnv(env));
  } catch (err) {
    return { id: refusedId(line), ok: false, error: errorMessage(err), kind: 'bad-input' };
  }
  const { id, projectDir, variables, output, timeoutSeconds } = request;
  try {
    await renderer.renderTo({ projectDir, variables, env, timeoutSeconds }, output);
    return { id, ok: true };
  } catch (err) {
    return { id, ok: false, error: errorMessage(err), kind: err instanceof RenderTimeoutError ? 'timeout' : 'failed' };
  }
}
