import { BaseContext, Builtins, Cli, CliOptions, Command, CommandClass, Option, formatMarkdownish } from 'clipanion';
import { ExitCode } from '../errors';
import { ExitCodes, VidkitCommand } from './base-command';
import { completionCommand } from './completion-command';

/** What completion scripts and the help checks need to know of one registered command. */
export interface CommandInfo {
  /** Every path the command answers to, e.g. `[['cloudfn', 'render']]`. */
  paths: string[][];
  description?: string;
  options: Array<{ names: string[]; takesValue: boolean; hidden: boolean; description?: string }>;
}

/**
 * clipanion's CLI with what vidkit's help promises (docs/reference/command-line.md): value options show
 * a named placeholder (`--output <output>`, clipanion alone prints `#0`), every group of commands
 * (`cloudfn`, `cloudfn sites`) answers bare and with `--help` by listing its commands, `vidkit
 * help [command…]` works, every command's help ends with its exit codes, a command line that
 * cannot be read exits 2 with the error on stderr, and colours are used only on a terminal.
 * Commands registered later get all of it: groups are derived from the paths when the command
 * line is read.
 */
export class VidkitCli extends Cli {
  private readonly groupKeys = new Set<string>();

  constructor(options: Partial<CliOptions>) {
    super({ enableColors: colorsWanted(process.stdout), ...options });
    this.register(HelpCommand);
    this.register(VersionCommand);
    this.register(completionCommand(() => this.commands()));
  }

  register(commandClass: CommandClass): void {
    super.register(commandClass);
    const { builder } = this.registrations.get(commandClass)!;
    // The usage text comes from here alone (help, error messages, "did you mean"), so naming the
    // placeholders once covers every place that prints an option.
    const named = new Map(
      builder.options.filter((o) => o.arity > 0).map((o) => {
        const flags = o.names.join(',');
        const args = Array.from({ length: o.arity }, (_, i) => ` #${i}`).join('');
        return [`${flags}${args}`, `${flags}${` <${placeholder(o.names)}>`.repeat(o.arity)}`];
      }),
    );
    const rename = (text: string) => [...named].reduce((t, [from, to]) => t.split(from).join(to), text);
    const usage = builder.usage.bind(builder);
    builder.usage = (opts) => {
      const u = usage(opts);
      return { usage: rename(u.usage), options: u.options.map((o) => ({ ...o, definition: rename(o.definition) })) };
    };
  }

  process(input: string[], context?: Partial<BaseContext> | void): Command {
    this.registerGroups();
    return super.process(input, context ?? {});
  }

  async run(input: Command | string[], context: Partial<BaseContext> | void = {}): Promise<number> {
    context ??= {};
    if (!Array.isArray(input)) return super.run(input, context);
    let command: Command;
    try {
      command = this.process(this.helpFirst(input), context);
    } catch (err) {
      // An unknown option, a missing argument, an unknown command: bad input, exit 2 like every
      // other (docs/reference/command-line.md); clipanion's own run would exit 1, which `vidkit lint` uses for
      // "errors found".
      const stderr = context.stderr ?? Cli.defaultContext.stderr;
      stderr.write(this.error(err as Error, { colored: colorsWanted(stderr) }));
      return ExitCode.BadInput;
    }
    return super.run(command, context);
  }

  usage(command: CommandClass | Command | null = null, opts: { colored?: boolean; detailed?: boolean; prefix?: string } = {}): string {
    const commandClass = command instanceof Command ? (command.constructor as CommandClass) : command;
    if (commandClass && isGroup(commandClass)) return this.groupUsage(commandClass.group, opts.colored);
    const text = super.usage(command, opts);
    if (!commandClass || !opts.detailed) return text;
    const codes = (commandClass as { exitCodes?: ExitCodes }).exitCodes ?? VidkitCommand.exitCodes;
    const format = this.format(opts.colored);
    const lines = Object.entries(codes).map(([code, meaning]) => `  ${format.bold(code.padStart(3))}  ${meaning}\n`);
    return `${text}\n${format.header('Exit codes')}\n\n${lines.join('')}`;
  }

  /**
   * `vidkit render my-video --help` as `vidkit render --help`: clipanion reads `--help` (`-h`) only
   * right after the command's path, and would call it an unknown option anywhere else.
   */
  private helpFirst(args: string[]): string[] {
    const end = args.includes('--') ? args.indexOf('--') : args.length;
    const flags = args.slice(0, end);
    if (!flags.includes('--help') && !flags.includes('-h')) return args;
    const paths = [...this.commands().flatMap((c) => c.paths), ...this.groups()].filter((p) => p.length > 0 && !p[0].startsWith('-') && p.every((w, i) => args[i] === w));
    if (paths.length === 0) return args;
    const longest = paths.reduce((a, b) => (b.length > a.length ? b : a));
    return [...longest, '--help'];
  }

  /** The registered commands, groups and built-ins left out. */
  commands(): CommandInfo[] {
    return [...this.registrations].flatMap(([commandClass, { builder }]) =>
      isGroup(commandClass)
        ? []
        : [
            {
              paths: builder.paths,
              description: commandClass.usage?.description,
              options: builder.options.map((o) => ({ names: o.names, takesValue: o.arity > 0, hidden: o.hidden, description: o.description })),
            },
          ],
    );
  }

  /** Every proper prefix of a command path that is no command itself: `cloudfn`, `cloudfn sites`. */
  groups(): string[][] {
    const commands = this.commands().flatMap((c) => c.paths);
    const taken = new Set(commands.map((p) => p.join(' ')));
    const groups = new Map<string, string[]>();
    for (const path of commands) {
      for (let n = 1; n < path.length; n++) {
        const prefix = path.slice(0, n);
        if (!taken.has(prefix.join(' '))) groups.set(prefix.join(' '), prefix);
      }
    }
    return [...groups.values()];
  }

  private registerGroups(): void {
    for (const group of this.groups()) {
      const key = group.join(' ');
      if (this.groupKeys.has(key)) continue;
      this.groupKeys.add(key);
      this.register(
        class extends GroupCommand {
          static paths = [group];
          static group = group;
        },
      );
    }
  }

  /** `vidkit cloudfn --help`: each command under the group, with its usage and description. */
  private groupUsage(group: string[], colored?: boolean): string {
    const format = this.format(colored);
    const name = [this.binaryName, ...group].join(' ');
    const under = (p: string[]) => p.length > group.length && group.every((w, i) => p[i] === w);
    const entries = [...this.registrations]
      .filter(([commandClass, { builder }]) => !isGroup(commandClass) && builder.paths.some(under))
      .map(([commandClass, { builder }]) => ({ usage: builder.usage().usage, description: commandClass.usage?.description ?? '' }))
      .sort((a, b) => a.usage.localeCompare(b.usage));
    let text = `${format.header(name)}\n\n  ${format.bold('$ ')}${name} <command>\n`;
    for (const { usage, description } of entries) {
      text += `\n  ${format.bold(usage)}\n    ${formatMarkdownish(description, { format, paragraphs: false })}`;
    }
    text += `\n${formatMarkdownish(`Run \`${name} <command> --help\` for a command's options, details and exit codes.`, { format, paragraphs: true })}`;
    return text;
  }
}

/** The value placeholder of an option: its longest name without dashes (`--output,-o` → `output`). */
function placeholder(names: string[]): string {
  return names.reduce((a, b) => (b.length > a.length ? b : a)).replace(/^-+/, '');
}

/** Colours on a terminal only, and never with NO_COLOR set (https://no-color.org). */
function colorsWanted(stream: NodeJS.WritableStream): boolean {
  return 'isTTY' in stream && stream.isTTY === true && !process.env.NO_COLOR;
}

/** Lists the commands under its path when run bare or with `--help`. */
abstract class GroupCommand extends Command {
  static group: string[];

  async execute(): Promise<number> {
    this.context.stdout.write(this.cli.usage(this));
    return ExitCode.Ok;
  }
}

function isGroup(commandClass: CommandClass): commandClass is CommandClass & { group: string[] } {
  return commandClass.prototype instanceof GroupCommand;
}

/** `vidkit help`, `-h`, `--help`: every command; `vidkit help <command…>`: that command's or group's help. */
class HelpCommand extends Command {
  static paths = [['help'], ['-h'], ['--help']];

  static usage = Command.Usage({
    description: 'Print the list of commands, or the help of one command or group',
    examples: [
      ['Every command', '$0 help'],
      ['One command', '$0 help cloudfn render'],
    ],
  });

  static exitCodes: ExitCodes = { [ExitCode.Ok]: 'success', [ExitCode.BadInput]: 'bad input: no such command' };

  words = Option.Rest({ name: 'command' });

  async execute(): Promise<number> {
    if (this.words.length === 0) {
      this.context.stdout.write(this.cli.usage());
      return ExitCode.Ok;
    }
    return this.cli.run([...this.words, '--help']);
  }
}

/** `vidkit --version`, `-v`. */
class VersionCommand extends Builtins.VersionCommand {
  static usage = Command.Usage({ description: "Print vidkit's version" });
  static exitCodes: ExitCodes = { [ExitCode.Ok]: 'success' };
}
