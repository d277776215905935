import { Command, CommandClass, Option } from 'clipanion';
import { ExitCode, badInput } from '../errors';
import { VidkitCommand } from './base-command';
import { SHELLS, Shell, completionScript } from './completion-scripts';
import type { CommandInfo } from './vidkit-cli';

/** `vidkit completion <shell>`, completing the commands `commands` lists when the script is printed. */
export function completionCommand(commands: () => CommandInfo[]): CommandClass {
  return class CompletionCommand extends VidkitCommand {
    static paths = [['completion']];

    static usage = Command.Usage({
      description: 'Print the shell completion script for bash, zsh or fish',
      details: `
        The script completes commands, groups and options (a value option's value and a command's
        arguments complete as file names), made from the commands of this vidkit.
      `,
      examples: [
        ['bash, for this shell', 'source <($0 completion bash)'],
        ['bash, for every new shell', '$0 completion bash > ~/.local/share/bash-completion/completions/vidkit'],
        ['zsh (a directory of $fpath)', '$0 completion zsh > ~/.zfunc/_vidkit'],
        ['fish', '$0 completion fish > ~/.config/fish/completions/vidkit.fish'],
      ],
    });

    static exitCodes = { [ExitCode.Ok]: 'success', [ExitCode.BadInput]: `bad input: a shell other than ${SHELLS.join(', ')}` };

    shell = Option.String({ required: true, name: 'shell' });

    protected async run(): Promise<void> {
      if (!(SHELLS as readonly string[]).includes(this.shell)) throw badInput(`no completion for "${this.shell}": choose ${SHELLS.join(', ')}`);
      this.context.stdout.write(completionScript(this.shell as Shell, this.cli.binaryName, commands()));
    }
  };
}
