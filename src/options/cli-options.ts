// The clipanion options of the commands, made from the render option table: a command declares
// `fps = cliOption('fps')` and gets the flag, default and description the table holds.
import { Option } from 'clipanion';
import { RENDER_OPTIONS, RenderOptionName, RenderOptionSpec, renderOptionEntries } from './registry';

type Registry = typeof RENDER_OPTIONS;

/** What the command's property holds: a switch is a boolean, text with a default always a string. */
export type CliValue<K extends RenderOptionName> = Registry[K] extends { kind: 'boolean' }
  ? boolean
  : Registry[K] extends { cliDefault: string }
    ? string
    : string | undefined;

/** Where one command words an option for its own context, or keeps it out of `--help`. */
export interface CliOverrides {
  description?: string;
  hidden?: boolean;
  /** The value this command fills in when the flag is absent, where the table leaves it to the caller. */
  cliDefault?: string;
}

function descriptor(spec: RenderOptionSpec): string {
  return spec.short === undefined ? spec.flag : `${spec.flag},${spec.short}`;
}

/** The clipanion option of `name`, as the table declares it. */
export function cliOption<K extends RenderOptionName>(name: K, overrides: CliOverrides & { cliDefault: string }): string;
export function cliOption<K extends RenderOptionName>(name: K, overrides?: CliOverrides): CliValue<K>;
export function cliOption<K extends RenderOptionName>(name: K, overrides: CliOverrides = {}): CliValue<K> {
  const spec: RenderOptionSpec = RENDER_OPTIONS[name];
  const opts = { description: overrides.description ?? spec.description, hidden: overrides.hidden };
  if (spec.kind === 'boolean') return Option.Boolean(descriptor(spec), spec.cliDefault === true, opts) as CliValue<K>;
  const cliDefault = overrides.cliDefault ?? spec.cliDefault;
  if (typeof cliDefault === 'string') return Option.String(descriptor(spec), cliDefault, opts) as CliValue<K>;
  return Option.String(descriptor(spec), opts) as CliValue<K>;
}

/** A text option the command cannot run without (`vidkit still --output`). */
export function requiredCliOption(name: RenderOptionName, overrides: CliOverrides = {}): string {
  const spec: RenderOptionSpec = RENDER_OPTIONS[name];
  return Option.String(descriptor(spec), { required: true, description: overrides.description ?? spec.description, hidden: overrides.hidden });
}

/**
 * The argv that hands a command's options to `vidkit render` inside the render image: every
 * option the table marks `docker` that differs from its command-line default, as the user gave it.
 * Values are joined with `=`, so one that begins with a dash (a seed, a negative epoch) stays a value.
 */
export function dockerArgv(values: Partial<Record<RenderOptionName, unknown>>): string[] {
  const argv: string[] = [];
  for (const [name, spec] of renderOptionEntries()) {
    if (!spec.docker) continue;
    const value = values[name];
    if (spec.kind === 'boolean') {
      if (value === true && spec.cliDefault !== true) argv.push(spec.flag);
      if (value === false && spec.cliDefault === true) argv.push(`--no-${spec.flag.slice(2)}`);
    } else if (typeof value === 'string') {
      argv.push(`${spec.flag}=${value}`);
    }
  }
  return argv;
}
