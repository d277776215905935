// The fields of a cloud render's `config` that come from the option table: every option the table
// applies to the SDK's config, as its check leaves it. The render function's event schema
// (sdk/render-input.ts) is made of them, and the function reads them back through resolve.ts, so an
// option marked for the SDK reaches a cloud render with no other edit.
import { OptionalKind, TSchema, Type } from '@sinclair/typebox';
import { OUTPUT_FORMATS, QUALITIES } from '../values/constants';
import { ApiOptions, ApiValueTypes, RenderOptionName, RenderOptionSpec, renderOptionEntries } from './registry';
import type { CheckedValue, CheckedValues } from './resolve';

/** The options the SDK's config takes: those the table applies to `sdk` with an API type. */
export type ConfigOption = keyof ApiOptions<'sdk'>;

/** The JSON Schema of a value of each API type once its check has read it (an epoch becomes milliseconds). */
const CHECKED_SCHEMAS: { [A in keyof ApiValueTypes]: (description: string) => TSchema } = {
  string: (description) => Type.String({ description }),
  number: (description) => Type.Number({ description }),
  boolean: (description) => Type.Boolean({ description }),
  workers: (description) => Type.Union([Type.Integer({ minimum: 1 }), Type.Literal('auto')], { description }),
  epoch: () => Type.Number({ description: 'What Date reads at time 0, in milliseconds since 1970-01-01 UTC' }),
  format: (description) => Type.Union(OUTPUT_FORMATS.map((f) => Type.Literal(f)), { description }),
  quality: (description) => Type.Union(QUALITIES.map((q) => Type.Literal(q)), { description }),
  capture: (description) => Type.Union([Type.Literal('auto'), Type.Literal('beginframe'), Type.Literal('screenshot')], { description }),
  variables: (description) => Type.Record(Type.String(), Type.Unknown(), { description }),
};

/** An optional field's schema, typed as the value the option's check leaves. */
export interface ConfigField<T> extends TSchema {
  static: T;
  [OptionalKind]: 'Optional';
}

export type ConfigOptionFields = { [K in ConfigOption]: ConfigField<CheckedValue<K>> };

function isConfigOption(spec: RenderOptionSpec): spec is RenderOptionSpec & { api: keyof ApiValueTypes } {
  return spec.api !== undefined && spec.appliesTo.includes('sdk');
}

/** One optional field per option of the SDK's config, in the table's order, described as the table describes it. */
export function configOptionFields(): ConfigOptionFields {
  const fields: Record<string, TSchema> = {};
  for (const [name, spec] of renderOptionEntries()) {
    if (isConfigOption(spec)) fields[name] = Type.Optional(CHECKED_SCHEMAS[spec.api](spec.description));
  }
  return fields as ConfigOptionFields;
}

/** The values of those options that were given, read and checked, as the config carries them. */
export function configOptionValues(values: CheckedValues): Pick<CheckedValues, ConfigOption> {
  const picked: Partial<Record<RenderOptionName, unknown>> = {};
  for (const [name, spec] of renderOptionEntries()) {
    if (isConfigOption(spec) && values[name] !== undefined) picked[name] = values[name];
  }
  return picked as Pick<CheckedValues, ConfigOption>;
}
