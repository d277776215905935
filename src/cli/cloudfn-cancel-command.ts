import { Command, Option } from 'clipanion';
import { badInput } from '../errors';
import { cliOption } from '../options/cli-options';
import { ManifestWriter, RENDER_STATUSES, columns, latestRowPerLine, readManifest, writeLines } from '../sdk/batch-manifest';
import type { BatchManifestRow } from '../sdk/batch-dispatch';
import type { CancelResult, CancelTarget } from '../sdk/cancel';
import { CloudCommand } from './cloud-command';
import { CLOUD_EXIT_CODES } from './cloudfn-options';

export class CloudfnCancelCommand extends CloudCommand {
  static paths = [['cloudfn', 'cancel']];

  static usage = Command.Usage({
    category: 'Cloud',
    description: 'Stop a cloud render, or every render of a batch, and remove their partial chunks',
    details: `
      Writes a cancel marker for the render, stops its execution (a direct render has none: its
      function stops at the marker), and removes what its chunks wrote (segments, progress and plan
      records, the media timeline). A chunk still running (Lambda lets an invocation finish after
      its execution stops) sees the marker within 2 s, stops and removes its own objects; a sweep
      3 s later removes anything that raced it. A render that had ended already is left as it is,
      output included. A stopped render of a batch counts as ended (aborted) in the batch, so the
      batch's webhook event still comes once its last render has ended.

      With --batch-manifest <file> (the .manifest.jsonl render-batch wrote), every line whose latest
      row started a render; each one stopped gets a "cancelled" row appended to the file, and a
      re-run of the batch starts those lines again.

      Prints one row per render: renderId, cancelled (yes, or no when it had ended), objects removed.
    `,
    examples: [
      ['Stop one render', '$0 cloudfn cancel 0123456789abcdef'],
      ['Stop a batch', '$0 cloudfn cancel --batch-manifest viewers.manifest.jsonl'],
    ],
  });

  static exitCodes = CLOUD_EXIT_CODES;

  id = Option.String({ required: false, name: 'renderId or executionArn' });
  batchManifest = Option.String('--batch-manifest', { description: 'Stop every render of a batch, from the manifest render-batch wrote' });
  bucket = cliOption('bucket');
  stateMachineArn = cliOption('stateMachineArn');
  stackName = cliOption('stackName');
  json = Option.Boolean('--json', false, { description: 'Print the results as a JSON array' });

  protected async runCloud(): Promise<void> {
    if ((this.id === undefined) === (this.batchManifest === undefined)) throw badInput('pass a render id or execution ARN, or --batch-manifest <file> (one of them)');
    const [{ cancelRenders }, { resolveTarget }, { executionArnOf }] = await Promise.all([import('../sdk/cancel'), import('../sdk/stack'), import('../sdk/progress')]);
    const target = await resolveTarget({ bucketName: this.bucket, stateMachineArn: this.stateMachineArn, stackName: this.stackName });
    const rows = this.batchManifest === undefined ? [] : latestRowPerLine(readManifest(this.batchManifest, (m) => this.warn(m))).filter((r) => RENDER_STATUSES.includes(r.status) && r.status !== 'cancelled' && r.renderId !== null);
    const targets: CancelTarget[] =
      this.id === undefined
        ? rows.map((r) => ({ renderId: r.renderId!, executionArn: r.executionArn }))
        : [await this.single(this.id, target.stateMachineArn, executionArnOf)];
    const results = await cancelRenders(targets, { bucketName: target.bucketName, stateMachineArn: target.stateMachineArn });
    if (this.batchManifest !== undefined) this.record(this.batchManifest, rows, results);
    if (this.json) {
      this.context.stdout.write(`${JSON.stringify(results)}\n`);
      return;
    }
    const stopped = results.filter((r) => r.wasRunning).length;
    this.context.stdout.write(`${stopped} cancelled, ${results.length - stopped} had ended\n`);
    writeLines(this.context.stdout, columns(['renderId', 'cancelled', 'removed'], results, (r) => [r.renderId, r.wasRunning ? 'yes' : 'no (had ended)', String(r.removed)]));
  }

  /** One render by id: its execution when it has one, else a direct render of that id. */
  private async single(id: string, stateMachineArn: string, executionArnOf: (id: string, sm?: string) => Promise<string>): Promise<CancelTarget> {
    const executionArn = await executionArnOf(id, stateMachineArn);
    const renderId = executionArn.slice(executionArn.lastIndexOf(':') + 1);
    const { DescribeExecutionCommand } = await import('@aws-sdk/client-sfn');
    const { awsClients } = await import('../sdk/aws-clients');
    try {
      await awsClients().sfn.send(new DescribeExecutionCommand({ executionArn }));
      return { renderId, executionArn };
    } catch (err) {
      if ((err as { name?: string }).name !== 'ExecutionDoesNotExist' || id.startsWith('arn:')) throw err;
      return { renderId, executionArn: null };
    }
  }

  /** The manifest records each cancel as a row of its line, so a re-run starts the line again. */
  private record(file: string, rows: BatchManifestRow[], results: CancelResult[]): void {
    const byId = new Map(results.map((r) => [r.renderId, r]));
    const manifest = new ManifestWriter(file);
    try {
      for (const row of rows) {
        if (!byId.get(row.renderId!)?.wasRunning) continue;
        manifest.append({ line: row.line, outputKey: row.outputKey, status: 'cancelled', executionArn: row.executionArn, renderId: row.renderId, ...(row.settings ? { settings: row.settings } : {}), ...(row.batchId ? { batchId: row.batchId } : {}) });
      }
    } finally {
      manifest.close();
    }
  }
}
