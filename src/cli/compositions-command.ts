import * as fs from 'node:fs';
import { Command, Option } from 'clipanion';
import { listCompositions } from '../composition/list-compositions';
import { ExitCode, badInput } from '../errors';
import { VidkitCommand } from './base-command';

export class CompositionsCommand extends VidkitCommand {
  static paths = [['compositions']];

  static usage = Command.Usage({
    description: 'List the compositions of a project',
    details: `
      Lists every HTML file of the project with a composition root (index.html, and
      sub-composition files such as compositions/*.html): its path, id, size, length and
      variables. Render one with \`vidkit render <projectDir> --composition <file>\`.
    `,
    examples: [
      ['List them', '$0 compositions my-video'],
      ['As JSON', '$0 compositions my-video --json'],
    ],
  });

  projectDir = Option.String({ required: true, name: 'projectDir' });
  json = Option.Boolean('--json', false, { description: 'Print them as a JSON array on stdout' });

  protected async run(): Promise<number> {
    if (!fs.statSync(this.projectDir, { throwIfNoEntry: false })?.isDirectory()) throw badInput(`not a project directory: ${this.projectDir}`);
    const entries = listCompositions(this.projectDir);
    if (this.json) {
      this.context.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
      return ExitCode.Ok;
    }
    this.context.stdout.write('id\tfile\tsize\tlength\tvariables\n');
    for (const c of entries) {
      const size = c.width !== null && c.height !== null ? `${c.width}x${c.height}` : 'host size';
      const length = c.durationSeconds !== null ? `${c.durationSeconds}s` : 'inferred';
      const variables = c.variables.map((v) => `${v.id}:${v.type}`).join(' ') || '-';
      this.context.stdout.write(`${c.id}\t${c.file}\t${size}\t${length}\t${variables}\n`);
    }
    return ExitCode.Ok;
  }
}
