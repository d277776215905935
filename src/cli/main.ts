#!/usr/bin/env node
import { VERSION } from '../package-info';
import { BenchmarkCommand } from './benchmark-command';
import { CloudfnCancelCommand } from './cloudfn-cancel-command';
import { CloudfnDeployCommand } from './cloudfn-deploy-command';
import { CloudfnDestroyCommand } from './cloudfn-destroy-command';
import { CloudfnProgressCommand } from './cloudfn-progress-command';
import { CloudfnRenderBatchCommand } from './cloudfn-render-batch-command';
import { CloudfnRenderCommand } from './cloudfn-render-command';
import { CloudfnRendersLsCommand } from './cloudfn-renders-command';
import { CloudfnSitesCreateCommand, CloudfnSitesLsCommand, CloudfnSitesRmCommand } from './cloudfn-sites-command';
import { CompositionsCommand } from './compositions-command';
import { DoctorCommand } from './doctor-command';
import { InitCommand } from './init-command';
import { LintCommand } from './lint-command';
import { PreviewCommand } from './preview-command';
import { RenderCommand } from './render-command';
import { RenderServerCommand } from './render-server-command';
import { StillCommand } from './still-command';
import { TypesGenerateCommand } from './types-command';
import { VidkitCli } from './vidkit-cli';

/** Every vidkit command; `help`, `--version` and `completion` come with {@link VidkitCli}. */
export const cli = new VidkitCli({ binaryLabel: 'vidkit', binaryName: 'vidkit', binaryVersion: VERSION });
cli.register(RenderCommand);
cli.register(StillCommand);
cli.register(RenderServerCommand);
cli.register(CloudfnDeployCommand);
cli.register(CloudfnSitesCreateCommand);
cli.register(CloudfnRenderCommand);
cli.register(CloudfnRenderBatchCommand);
cli.register(CloudfnProgressCommand);
cli.register(CloudfnCancelCommand);
cli.register(CloudfnDestroyCommand);
cli.register(CloudfnSitesLsCommand);
cli.register(CloudfnSitesRmCommand);
cli.register(CloudfnRendersLsCommand);
cli.register(CompositionsCommand);
cli.register(InitCommand);
cli.register(LintCommand);
cli.register(PreviewCommand);
cli.register(TypesGenerateCommand);
cli.register(DoctorCommand);
cli.register(BenchmarkCommand);

// Imported by the help tests, which read the commands from `cli`, run only as the program.
if (require.main === module) {
  // Exits as soon as the command is done and its output is written: a handle left open (a socket,
  // a child's pipe) never keeps a finished command waiting, and a large `--json` result on a pipe
  // (which takes what its reader has room for, then the rest asynchronously) is never cut short.
  const written = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write('', () => resolve()));
  void cli
    .run(process.argv.slice(2))
    .then(async (code) => {
      await Promise.all([written(process.stdout), written(process.stderr)]);
      process.exit(code);
    });
}
