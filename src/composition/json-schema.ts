import type { Composition } from './composition';
import { COLOR_PATTERN, VariableDeclaration } from './variables';

/** A JSON Schema (draft 2020-12) document, as plain data. */
export type JsonSchema = Record<string, unknown>;

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The JSON Schema of a composition's variable overrides: the object `--variables`, a batch
 * entry's `variables` and the SDK's `config.variables` carry. It accepts exactly what
 * `--strict-variables` accepts: declared keys only, each of its declared type; none is required,
 * since a missing value takes its default.
 */
export function variablesJsonSchema(composition: Pick<Composition, 'id' | 'variables'>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const decl of composition.variables.declarations) properties[decl.id] = propertySchema(decl);
  return {
    $schema: JSON_SCHEMA_DIALECT,
    title: `Variables of the composition "${composition.id}"`,
    type: 'object',
    properties,
    additionalProperties: false,
  };
}

function propertySchema(decl: VariableDeclaration): JsonSchema {
  const schema: JsonSchema = {};
  if (decl.label !== undefined) schema.title = decl.label;
  switch (decl.type) {
    case 'string':
    case 'boolean':
      schema.type = decl.type;
      break;
    case 'font':
      schema.type = 'string';
      schema.description = 'A font-family name';
      break;
    case 'image':
      schema.type = 'string';
      schema.description = 'An image URL or a path in the project';
      break;
    case 'number':
      schema.type = 'number';
      break;
    case 'color':
      schema.type = 'string';
      schema.pattern = COLOR_PATTERN;
      schema.description = 'A CSS colour: hex, rgb()/hsl()/… or a named colour';
      break;
    case 'enum':
      schema.enum = decl.options!.map((o) => o.value);
      break;
  }
  if (decl.default !== undefined) schema.default = decl.default;
  return schema;
}
