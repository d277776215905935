import { Command, Option } from 'clipanion';
import { ExitCode, badInput } from '../errors';
import { withSurfaceOptions } from '../options/cli-options';
import { renderStill } from '../render/still';
import type { ExitCodes } from './base-command';
import { CompositionCommand } from './composition-command';
import { RENDER_EXIT_CODES } from './render-command';
import { exitOnTermination } from './termination';

export class StillCommand extends withSurfaceOptions(CompositionCommand, ['still'], {
  output: { required: true, description: 'The image to write: a .png or .jpg (.jpeg) file' },
}) {
  static paths = [['still']];

  static usage = Command.Usage({
    description: 'Render one frame of a composition to a PNG or JPEG image',
    details: `
      Draws frame \`--frame\` (from 0; default 0) or the frame showing \`--time\` seconds
      (floor(time x fps)) of \`<projectDir>/index.html\` (or the page \`--composition\` names),
      exactly as \`vidkit render\` draws that frame, with the same variables, size, seed and epoch
      options. The image is the browser's own PNG or JPEG: a .png keeps the page's transparency
      where it draws no background (as png-sequence frames do); a .jpg or .jpeg is opaque, at
      JPEG quality 90. The file appears only when complete.
    `,
    examples: [
      ['Frame 30 as a PNG', '$0 still examples/ui-3d-reveal --frame 30 -o out/reveal.png'],
      ['The frame at 1.5 s as a JPEG, with variables', `$0 still my-video --time 1.5 --variables '{"title":"Hello"}' -o poster.jpg`],
    ],
  });

  static exitCodes: ExitCodes = {
    ...RENDER_EXIT_CODES,
    [ExitCode.BadInput]: 'bad input: project, composition, variables, options, a frame past the end, an --output that is not .png, .jpg or .jpeg',
    [ExitCode.MissingDependency]: 'missing dependency: browser, native addon',
  };

  frame = Option.String('--frame', { description: 'The frame to draw, from 0 (default 0)' });
  time = Option.String('--time', { description: 'The time to draw, in seconds: the frame showing it, instead of --frame' });
  json = Option.Boolean('--json', false, { description: 'Print the result as JSON on stdout' });

  protected async run(): Promise<number> {
    const frame = this.frame === undefined ? undefined : Number(this.frame);
    if (frame !== undefined && !(Number.isInteger(frame) && frame >= 0)) throw badInput(`--frame must be a whole number from 0, got "${this.frame}"`);
    const timeSeconds = this.time === undefined ? undefined : Number(this.time);
    if (timeSeconds !== undefined && !(Number.isFinite(timeSeconds) && timeSeconds >= 0)) throw badInput(`--time must be a number of seconds from 0, got "${this.time}"`);
    const page = this.pageSettings();
    const stopHandling = exitOnTermination(this.context.stderr);
    try {
      const result = await renderStill({ ...page, output: this.output, frame, timeSeconds });
      if (this.json) this.context.stdout.write(`${JSON.stringify(result)}\n`);
      else this.context.stdout.write(`${result.output}\n`);
      return ExitCode.Ok;
    } finally {
      stopHandling();
    }
  }
}
