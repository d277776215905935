// The clipanion options of the commands, made from the render option table: a command of a
// surface extends `withSurfaceOptions(Base, surfaces)` and takes every option the table applies to
// those surfaces, with the flag, default and description the table holds; a command outside the
// surfaces borrows one option with `cliOption('fps')`.
import { Command, Option } from 'clipanion';
import { RENDER_OPTIONS, RenderOptionName, RenderOptionSpec, Surface, renderOptionEntries } from './registry';

type Registry = typeof RENDER_OPTIONS;

/** The options the table applies to one of `S` at least. */
export type SurfaceOption<S extends Surface> = {
  [K in RenderOptionName]: S extends Registry[K]['appliesTo'][number] ? K : never;
}[RenderOptionName];

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
  /** A text option the command cannot run without (`vidkit still --output`). */
  required?: boolean;
}

/** How a command of `S` words some of its options: by option name. */
export type SurfaceOverrides<S extends Surface> = { [K in SurfaceOption<S>]?: CliOverrides };

/** What the command's property holds once `overrides` gave it a default or made it required. */
type OverriddenValue<K extends RenderOptionName, O> = O extends { required: true } | { cliDefault: string } ? string : CliValue<K>;

/** The properties of a command of `S`: one per option of its surfaces, typed as the flag is read. */
export type SurfaceCliValues<S extends Surface, O = object> = {
  [K in SurfaceOption<S>]: K extends keyof O ? OverriddenValue<K, O[K]> : CliValue<K>;
};

/** The options whose `appliesTo` holds every one of `S`. */
type SharedOption<S extends Surface> = { [K in RenderOptionName]: [S] extends [Registry[K]['appliesTo'][number]] ? K : never }[RenderOptionName];

/** The options the table applies to every one of `S`: what a base class of their commands may read. */
export type SharedCliValues<S extends Surface> = { [K in SharedOption<S>]: CliValue<K> };

function descriptor(spec: RenderOptionSpec): string {
  return spec.short === undefined ? spec.flag : `${spec.flag},${spec.short}`;
}

/** The clipanion option of `name`, as the table declares it. */
export function cliOption<K extends RenderOptionName>(name: K, overrides: CliOverrides & ({ cliDefault: string } | { required: true })): string;
export function cliOption<K extends RenderOptionName>(name: K, overrides?: CliOverrides): CliValue<K>;
export function cliOption<K extends RenderOptionName>(name: K, overrides: CliOverrides = {}): CliValue<K> {
  const spec: RenderOptionSpec = RENDER_OPTIONS[name];
  const opts = { description: overrides.description ?? spec.description, hidden: overrides.hidden };
  if (spec.kind === 'boolean') return Option.Boolean(descriptor(spec), spec.cliDefault === true, opts) as CliValue<K>;
  if (overrides.required) return Option.String(descriptor(spec), { ...opts, required: true }) as CliValue<K>;
  const cliDefault = overrides.cliDefault ?? spec.cliDefault;
  if (typeof cliDefault === 'string') return Option.String(descriptor(spec), cliDefault, opts) as CliValue<K>;
  return Option.String(descriptor(spec), opts) as CliValue<K>;
}

/** The clipanion options of every option the table applies to one of `surfaces`, in the table's order. */
export function surfaceCliOptions(surfaces: readonly Surface[], overrides: Partial<Record<RenderOptionName, CliOverrides>> = {}): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const [name, spec] of renderOptionEntries()) {
    if (spec.appliesTo.some((s) => surfaces.includes(s))) options[name] = cliOption(name, overrides[name]);
  }
  return options;
}

// A mixin's constructor must take `any[]` (TypeScript's rule); clipanion calls it with none.
type AbstractCommand = abstract new (...args: any[]) => Command;

/**
 * `Base` with every option the table applies to one of `surfaces` as a property (clipanion finds
 * a command's options among its instance's own properties), typed as the flag is read; `overrides`
 * words an option for this command, hides it, or makes it required.
 */
export function withSurfaceOptions<B extends AbstractCommand, S extends Surface, const O extends SurfaceOverrides<S> = object>(Base: B, surfaces: readonly S[], overrides?: O) {
  abstract class WithSurfaceOptions extends Base {
    constructor(...args: any[]) {
      super(...args);
      Object.assign(this, surfaceCliOptions(surfaces, overrides));
    }
  }
  return WithSurfaceOptions as B & (abstract new (...args: any[]) => SurfaceCliValues<S, O>);
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
