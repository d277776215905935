import * as path from 'node:path';
import { Command, Option } from 'clipanion';
import writeFileAtomic from 'write-file-atomic';
import { loadComposition } from '../composition/composition';
import { variablesJsonSchema } from '../composition/json-schema';
import { variablesTypeScript } from '../composition/typescript-types';
import { ExitCode, VidkitError, errorMessage } from '../errors';
import { VidkitCommand } from './base-command';

export class TypesGenerateCommand extends VidkitCommand {
  static paths = [['types', 'generate']];

  static usage = Command.Usage({
    description: "Generate TypeScript definitions (or a JSON Schema) of a composition's variables",
    details: `
      Reads the declarations of \`<projectDir>/index.html\` and prints an interface with one optional
      member per variable: an enum is the union of its options; the label and the default are in
      each member's doc comment. With \`--json-schema\` it prints a JSON Schema (draft 2020-12) that
      accepts exactly what \`--strict-variables\` accepts. With \`--out\` the file is written (under a
      temporary name, then renamed) and its path printed.
    `,
    examples: [
      ['Write the definitions beside your code', '$0 types generate my-video --out src/my-video-variables.ts'],
      ['Write the JSON Schema', '$0 types generate my-video --json-schema --out my-video.schema.json'],
    ],
  });

  static exitCodes = {
    ...VidkitCommand.exitCodes,
    [ExitCode.RenderFailed]: 'the --out file could not be written',
  };

  projectDir = Option.String({ required: true, name: 'projectDir' });
  out = Option.String('--out,-o', { description: 'File to write; default stdout' });
  jsonSchema = Option.Boolean('--json-schema', false, { description: 'Print a JSON Schema instead of TypeScript' });

  protected async run(): Promise<number> {
    const composition = loadComposition(this.projectDir);
    for (const id of composition.variables.droppedIds) this.warn(`variable "${id}" has an unsupported type and is left out`);
    const source = path.relative(process.cwd(), composition.entryFile) || composition.entryFile;
    const text = this.jsonSchema
      ? `${JSON.stringify(variablesJsonSchema(composition), null, 2)}\n`
      : variablesTypeScript(composition, source);
    if (this.out === undefined) {
      this.context.stdout.write(text);
      return 0;
    }
    try {
      await writeFileAtomic(this.out, text);
    } catch (err) {
      throw new VidkitError(`cannot write --out ${this.out}: ${errorMessage(err)}`);
    }
    this.context.stdout.write(`${this.out}\n`);
    return 0;
  }
}
