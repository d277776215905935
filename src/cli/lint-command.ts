import type { Writable } from 'node:stream';
import { Command, Option } from 'clipanion';
import { LintFinding, lintProject } from '../composition/lint';
import { lintGlyphs } from '../render/lint-glyphs';
import { ExitCode, badInput } from '../errors';
import { VidkitCommand } from './base-command';

/** `vidkit lint`'s exit status when it reports errors (docs/guide/lint.md). */
const FOUND_ERRORS = 1;

export class LintCommand extends VidkitCommand {
  static paths = [['lint']];

  static usage = Command.Usage({
    description: 'Report what in a composition will not render as its author expects',
    details: `
      Reads \`<projectDir>/index.html\` without rendering it and reports, one line each
      (\`file:line: severity [rule] message\`): a root a render would refuse, variable declarations
      that are dropped or malformed, relative starts naming unknown clips or clips without an end,
      reference cycles, windows that end before they start, media attributes out of range, files
      the page names that are not in the project, and (read from the scripts as text, so marked
      "heuristic") timelines that are created but never registered. Then, unless \`--no-glyphs\`,
      it opens the page in the browser with the default variables, steps it through every frame
      without drawing, and reports text that no font can draw (\`glyph-missing\`: the element, the
      variable the text came from and the characters), as \`vidkit render\` would warn.

      Errors are things that will render differently from the markup; warnings may be intended.
      \`vidkit render --strict\` runs the same checks first and stops on errors.
    `,
    examples: [
      ['Lint a project', '$0 lint my-video'],
      ['Findings as JSON', '$0 lint my-video --json'],
    ],
  });

  static exitCodes = {
    [ExitCode.Ok]: 'no errors (warnings allowed)',
    [FOUND_ERRORS]: 'errors found',
    [ExitCode.BadInput]: 'bad input: no such directory, no index.html, a bad option',
  };

  projectDir = Option.String({ required: true, name: 'projectDir' });
  json = Option.Boolean('--json', false, { description: 'Print the report as one JSON object on stdout' });
  glyphs = Option.Boolean('--glyphs', true, { description: 'Check in the browser that every character of the default text has a font (--no-glyphs skips it)' });

  protected async run(): Promise<number> {
    const report = lintProject(this.projectDir);
    if (this.glyphs) {
      const found = await lintGlyphs(this.projectDir);
      report.findings.push(...found);
      report.errors += found.filter((f) => f.severity === 'error').length;
      report.warnings += found.filter((f) => f.severity === 'warning').length;
    }
    if (this.json) {
      this.context.stdout.write(`${JSON.stringify(report)}\n`);
    } else {
      for (const f of report.findings) this.context.stdout.write(`${formatFinding(f)}\n`);
      this.context.stdout.write(`${summary(report.errors, report.warnings)}\n`);
    }
    return report.errors > 0 ? FOUND_ERRORS : ExitCode.Ok;
  }
}

/** `index.html:12: error [clip-reference-unknown] message`, heuristic findings marked. */
export function formatFinding(f: LintFinding): string {
  const where = f.line === undefined ? f.file : `${f.file}:${f.line}`;
  return `${where}: ${f.severity} [${f.rule}${f.heuristic ? ', heuristic' : ''}] ${f.message}`;
}

function summary(errors: number, warnings: number): string {
  if (errors === 0 && warnings === 0) return 'no findings';
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${plural(errors, 'error')}, ${plural(warnings, 'warning')}`;
}

/**
 * `vidkit render --strict`: the lint's errors, each on stderr, then bad input (exit 2) if there
 * are any. Warnings are not printed: `vidkit lint` shows them.
 */
export function failOnLintErrors(projectDir: string, stderr: Writable): void {
  const report = lintProject(projectDir);
  if (report.errors === 0) return;
  for (const f of report.findings) if (f.severity === 'error') stderr.write(`vidkit: lint: ${formatFinding(f)}\n`);
  throw badInput(`--strict: ${report.errors} lint error${report.errors === 1 ? '' : 's'} in ${projectDir} (listed above; vidkit lint ${projectDir} shows warnings too)`);
}
