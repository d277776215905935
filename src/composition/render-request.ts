import type { Composition } from './composition';
import { JSON_SCHEMA_DIALECT, JsonSchema, variablesJsonSchema } from './json-schema';
import { OVERRIDE_MESSAGES, Overrides, checkOverrides, expectedOf, fillMessage } from './variables';
import { MAX_JSON_DEPTH } from '../values/constants';
import { depthOver } from '../options/input-limits';
import { flagOf } from '../options/registry';

/**
 * The request contract of the web templates' `POST /api/render` (templates/README.md): the body
 * is empty or `{"variables": {...}}`, at most 64 KiB and 64 levels of nesting, and every variable must be declared by the
 * composition with a matching type. Defined here once: the JavaScript templates call
 * {@link parseRenderRequest}, the Python template reads {@link renderRequestSchema}'s document.
 */
export const MAX_RENDER_REQUEST_BYTES = 64 * 1024;

/** The 400 answers' messages, as templates with `{placeholders}` ({@link fillMessage}). */
export const REQUEST_MESSAGES = {
  tooLarge: `request body is too large: the limit is ${MAX_RENDER_REQUEST_BYTES} bytes`,
  tooDeep: `request body nests arrays and objects deeper than the limit of ${MAX_JSON_DEPTH} levels`,
  notJson: 'request body is not JSON: {reason}',
  notObject: 'request body must be a JSON object: {"variables": {...}}',
  unknownField: 'unknown field {fields}; the body is {"variables": {...}}',
  variablesNotObject: '"variables" must be a JSON object of variable values',
  ...OVERRIDE_MESSAGES,
  /** Between the problems of one request, all named in one message. */
  separator: '; ',
} as const;

/** A request the caller must fix: the templates answer it with a 400 and `{"error": message}`. */
export class RenderRequestError extends Error {
  readonly status = 400;

  constructor(message: string) {
    super(message);
    this.name = 'RenderRequestError';
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Validates a request body against the composition's declarations; returns the overrides. */
export function parseRenderRequest(body: Uint8Array, composition: Composition): Overrides {
  if (body.byteLength > MAX_RENDER_REQUEST_BYTES) throw new RenderRequestError(REQUEST_MESSAGES.tooLarge);
  const text = new TextDecoder().decode(body);
  if (text.trim() === '') return {};
  if (depthOver(text, MAX_JSON_DEPTH)) throw new RenderRequestError(REQUEST_MESSAGES.tooDeep);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new RenderRequestError(fillMessage(REQUEST_MESSAGES.notJson, { reason: (err as Error).message }));
  }
  if (!isRecord(parsed)) throw new RenderRequestError(REQUEST_MESSAGES.notObject);
  const unknownFields = Object.keys(parsed).filter((k) => k !== 'variables');
  if (unknownFields.length > 0) {
    throw new RenderRequestError(fillMessage(REQUEST_MESSAGES.unknownField, { fields: unknownFields.map((k) => JSON.stringify(k)).join(', ') }));
  }
  if (parsed.variables === undefined) return {};
  if (!isRecord(parsed.variables)) throw new RenderRequestError(REQUEST_MESSAGES.variablesNotObject);
  const issues = checkOverrides(composition.variables, parsed.variables);
  if (issues.length > 0) throw new RenderRequestError(issues.map((i) => i.message).join(REQUEST_MESSAGES.separator));
  return parsed.variables;
}

/**
 * The request contract for one composition as a document a template in another language reads
 * (the Python template; `node dist/template-assets.js` writes it beside each composition): the JSON
 * Schema (draft 2020-12) of the body, whose `variables` is the composition's
 * {@link variablesJsonSchema}, plus what JSON Schema cannot say, under `x-vidkit-` keywords: the
 * size and nesting limits, the messages, and the type each variable's mismatch message names. A validator that
 * honours them answers exactly as {@link parseRenderRequest}.
 */
export function renderRequestSchema(composition: Pick<Composition, 'id' | 'variables'>): JsonSchema {
  const { $schema: _dialect, ...variables } = variablesJsonSchema(composition);
  const properties = variables.properties as Record<string, JsonSchema>;
  for (const decl of composition.variables.declarations) properties[decl.id]['x-vidkit-expected'] = expectedOf(decl);
  return {
    $schema: JSON_SCHEMA_DIALECT,
    title: `POST /api/render body for the composition "${composition.id}"`,
    type: 'object',
    properties: { variables },
    additionalProperties: false,
    'x-vidkit-max-bytes': MAX_RENDER_REQUEST_BYTES,
    'x-vidkit-max-depth': MAX_JSON_DEPTH,
    'x-vidkit-messages': REQUEST_MESSAGES,
  };
}

/** The output size and frame rate a template render asks for; unset means the composition's own. */
export interface RenderSize {
  width?: number;
  height?: number;
  fps?: number;
}

/**
 * Optional output size and frame rate of template renders, from the environment
 * (`RENDER_WIDTH`, `RENDER_HEIGHT`, `RENDER_FPS`): a smaller, quicker render than the
 * composition's own, e.g. for tests. Unset means the composition's values.
 */
export function renderSize(env: Record<string, string | undefined>): RenderSize {
  const size: RenderSize = {};
  const pairs: [string, keyof RenderSize][] = [
    ['RENDER_WIDTH', 'width'],
    ['RENDER_HEIGHT', 'height'],
    ['RENDER_FPS', 'fps'],
  ];
  for (const [name, key] of pairs) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    if (!/^[1-9][0-9]*$/.test(value)) throw new Error(`${name} must be a positive whole number, got "${value}"`);
    size[key] = Number(value);
  }
  return size;
}

/** {@link renderSize} as `vidkit render` options. */
export function renderSizeArgs(env: Record<string, string | undefined>): string[] {
  const { width, height, fps } = renderSize(env);
  return [
    ...(width === undefined ? [] : [flagOf('width'), String(width)]),
    ...(height === undefined ? [] : [flagOf('height'), String(height)]),
    ...(fps === undefined ? [] : [flagOf('fps'), String(fps)]),
  ];
}

/**
 * The `vidkit` arguments of one template render; `--strict-variables` as the request was checked.
 * The variables travel in a file: on the argument list a 64 KiB body can outgrow Linux's 128 KiB
 * cap on one argument (every byte that is not UTF-8 becomes a 3-byte U+FFFD).
 */
export function renderCliArgs(projectDir: string, output: string, variablesFile: string, env: Record<string, string | undefined>): string[] {
  return ['render', projectDir, flagOf('output'), output, flagOf('variablesFile'), variablesFile, flagOf('strictVariables'), ...renderSizeArgs(env)];
}
