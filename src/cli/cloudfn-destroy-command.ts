import * as readline from 'node:readline/promises';
import { Command, Option } from 'clipanion';
import { cliOption } from '../options/cli-options';
import { ExitCode, badInput } from '../errors';
import { DEFAULT_STACK_NAME } from '../values/constants';
import type { DestroyPlan } from '../sdk/destroy';
import { CloudCommand } from './cloud-command';

export class CloudfnDestroyCommand extends CloudCommand {
  static paths = [['cloudfn', 'destroy']];

  static usage = Command.Usage({
    category: 'Cloud',
    description: 'Delete the render stack and its bucket, with every site, render record and output in it',
    details: `
      Deletes what \`vidkit cloudfn deploy\` created: the stack (render function, state machine,
      roles, log groups), waiting until CloudFormation is done, then the render bucket, emptied
      (the template keeps the bucket on stack deletion, so only destroy removes it). Renders still
      running fail.

      It first says what it will delete (the bucket, how many objects, how many renders are
      running) and asks; --yes skips the question. Without a terminal to ask on it refuses unless
      given --yes. No such stack: nothing to do, exit 0.
    `,
    examples: [['Delete the default stack without asking', '$0 cloudfn destroy --yes']],
  });

  static exitCodes = {
    ...CloudCommand.exitCodes,
    [ExitCode.Ok]: 'deleted, or no such stack to delete',
    [ExitCode.RenderFailed]: 'declined at the question, or AWS refused or failed a deletion',
    [ExitCode.BadInput]: 'bad input: an option, or no terminal to ask on and no --yes',
  };

  stackName = cliOption('stackName', { cliDefault: DEFAULT_STACK_NAME, description: `Stack to delete (default ${DEFAULT_STACK_NAME})` });
  yes = Option.Boolean('--yes', false, { description: 'Delete without asking' });
  json = Option.Boolean('--json', false, { description: 'Print what was deleted as JSON on stdout' });

  protected async runCloud(): Promise<number> {
    const { planDestroy, destroyStack } = await import('../sdk/destroy');
    const plan = await planDestroy(this.stackName);
    if (!plan) {
      this.log(`stack ${this.stackName} does not exist: nothing to destroy`);
      if (this.json) this.context.stdout.write(`${JSON.stringify({ stackName: this.stackName, deleted: false })}\n`);
      return ExitCode.Ok;
    }
    if (!this.yes && !(await this.confirm(plan))) {
      this.log('nothing deleted');
      return ExitCode.RenderFailed;
    }
    const result = await destroyStack(plan, (status) => this.log(status));
    if (this.json) {
      this.context.stdout.write(`${JSON.stringify({ ...result, deleted: true })}\n`);
      return ExitCode.Ok;
    }
    const bucket = result.bucketName ? ` and bucket ${result.bucketName} (${result.deletedObjects} objects)` : '';
    this.context.stdout.write(`Deleted stack ${result.stackName}${bucket}\n`);
    return ExitCode.Ok;
  }

  private async confirm(plan: DestroyPlan): Promise<boolean> {
    const what = `stack ${plan.stackName}${plan.bucketName ? ` and bucket ${plan.bucketName} with its ${plan.objects} objects (sites, render records, outputs)` : ''}`;
    const running = plan.runningRenders > 0 ? `; ${plan.runningRenders} render${plan.runningRenders === 1 ? ' is' : 's are'} running and will fail` : '';
    const stdin = this.context.stdin as NodeJS.ReadStream;
    if (!stdin.isTTY) throw badInput(`destroy deletes ${what}${running}: pass --yes to confirm (there is no terminal to ask on)`);
    const rl = readline.createInterface({ input: stdin, output: this.context.stderr });
    try {
      const answer = await rl.question(`Delete ${what}${running}? [y/N] `);
      return /^y(es)?$/i.test(answer.trim());
    } finally {
      rl.close();
    }
  }
}
