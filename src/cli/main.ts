#!/usr/bin/env node
import { Builtins, Cli } from 'clipanion';
import { VERSION } from '../package-info';
import { RenderCommand } from './render-command';

const cli = new Cli({ binaryLabel: 'vidkit', binaryName: 'vidkit', binaryVersion: VERSION });
cli.register(Builtins.HelpCommand);
cli.register(Builtins.VersionCommand);
cli.register(RenderCommand);

void cli.runExit(process.argv.slice(2), Cli.defaultContext);
