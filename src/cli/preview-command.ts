import { Command, Option } from 'clipanion';
import { ExitCode, badInput } from '../errors';
import { startPreview } from '../preview/preview-server';
import { VidkitCommand } from './base-command';
import { cliOption } from '../options/cli-options';
import { renderMaxWaiting } from '../template-server/render-limits';

export const DEFAULT_PREVIEW_PORT = 3210;

export class PreviewCommand extends VidkitCommand {
  static paths = [['preview']];

  static usage = Command.Usage({
    description: 'Open a composition in the browser studio: player, timeline, variables, renders and rows',
    details: `
      Serves the project with a studio page: \`<vidkit-player>\` over a timeline of the clips by
      track (click or drag to seek, sub-compositions to enter), the project's compositions and lint
      findings, a panel generated from the declared variables, a render queue (format, quality,
      progress, cancel, the finished video in the page) and a table of rows from a JSONL batch
      file, rendered on warm browsers. An edit shows at once; saving any project file reloads the
      preview at the frame shown. The player uses the renderer's runtime and virtual clock, so a
      frame here is the frame \`vidkit render\` makes, and renders run \`vidkit render\`'s own code
      in this process, into the project's \`out/\`: one at a time, with at most
      \`RENDER_MAX_WAITING\` (an environment variable, default 8) waiting behind it; one more is
      refused (HTTP 429) until one finishes.

      Prints the URL on stdout and runs until Ctrl-C (exit 0). Bound to 127.0.0.1 unless
      \`--host\` says otherwise, and answers only requests addressed to localhost, 127.0.0.1 or
      [::1] on its port (with \`--host\` another address, also to an IP address), so a web page
      that points its own name at this machine cannot read the project. Dotfiles and files
      that a symlink leads to outside the project are never served, nor the script of a service
      worker unless \`--allow-service-workers\` is given.
    `,
    examples: [
      ['Preview the current directory', '$0 preview'],
      ['Preview a project on another port', '$0 preview my-video --port 8080'],
    ],
  });

  static exitCodes = {
    [ExitCode.Ok]: 'stopped with Ctrl-C or SIGTERM',
    [ExitCode.BadInput]: 'bad input: no such project, a bad --port, a port in use or an address that cannot be bound',
  };

  projectDir = Option.String({ required: false, name: 'projectDir' });
  port = Option.String('--port', String(DEFAULT_PREVIEW_PORT), { description: `Port to listen on (default ${DEFAULT_PREVIEW_PORT}; 0 picks a free one)` });
  host = Option.String('--host', '127.0.0.1', {
    description: 'Address to bind (default 127.0.0.1, this machine only); another address, e.g. 0.0.0.0, lets other machines open the preview by IP address',
  });
  allowServiceWorkers = cliOption('allowServiceWorkers', {
    description: 'Serve the script of a service worker the page registers (refused by default: a worker would stay installed for this origin in your browser)',
  });

  protected async run(): Promise<number> {
    const port = Number(this.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw badInput(`--port must be a whole number from 0 to 65535, got "${this.port}"`);
    const server = await startPreview({
      projectDir: this.projectDir ?? '.',
      port,
      host: this.host,
      allowServiceWorkers: this.allowServiceWorkers,
      onChange: (file) => this.log(`changed ${file}: reloading the preview`),
      onWarning: (m) => this.warn(m),
      maxWaiting: renderMaxWaiting(process.env),
    });
    this.context.stdout.write(`${server.url}\n`);
    this.log('previewing; Ctrl-C stops');
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await server.close();
    return 0;
  }
}
