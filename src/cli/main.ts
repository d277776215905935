#!/usr/bin/env node
import { Builtins, Cli, Command } from 'clipanion';
import { ExitCode } from '../errors';
import { VERSION } from '../package-info';
import { CloudfnDeployCommand } from './cloudfn-deploy-command';
import { CloudfnDestroyCommand } from './cloudfn-destroy-command';
import { CloudfnProgressCommand } from './cloudfn-progress-command';
import { CloudfnRenderBatchCommand } from './cloudfn-render-batch-command';
import { CloudfnRenderCommand } from './cloudfn-render-command';
import { CloudfnRendersLsCommand } from './cloudfn-renders-command';
import { CloudfnSitesCreateCommand, CloudfnSitesLsCommand, CloudfnSitesRmCommand } from './cloudfn-sites-command';
import { CompositionsCommand } from './compositions-command';
import { InitCommand } from './init-command';
import { LintCommand } from './lint-command';
import { PreviewCommand } from './preview-command';
import { RenderCommand } from './render-command';
import { TypesGenerateCommand } from './types-command';

const cli = new Cli({ binaryLabel: 'vidkit', binaryName: 'vidkit', binaryVersion: VERSION });
cli.register(Builtins.HelpCommand);
cli.register(Builtins.VersionCommand);
cli.register(RenderCommand);
cli.register(CloudfnDeployCommand);
cli.register(CloudfnSitesCreateCommand);
cli.register(CloudfnRenderCommand);
cli.register(CloudfnRenderBatchCommand);
cli.register(CloudfnProgressCommand);
cli.register(CloudfnDestroyCommand);
cli.register(CloudfnSitesLsCommand);
cli.register(CloudfnSitesRmCommand);
cli.register(CloudfnRendersLsCommand);
cli.register(CompositionsCommand);
cli.register(InitCommand);
cli.register(LintCommand);
cli.register(PreviewCommand);
cli.register(TypesGenerateCommand);

// A command line clipanion cannot read (an unknown option, a missing argument) is bad input, exit 2
// like every other (README, Exit codes); clipanion's own run would exit 1, which `vidkit lint`
// uses for "errors found".
let command: Command;
try {
  command = cli.process(process.argv.slice(2), Cli.defaultContext);
} catch (err) {
  process.stdout.write(cli.error(err, { colored: Cli.defaultContext.colorDepth > 1 }));
  process.exit(ExitCode.BadInput);
}

// Exits as soon as the command is done: a handle left open (a socket, a child's pipe) never keeps
// a finished command waiting. Output on Linux pipes and files is written synchronously.
void cli.run(command, Cli.defaultContext).then((code) => process.exit(code));
