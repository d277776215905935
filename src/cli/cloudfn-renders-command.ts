import { Command, Option } from 'clipanion';
import { columns, writeLines } from '../sdk/batch-manifest';
import { cliOption } from '../options/cli-options';
import { CLOUD_EXIT_CODES, wholeNumber } from './cloudfn-options';
import { CloudCommand } from './cloud-command';

export class CloudfnRendersLsCommand extends CloudCommand {
  static paths = [['cloudfn', 'renders', 'ls']];

  static usage = Command.Usage({
    category: 'Cloud',
    description: 'List the latest cloud renders: id, status, start and end, output key',
    details: `
      The state machine's latest executions, newest first (--limit, default 20): render id, status
      (running, done, failed, timed-out, aborted), when it started and stopped, and the output key.
      \`vidkit cloudfn progress <renderId>\` tells more of one. The state machine is
      --state-machine-arn, else VIDKIT_SFN_ARN, else the deployed stack's (--stack-name).
    `,
    examples: [['The last 5 renders as JSON', '$0 cloudfn renders ls --limit 5 --json']],
  });

  static exitCodes = CLOUD_EXIT_CODES;

  limit = Option.String('--limit', { description: 'Renders listed at most, newest first (default 20, at most 1000)' });
  stateMachineArn = cliOption('stateMachineArn');
  stackName = cliOption('stackName');
  json = Option.Boolean('--json', false, { description: 'Print the renders as a JSON array' });

  protected async runCloud(): Promise<void> {
    const { listRenders } = await import('../sdk/render-list');
    const renders = await listRenders({ stateMachineArn: this.stateMachineArn, stackName: this.stackName, limit: wholeNumber(this.limit, '--limit') });
    if (this.json) {
      this.context.stdout.write(`${JSON.stringify(renders)}\n`);
      return;
    }
    writeLines(
      this.context.stdout,
      columns(['renderId', 'status', 'started', 'stopped', 'outputKey'], renders, (r) => [r.renderId, r.status, r.startedAt, r.stoppedAt ?? '-', r.outputKey ?? '-']),
    );
  }
}
