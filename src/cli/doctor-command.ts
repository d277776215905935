import { Command, Option } from 'clipanion';
import type { CheckResult } from '../doctor/check';
import { cliOption } from '../options/cli-options';
import { addonCheck, browserChecks, fontsCheck } from '../doctor/local-checks';
import { ExitCode } from '../errors';
import { DEFAULT_STACK_NAME } from '../values/constants';
import { VidkitCommand } from './base-command';

export class DoctorCommand extends VidkitCommand {
  static paths = [['doctor']];

  static usage = Command.Usage({
    description: 'Check what vidkit needs on this machine and in AWS, each with a fix',
    details: `
      One line per check (ok, warn, fail or skip), and a \`fix:\` line under each warning and
      failure. Required, for rendering here: the browser (found and starting), its capture mode,
      the native addon and the fonts (the browser draws a name in each script the bundled faces
      are for: Chinese, Japanese, Korean, Indic, Thai, Hebrew, Arabic, Cyrillic, Greek, Vietnamese,
      emoji). Optional, warning when absent: GL on a GPU, Chromium's own sandbox (user
      namespaces), AWS credentials and region, and the render stack (\`vidkit cloudfn deploy\`).
      The browser probe's cached
      answer is used, as a render uses it; every AWS request has a deadline of a few seconds.
    `,
    examples: [
      ['Check this machine', '$0 doctor'],
      ['As JSON, for another stack', '$0 doctor --json --stack-name my-renders'],
    ],
  });

  static exitCodes = {
    [ExitCode.Ok]: 'every required check passed (warnings allowed)',
    [ExitCode.BadInput]: 'bad input: a bad option',
    [ExitCode.MissingDependency]: 'a required check failed: browser, capture, native addon or fonts',
  };

  stackName = cliOption('stackName', { cliDefault: DEFAULT_STACK_NAME, description: `Render stack to look for (default ${DEFAULT_STACK_NAME})` });
  json = Option.Boolean('--json', false, { description: 'Print {"ok", "checks": [{name, status, required, detail, fix?}]} on stdout' });

  protected async run(): Promise<number> {
    // Loaded here: the AWS SDK is for the cloud checks only.
    const { awsChecks } = await import('../doctor/aws-checks');
    const checks: CheckResult[] = [...(await browserChecks()), addonCheck(), await fontsCheck(), ...(await awsChecks(this.stackName))];
    const passed = checks.every((c) => !c.required || (c.status !== 'fail' && c.status !== 'skip'));
    if (this.json) {
      this.context.stdout.write(`${JSON.stringify({ ok: passed, checks })}\n`);
    } else {
      const width = Math.max(...checks.map((c) => c.name.length));
      for (const c of checks) {
        this.context.stdout.write(`${c.status.padEnd(4)}  ${c.name.padEnd(width)}  ${c.detail}\n`);
        if (c.fix) this.context.stdout.write(`${' '.repeat(width + 6)}fix: ${c.fix}\n`);
      }
      const failed = checks.filter((c) => c.required && c.status === 'fail').length;
      this.context.stdout.write(passed ? 'every required check passed\n' : `${failed} required check${failed === 1 ? '' : 's'} failed\n`);
    }
    return passed ? ExitCode.Ok : ExitCode.MissingDependency;
  }
}
