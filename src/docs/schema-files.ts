// The JSON Schemas published under docs/reference/schemas/, each written from the one declaration
// its boundary validates with: the render function's event and the execution input (TypeBox,
// checked by the function on every invocation) and the batch line (the native parser's own).
// `npm run docs:schemas` writes them and a test compares the committed files.
import type { TSchema } from '@sinclair/typebox';
import { RenderEventSchema } from '../sdk/render-event';
import { loadNative } from '../native';
import { ExecutionInputSchema } from '../sdk/render-input';

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

export interface SchemaFile {
  /** Relative to the repository root. */
  path: string;
  schema: () => Record<string, unknown>;
}

/** A TypeBox schema as plain JSON Schema: its symbol keys dropped, a dialect and title added. */
function published(title: string, description: string, schema: TSchema): Record<string, unknown> {
  return { $schema: DIALECT, title, description, ...JSON.parse(JSON.stringify(schema)) };
}

export const SCHEMA_FILES: SchemaFile[] = [
  {
    path: 'docs/reference/schemas/batch-line.schema.json',
    schema: () => JSON.parse(loadNative().batchLineSchema()),
  },
  {
    path: 'docs/reference/schemas/execution-input.schema.json',
    schema: () =>
      published('vidkit execution input', "What the SDK starts a render's state machine execution with; `version` must be the render function's payload version.", ExecutionInputSchema),
  },
  {
    path: 'docs/reference/schemas/render-event.schema.json',
    schema: () =>
      published('vidkit render function event', 'What the render function is invoked with, one object per mode; `version` must be its payload version.', RenderEventSchema),
  },
];

export const schemaText = (file: SchemaFile): string => `${JSON.stringify(file.schema(), null, 2)}\n`;
