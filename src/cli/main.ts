#!/usr/bin/env node
import { Builtins, Cli } from 'clipanion';
import { VERSION } from '../package-info';
import { InitCommand } from './init-command';
import { PreviewCommand } from './preview-command';
import { RenderCommand } from './render-command';
import { TypesGenerateCommand } from './types-command';

const cli = new Cli({ binaryLabel: 'vidkit', binaryName: 'vidkit', binaryVersion: VERSION });
cli.register(Builtins.HelpCommand);
cli.register(Builtins.VersionCommand);
cli.register(RenderCommand);
cli.register(InitCommand);
cli.register(PreviewCommand);
cli.register(TypesGenerateCommand);

void cli.runExit(process.argv.slice(2), Cli.defaultContext);
