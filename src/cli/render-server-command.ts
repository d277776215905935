import { Command } from 'clipanion';
import { renderSize } from '../composition/render-request';
import { ExitCode, badInput, errorMessage } from '../errors';
import { serveRenderRequests } from '../template-server/render-server';
import { WarmTemplateRenderer } from '../template-server/warm-render';
import { VidkitCommand } from './base-command';
import { exitOnTermination } from './termination';

export class RenderServerCommand extends VidkitCommand {
  static paths = [['render-server']];

  static usage = Command.Usage({
    description: 'Render requests read from stdin on a browser kept warm between them',
    details: `
      For a program in another language that renders many times (the Python web template): it
      starts this once and keeps it. Each stdin line is one JSON request
      \`{"id", "projectDir", "variables", "output", "timeoutSeconds"}\` (absolute paths, the output
      an MP4); each is answered, one at a time in arrival order, with one stdout line:
      \`{"id", "ok": true}\` once the output is whole, or \`{"id", "ok": false, "error", "kind"}\`
      with kind \`timeout\` (the render ran past timeoutSeconds and its browser was stopped),
      \`bad-input\` (a line that is not such a request; id null when unreadable) or \`failed\`.
      Variables are checked as under --strict-variables. The size comes from RENDER_WIDTH,
      RENDER_HEIGHT and RENDER_FPS, as in the web templates. Logs go to stderr. The end of stdin
      closes the browsers and exits 0.
    `,
    examples: [['Render one request', `echo '{"id": 1, "projectDir": "/srv/my-video", "variables": {}, "output": "/srv/out/a.mp4", "timeoutSeconds": 600}' | $0 render-server`]],
  });

  static exitCodes = {
    [ExitCode.Ok]: 'stdin ended: every request was answered and the browsers closed',
    [ExitCode.RenderFailed]: 'an internal error (a render that fails is answered on stdout and the server goes on)',
    [ExitCode.BadInput]: 'bad input: a bad option, or RENDER_WIDTH, RENDER_HEIGHT or RENDER_FPS that is not a positive whole number',
    [ExitCode.Hangup]: 'SIGHUP: the render in progress stopped, its browser and files removed',
    [ExitCode.Interrupted]: 'Ctrl-C: the render in progress stopped, its browser and files removed',
    [ExitCode.Terminated]: 'SIGTERM: the render in progress stopped, its browser and files removed',
  };

  protected async run(): Promise<number> {
    // Checked once here rather than failing every request.
    try {
      renderSize(process.env);
    } catch (err) {
      throw badInput(errorMessage(err));
    }
    const renderer = new WarmTemplateRenderer();
    const stopHandling = exitOnTermination(this.context.stderr);
    try {
      await serveRenderRequests(this.context.stdin, (line) => this.context.stdout.write(line), renderer, process.env);
    } finally {
      await renderer.close();
      stopHandling();
    }
    return ExitCode.Ok;
  }
}
