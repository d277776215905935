import * as fs from 'node:fs';
import { Command, Option } from 'clipanion';
import { ExitCode, badInput } from '../errors';
import { readBatchFile } from '../sdk/batch-file';
import type { BatchManifestRow } from '../sdk/batch-dispatch';
import { ManifestWriter, countRows, manifestJson, manifestPathFor, manifestText, readManifest, writeLines } from '../sdk/batch-manifest';
import { DEFAULT_MAX_CONCURRENT } from '../sdk/defaults';
import type { RenderBatchInput } from '../sdk/render-batch';
import { siteKeys } from '../sdk/render-input';
import type { RenderPlan } from '../sdk/render';
import type { PreparedSite } from '../sdk/site';
import { DEFAULT_STACK_NAME } from '../values/constants';
import { cliOption, withSurfaceOptions } from '../options/cli-options';
import { RawOptions, resolveRenderSettings } from '../options/resolve';
import { flagOf } from '../options/registry';
import { CloudCommand } from './cloud-command';
import { resolveFormat } from '../sdk/validate-config';
import {
  CLOUD_EXIT_CODES,
  FORMAT_DESCRIPTION,
  webhookOptions,
  wholeNumber,
} from './cloudfn-options';

/** How often `--wait` reads the batch's counter; VIDKIT_POLL_MS overrides (the tests poll faster). */
const POLL_MS = Number(process.env.VIDKIT_POLL_MS) > 0 ? Number(process.env.VIDKIT_POLL_MS) : 2000;

export class CloudfnRenderBatchCommand extends withSurfaceOptions(CloudCommand, ['cloudfn-batch'], {
  batch: { required: true, description: 'Batch file: JSONL, a JSON array of entries, or a CSV/TSV table whose header names the variables' },
  outputKey: { description: "With a CSV/TSV batch without an outputKey column: each row's key from its cells, e.g. 'renders/{id}.mp4'" },
  force: { description: 'Start every line, also those an earlier run started with the same settings' },
  wait: { description: "Stream the batch's progress until every render it started has ended; exit 1 if any failed" },
  webhook: { description: "URL the render function POSTs each render's outcome to, and the batch's once its last render ends, signed" },
  format: { description: FORMAT_DESCRIPTION },
  strictVariables: { description: 'Fail an entry whose variables do not match the declarations' },
}) {
  static paths = [['cloudfn', 'render-batch']];

  static usage = Command.Usage({
    category: 'Cloud',
    description: 'Start one cloud render per entry of a batch file (JSONL, JSON array, CSV or TSV) and print the manifest',
    details: `
      Each line of a JSONL batch is {"outputKey": "<key>", "variables": {...}}; blank lines are
      skipped. A .json file is an array of those entries. A .csv or .tsv file is a table whose header
      row names the variables: each cell is converted by its variable's declared type (number,
      boolean, color, enum; a bad cell fails its row, naming the line and column; an empty cell
      leaves the default), and the outputKey is the outputKey column or --output-key, a pattern of
      columns such as 'renders/{id}.mp4'. The site is uploaded once (skipped with --site-id). Every
      entry is checked before any request: its variables against the composition's declarations (a
      mismatch warns; with --strict-variables it fails the entry) and its execution input against
      the 256 KiB limit (--host-large-variables puts larger variables in the bucket instead). A
      malformed line or a refused entry becomes a failed-to-start row naming the line and the reason;
      the other entries go on.

      Resume: the batch's manifest (<batch>.manifest.jsonl next to the batch, or --manifest) is read
      first; a line whose outputKey's latest row started a render with the same settings (site, variables, size,
      format, fps, seed, epoch) that is running or succeeded is not started again but reported
      skipped. Failed, cancelled and changed lines start again; --force starts every line.

      Pace: the render function's reserved concurrency (cloudfn deploy --concurrency), else the
      account's unreserved concurrency, is read once and the plan printed ("N renders x M chunks;
      about K at a time"): at most K of the run's renders run at once, a start waiting for one to
      end. At most --max-concurrent executions are being started at once (default 50). A throttled
      start is tried again, every start slowing down meanwhile, instead of failing its row.

      The manifest (a summary line, then one row per line: line, outputKey, status, executionArn,
      renderId) is printed, and also appended row by row to the manifest file, so an interrupted run
      leaves a record of what it started. The file is never truncated: each run's rows carry its
      "run" (the run's start time) after the earlier runs' rows. --dry-run validates everything,
      starts nothing, uploads nothing and writes no manifest file: every good row is would-invoke.

      --wait: after the last start, progress lines (done, running, failed, renders per minute, ETA,
      cost so far by the estimate) until every render the run started has ended; exit 1 if any
      failed. --webhook <url>: the render function posts each render's signed event, and one
      batch.completed event when the run's last render has ended (docs/guide/cloud.md, Completion webhook).
      --direct runs each render as one function invocation (each must plan to one chunk).

      The bucket and state machine are --bucket and --state-machine-arn, else VIDKIT_BUCKET and
      VIDKIT_SFN_ARN, else the outputs of the deployed stack (--stack-name, default vidkit-render);
      a dry run reads no stack.

      An outputKey must be one line (no NUL, \\n or \\r), relative (no leading /, no URL scheme such
      as s3:// or https:), without a .. path segment, and at most 1024 bytes of UTF-8.

      The --format applies to every entry, whose outputKey must carry the format's extension.
    `,
    examples: [
      ['Dry run, then the real thing', '$0 cloudfn render-batch my-video --batch viewers.jsonl --dry-run'],
      ['A spreadsheet export, waiting for the last render', "$0 cloudfn render-batch my-video --batch viewers.csv --output-key 'renders/{id}.mp4' --wait"],
    ],
  });

  static exitCodes = {
    ...CLOUD_EXIT_CODES,
    [ExitCode.RenderFailed]: 'an entry failed to start, a render failed (with --wait), or AWS refused a request',
    [ExitCode.Interrupted]: 'interrupted (Ctrl-C): the starts in flight finished, nothing more started',
  };

  projectDir = Option.String({ required: true, name: 'projectDir' });
  manifest = Option.String('--manifest', { description: 'The manifest file to resume from and append to (default <batch>.manifest.jsonl next to the batch)' });
  maxConcurrent = Option.String('--max-concurrent', { description: `Executions being started at once (default ${DEFAULT_MAX_CONCURRENT})` });
  json = Option.Boolean('--json', false, { description: 'Print the manifest as a JSON array of rows' });
  dryRun = Option.Boolean('--dry-run', false, { description: 'Validate every entry; start nothing (rows are would-invoke)' });
  variablesFile = cliOption('variablesFile', { hidden: true });
  variables = cliOption('variables', { hidden: true });

  protected async runCloud(): Promise<number> {
    if (this.variablesFile !== undefined || this.variables !== undefined) {
      const flag = flagOf(this.variablesFile !== undefined ? 'variablesFile' : 'variables');
      throw badInput(`${flag} does not apply to render-batch: each JSONL line carries its own "variables" object`);
    }
    const maxConcurrent = wholeNumber(this.maxConcurrent, '--max-concurrent');
    // Refused here, before the site upload, rather than as a failed row for every entry.
    const { values, format } = resolveRenderSettings('cli', this as RawOptions);
    const config = {
      format: resolveFormat(format),
      width: values.width,
      height: values.height,
      maxVariableBytes: values.maxVariableBytes,
      maxVariablesBytes: values.maxVariablesBytes,
    };
    const maxBatchBytes = values.maxBatchBytes;
    const webhook = await webhookOptions(this);
    if (this.dryRun && this.wait) throw badInput('--wait waits for renders, and --dry-run starts none: use one');
    // Loaded here, not at the top: `vidkit render` and the other local commands skip the AWS SDK.
    const [{ prepareSite }, { renderBatchToLambda }, { resolveTarget }, { admissionLine }] = await Promise.all([
      import('../sdk/site'),
      import('../sdk/render-batch'),
      import('../sdk/stack'),
      import('../sdk/admission'),
    ]);
    const prepared = prepareSite(this.projectDir);
    const batch = await readBatchFile(this.batch, { declarations: prepared.variables, outputKeyPattern: this.outputKey, maxBytes: maxBatchBytes });
    if (batch.entries.length + batch.problems.length === 0) throw badInput(`${this.batch} has no entries`);
    const manifestFile = this.manifest ?? manifestPathFor(this.batch);
    const previous = this.force || !fs.existsSync(manifestFile) ? [] : readManifest(manifestFile, (message) => this.warn(message));

    // A dry run makes no request: it checks with the names it was given, if any.
    const target = this.dryRun ? { bucketName: this.bucket, stateMachineArn: this.stateMachineArn } : await resolveTarget({ bucketName: this.bucket, stateMachineArn: this.stateMachineArn, stackName: this.stackName });
    const siteHandle = await this.site(prepared, target.bucketName);

    // A dry run starts nothing, so it adds nothing to the record of what was started.
    const manifest = this.dryRun ? undefined : new ManifestWriter(manifestFile);
    if (manifest) this.log(`manifest: ${manifest.file} (run ${manifest.run})`);
    const interrupt = new AbortController();
    const onSigint = () => {
      this.log('interrupted: starting nothing more; waiting for the starts in flight');
      interrupt.abort();
    };
    process.once('SIGINT', onSigint);
    let rows;
    const since = Date.now();
    let firstPlan: RenderPlan | undefined;
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
        previous,
        force: this.force,
        webhook,
        hostLargeVariables: this.hostLargeVariables,
        direct: this.direct,
        onRow: (row) => manifest?.append(row),
        onWarning: (message) => this.warn(message),
        onAdmission: (plan) => this.log(admissionLine(plan)),
        onPlan: (plan) => (firstPlan ??= plan),
        signal: interrupt.signal,
      });
    } finally {
      process.off('SIGINT', onSigint);
      manifest?.close();
    }
    writeLines(this.context.stdout, this.json ? manifestJson(rows) : manifestText(rows));
    if (interrupt.signal.aborted) return ExitCode.Interrupted;
    const failedToStart = countRows(rows).failedToStart > 0;
    if (!this.wait || target.bucketName === undefined) return failedToStart ? ExitCode.RenderFailed : ExitCode.Ok;
    const failed = await this.waitFor(rows, target.bucketName, since, firstPlan, prepared);
    return failedToStart || failed ? ExitCode.RenderFailed : ExitCode.Ok;
  }

  /** --wait: the run's progress from its batch counter until every render it started has ended; true if any failed. */
  private async waitFor(rows: BatchManifestRow[], bucketName: string, since: number, plan: RenderPlan | undefined, prepared: PreparedSite): Promise<boolean> {
    const started = rows.filter((r) => r.status === 'started');
    const batchId = started[0]?.batchId;
    if (!batchId) {
      this.log('nothing started: nothing to wait for');
      return false;
    }
    const { waitForBatch, standingLine } = await import('../sdk/batch-wait');
    const costPerRender = plan ? await this.costPerRender(plan, prepared) : undefined;
    let last = '';
    const final = await waitForBatch({
      bucketName,
      batchId,
      started: started.length,
      since,
      costPerRender,
      pollMs: POLL_MS,
      onStanding: (standing) => {
        const line = standingLine(standing);
        if (line.replace(/; [^;]*renders\/min.*$/, '') !== last.replace(/; [^;]*renders\/min.*$/, '')) this.log(`batch ${batchId}: ${line}`);
        last = line;
      },
    });
    this.log(`batch ${batchId} ended: ${standingLine(final)}`);
    return final.failed + final.aborted > 0;
  }

  /** One render's cost by the estimate, at the deployed function's memory; undefined when it cannot be told. */
  private async costPerRender(plan: RenderPlan, prepared: PreparedSite): Promise<number | undefined> {
    if (!plan.chunkFrames) return undefined;
    const [{ estimateRenderCost }, { describeStack }] = await Promise.all([import('../sdk/estimate'), import('../sdk/stack')]);
    const stack = await describeStack(this.stackName ?? DEFAULT_STACK_NAME).catch(() => undefined);
    const memory = stack?.Parameters?.find((p) => p.ParameterKey === 'MemorySize')?.ParameterValue;
    return estimateRenderCost({ chunkFrames: plan.chunkFrames, width: plan.width, height: plan.height, memoryMb: memory === undefined ? undefined : Number(memory), siteFiles: prepared.files.length, webhook: true }).totalCost;
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
