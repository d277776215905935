import { Command, Option } from 'clipanion';
import { ExitCode } from '../errors';
import { createProject } from '../init/create-project';
import { VidkitCommand } from './base-command';

export class InitCommand extends VidkitCommand {
  static paths = [['init']];

  static usage = Command.Usage({
    description: 'Create a new composition project',
    details: `
      Creates \`<name>/\` in the current directory: a starter \`index.html\` that declares one variable
      of each type (string, color, number, boolean, enum) and animates with them, a
      \`package.json\` with \`preview\`, \`render\` and \`types\` scripts, and a README. The name is
      also the composition id; it may hold letters, digits, ".", "_" and "-". An existing
      directory is used only if it is empty. Prints the project's path.
    `,
    examples: [['Start a project and preview it', '$0 init my-video && $0 preview my-video']],
  });

  static exitCodes = {
    [ExitCode.Ok]: 'created',
    [ExitCode.RenderFailed]: 'the files could not be written',
    [ExitCode.BadInput]: 'bad input: an invalid name, or a directory that exists and is not empty',
  };

  name = Option.String({ required: true, name: 'name' });

  protected async run(): Promise<number> {
    const { dir, files } = createProject(process.cwd(), this.name);
    this.log(`created ${files.join(', ')} in ${dir}`);
    this.log(`next: vidkit preview ${this.name}   (or: cd ${this.name} && npm run preview)`);
    this.context.stdout.write(`${dir}\n`);
    return 0;
  }
}
