import { Command, Option } from 'clipanion';
import { ExitCode, badInput } from '../errors';
import { readBatchFile } from '../sdk/batch-file';
import { ManifestWriter, countRows, manifestJson, manifestPathFor, manifestText, writeLines } from '../sdk/batch-manifest';
import { DEFAULT_MAX_CONCURRENT } from '../sdk/defaults';
import type { RenderBatchInput } from '../sdk/render-batch';
import { siteKeys } from '../sdk/render-input';
import type { PreparedSite } from '../sdk/site';
import { CloudCommand } from './cloud-command';
import { resolveFormat } from '../sdk/validate-config';
import { BUCKET_DESCRIPTION, CLOUD_EXIT_CODES, FORMAT_DESCRIPTION, STACK_NAME_DESCRIPTION, STATE_MACHINE_DESCRIPTION, wholeNumber } from './cloudfn-options';

export class CloudfnRenderBatchCommand extends CloudCommand {
  static paths = [['cloudfn', 'render-batch']];

  static usage = Command.Usage({
    category: 'Cloud',
    description: 'Start one cloud render per line of a JSONL batch file and print the manifest',
    details: `
      Each line of the batch is {"outputKey": "<key>", "variables": {...}}; blank lines are skipped.
      The site is uploaded once (skipped with --site-id). Every entry is checked before any request:
      its variables against the composition's declarations (a mismatch warns; with
      --strict-variables it fails the entry) and its execution input against the 256 KiB limit. A
      malformed line or a refused entry becomes a failed-to-start row naming the line and the reason;
      the other entries go on. At most --max-concurrent executions are being started at once
      (default 50); a throttled start is retried with backoff before its row fails.

      The manifest (a summary line, then one row per line: line, outputKey, status, executionArn,
      renderId) is printed, and also appended row by row to <batch>.manifest.jsonl next to the
      batch, so an interrupted run leaves a record of what it started. The file is never truncated:
      each run's rows carry its "run" (the run's start time) after the earlier runs' rows.
      --dry-run validates everything, starts nothing, uploads nothing and writes no manifest file:
      every good row is would-invoke.

      The bucket and state machine are --bucket and --state-machine-arn, else VIDKIT_BUCKET and
      VIDKIT_SFN_ARN, else the outputs of the deployed stack (--stack-name, default vidkit-render);
      a dry run reads no stack.

      An outputKey must be one line (no NUL, \\n or \\r), relative (no leading /, no URL scheme such
      as s3:// or https:), without a .. path segment, and at most 1024 bytes of UTF-8.

      The --format applies to every entry, whose outputKey must carry the format's extension.
    `,
    examples: [['Dry run, then the real thing', '$0 cloudfn render-batch my-video --batch viewers.jsonl --dry-run']],
  });

  static exitCodes = {
    ...CLOUD_EXIT_CODES,
    [ExitCode.RenderFailed]: 'an entry failed to start, or AWS refused a request',
    [ExitCode.Interrupted]: 'interrupted (Ctrl-C): the starts in flight finished, nothing more started',
  };

  projectDir = Option.String({ required: true, name: 'projectDir' });
  batch = Option.String('--batch', { required: true, description: 'JSONL file: one {"outputKey", "variables"} object per line' });
  width = Option.String('--width', { description: 'Output width in pixels (keeps the aspect ratio)' });
  height = Option.String('--height', { description: 'Output height in pixels (keeps the aspect ratio)' });
  format = Option.String('--format', { description: FORMAT_DESCRIPTION });
  maxConcurrent = Option.String('--max-concurrent', { description: `Executions being started at once (default ${DEFAULT_MAX_CONCURRENT})` });
  siteId = Option.String('--site-id', { description: 'A site uploaded before by `cloudfn sites create`: not uploaded again' });
  strictVariables = Option.Boolean('--strict-variables', false, { description: 'Fail an entry whose variables do not match the declarations' });
  json = Option.Boolean('--json', false, { description: 'Print the manifest as a JSON array of rows' });
  dryRun = Option.Boolean('--dry-run', false, { description: 'Validate every entry; start nothing (rows are would-invoke)' });
  bucket = Option.String('--bucket', { description: BUCKET_DESCRIPTION });
  stateMachineArn = Option.String('--state-machine-arn', { description: STATE_MACHINE_DESCRIPTION });
  stackName = Option.String('--stack-name', { description: STACK_NAME_DESCRIPTION });
  variablesFile = Option.String('--variables-file', { hidden: true });
  variables = Option.String('--variables', { hidden: true });

  protected async runCloud(): Promise<number> {
    if (this.variablesFile !== undefined || this.variables !== undefined) {
      const flag = this.variablesFile !== undefined ? '--variables-file' : '--variables';
      throw badInput(`${flag} does not apply to render-batch: each JSONL line carries its own "variables" object`);
    }
    const maxConcurrent = wholeNumber(this.maxConcurrent, '--max-concurrent');
    // Refused here, before the site upload, rather than as a failed row for every entry.
    const config = { format: resolveFormat(this.format), width: wholeNumber(this.width, '--width'), height: wholeNumber(this.height, '--height') };
    // Loaded here, not at the top: `vidkit render` and the other local commands skip the AWS SDK.
    const [{ prepareSite }, { renderBatchToLambda }, { resolveTarget }] = await Promise.all([import('../sdk/site'), import('../sdk/render-batch'), import('../sdk/stack')]);
    const prepared = prepareSite(this.projectDir);
    const batch = await readBatchFile(this.batch);
    if (batch.entries.length + batch.problems.length === 0) throw badInput(`${this.batch} has no entries: one {"outputKey", "variables"} object per line`);

    // A dry run makes no request: it checks with the names it was given, if any.
    const target = this.dryRun ? { bucketName: this.bucket, stateMachineArn: this.stateMachineArn } : await resolveTarget({ bucketName: this.bucket, stateMachineArn: this.stateMachineArn, stackName: this.stackName });
    const siteHandle = await this.site(prepared, target.bucketName);

    // A dry run starts nothing, so it adds nothing to the record of what was started.
    const manifest = this.dryRun ? undefined : new ManifestWriter(manifestPathFor(this.batch));
    if (manifest) this.log(`manifest: ${manifest.file} (run ${manifest.run})`);
    const interrupt = new AbortController();
    const onSigint = () => {
      this.log('interrupted: starting nothing more; waiting for the starts in flight');
      interrupt.abort();
    };
    process.once('SIGINT', onSigint);
    let rows;
    try {
      rows = await renderBatchToLambda({
        siteHandle,
        ...target,
        config,
        batch,
        declarations: prepared.variables,
        strictVariables: this.strictVariables,
        maxConcurrent,
        dryRun: this.dryRun,
        onRow: (row) => manifest?.append(row),
        onWarning: (message) => this.warn(message),
        signal: interrupt.signal,
      });
    } finally {
      process.off('SIGINT', onSigint);
      manifest?.close();
    }
    writeLines(this.context.stdout, this.json ? manifestJson(rows) : manifestText(rows));
    if (interrupt.signal.aborted) return ExitCode.Interrupted;
    return countRows(rows).failedToStart > 0 ? ExitCode.RenderFailed : ExitCode.Ok;
  }

  /** The site to render: uploaded once, named by --site-id, or (dry run) only hashed locally. */
  private async site(prepared: PreparedSite, bucketName: string | undefined): Promise<RenderBatchInput['siteHandle']> {
    if (this.dryRun) return this.siteId ? { ...prepared, siteId: this.siteId, prefix: siteKeys.prefix(this.siteId) } : prepared;
    const { deploySite, siteHandleFor } = await import('../sdk/site');
    if (this.siteId) return siteHandleFor(this.siteId, bucketName);
    const site = await deploySite({ prepared, bucketName });
    this.log(site.uploadedFiles === 0 ? `site ${site.siteId}: already uploaded` : `site ${site.siteId}: uploaded ${site.uploadedFiles} files`);
    return site;
  }
}
