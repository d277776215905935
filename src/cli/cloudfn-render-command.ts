import { Command, Option } from 'clipanion';
import { parseOverrides } from '../composition/variables';
import { ExitCode, VidkitError } from '../errors';
import type { RenderCostEstimate } from '../sdk/estimate';
import type { RenderProgress } from '../sdk/progress';
import type { RenderHandle, RenderPlan } from '../sdk/render';
import type { PreparedSite } from '../sdk/site';
import { withSurfaceOptions } from '../options/cli-options';
import { OVERRIDE_FLAGS, flagOf } from '../options/registry';
import { DEFAULT_CHUNK_SIZE, DEFAULT_MAX_PARALLEL_CHUNKS, DEFAULT_STACK_NAME, DEFAULT_TIMEOUTS } from '../values/constants';
import { checkVariablesText, readVariablesFile } from '../options/input-limits';
import { RawOptions, resolveRenderSettings } from '../options/resolve';
import { CloudCommand } from './cloud-command';
import { formatExtension } from '../values/formats';
import { resolveFormat } from '../sdk/validate-config';
import {
  CLOUD_EXIT_CODES,
  FORMAT_DESCRIPTION,
  webhookOptions,
  wholeNumber,
} from './cloudfn-options';
import { progressLine } from './cloudfn-progress-command';

/** How often `--wait` polls; VIDKIT_POLL_MS overrides (the tests poll faster). */
const POLL_MS = Number(process.env.VIDKIT_POLL_MS) > 0 ? Number(process.env.VIDKIT_POLL_MS) : 2000;

export class CloudfnRenderCommand extends withSurfaceOptions(CloudCommand, ['cloudfn'], {
  format: { description: FORMAT_DESCRIPTION },
  outputKey: { description: "Object key of the output (default renders/<composition id>-<time> with the format's extension)" },
  estimate: { description: 'Print the expected usage and cost of this render at list prices; start nothing' },
}) {
  static paths = [['cloudfn', 'render']];

  static usage = Command.Usage({
    category: 'Cloud',
    description: 'Render a project on AWS Lambda: one Step Functions execution, one function invocation a chunk',
    details: `
      Uploads the project as a site (skipped with --site-id), checks the whole execution input
      against the 256 KiB limit before any request, and starts the render. Without --wait it prints
      the render id and execution ARN and returns; with --wait, progress lines stream on stderr until
      the output exists, then its location is printed.

      Chunks: without --target-chunk-frames, --max-parallel-chunks chunks (default ${DEFAULT_MAX_PARALLEL_CHUNKS}), never more
      than one per --chunk-size frames (default ${DEFAULT_CHUNK_SIZE}). --target-chunk-frames sets the frames per chunk
      instead, within 1..--max-parallel-chunks chunks, and is ignored when --chunk-size is given.

      Variables: --variables on the command line, or --variables-file from a file, - from stdin (an
      argument is capped at 128 KiB on Linux, a file is not). One variable may have
      --max-variable-bytes, all of them --max-variables-bytes; past 256 KiB of execution input they
      need --host-large-variables.

      --load-timeout and --frame-timeout are each chunk's page deadlines: a chunk whose page does
      not become ready fails within them with the page's reason, and the render fails with it.

      Formats: the names of vidkit render --format whose segments join by stream copy, mp4, webm
      and mov (HDR is refused before any request); the output key must carry the format's
      extension. The sound of the page's audio and video elements is mixed in as in a local render.

      The bucket and state machine are --bucket and --state-machine-arn, else VIDKIT_BUCKET and
      VIDKIT_SFN_ARN, else the outputs of the deployed stack (--stack-name, default vidkit-render).

      --estimate prints the expected Lambda GB-seconds, Step Functions state transitions and S3
      requests of this render and their cost at us-east-1 list prices, and starts nothing
      (docs/guide/cloud.md, Cost estimate; --json for the numbers).

      --host-large-variables: a render whose execution input would exceed 256 KiB puts its
      variables in the render bucket and passes their key; each invocation reads them once.

      --direct: a render that plans to one chunk runs as one invocation of the render function,
      without the state machine (no execution: progress, cancel and the webhook work from its render
      id; docs/guide/cloud.md, Direct renders).

      --webhook <url>: when the render succeeds or fails, the render function POSTs a JSON body
      to the URL, signed in the X-Vidkit-Signature header (sha256=<HMAC-SHA256 of the raw body>)
      with --webhook-secret or VIDKIT_WEBHOOK_SECRET, retried on network errors and 5xx. Loopback
      and private addresses only with --webhook-allow-private (docs/guide/cloud.md, Completion webhook).
    `,
    examples: [['Render and wait', `$0 cloudfn render my-video --variables '{"title":"Hi"}' --output-key renders/hi.mp4 --wait`]],
  });

  static exitCodes = CLOUD_EXIT_CODES;

  projectDir = Option.String({ required: true, name: 'projectDir' });
  json = Option.Boolean('--json', false, { description: 'Print the render handle (with --wait, the final progress; with --estimate, the estimate) as JSON' });

  protected async runCloud(): Promise<number> {
    // Loaded here, not at the top: `vidkit render` and the other local commands skip the AWS SDK.
    const [{ renderToLambda, validateBeforeRequests }, { deploySite, prepareSite, siteHandleFor }, { resolveTarget }] = await Promise.all([
      import('../sdk/render'),
      import('../sdk/site'),
      import('../sdk/stack'),
    ]);
    const { values, inputLimits: limits, timeouts, format: given } = resolveRenderSettings('cli', this as RawOptions);
    const overrides = parseOverrides(
      { json: this.variables, file: this.variablesFile },
      (p) => readVariablesFile(p, limits, flagOf('variablesFile')),
      OVERRIDE_FLAGS,
      (text, what) => checkVariablesText(text, what, limits),
    );
    const format = resolveFormat(given);
    const prepared = prepareSite(this.projectDir);
    const siteId = this.siteId ?? prepared.siteId;
    const siteHandle = { ...prepared, siteId, prefix: `sites/${siteId}/` };
    const request = {
      siteHandle,
      bucketName: this.bucket,
      stateMachineArn: this.stateMachineArn,
      stackName: this.stackName,
      outputKey: this.outputKey ?? `renders/${prepared.composition.id}-${new Date().toISOString().replace(/[:.]/g, '-')}${formatExtension(format)}`,
      config: {
        format,
        width: values.width,
        height: values.height,
        variables: overrides,
        maxVariableBytes: values.maxVariableBytes,
        maxVariablesBytes: values.maxVariablesBytes,
        ...(Object.keys(timeouts).length > 0 ? { timeouts } : {}),
        maxParallelChunks: values.maxParallelChunks,
        targetChunkFrames: values.targetChunkFrames,
        chunkSize: values.chunkSize,
      },
      webhook: await webhookOptions(this),
      hostLargeVariables: this.hostLargeVariables,
      direct: this.direct,
    };
    // Everything that can be refused without a request is refused before the first one.
    const plan = validateBeforeRequests(request);
    if (this.estimate) return this.printEstimate(plan, prepared);
    const target = await resolveTarget(request);

    const site = this.siteId
      ? await siteHandleFor(this.siteId, target.bucketName)
      : await deploySite({ prepared, bucketName: target.bucketName });
    if (!this.siteId) this.log(site.uploadedFiles === 0 ? `site ${site.siteId}: already uploaded` : `site ${site.siteId}: uploaded ${site.uploadedFiles} files`);
    const handle = await renderToLambda({ ...request, ...target, siteHandle: site, onWarning: (m) => this.warn(m) });
    const frames = handle.totalFrames === undefined ? 'length measured on the page, up to' : `${handle.totalFrames} frames in`;
    this.log(`render ${handle.renderId} started: ${frames} ${handle.chunks} chunk${handle.chunks === 1 ? '' : 's'}`);
    if (!this.wait) {
      if (this.json) this.context.stdout.write(`${JSON.stringify(handle)}\n`);
      else this.context.stdout.write(`Render ID: ${handle.renderId}\nExecution ARN: ${handle.executionArn ?? 'none (a direct render: its render id names it)'}\n`);
      return ExitCode.Ok;
    }
    const final = await this.follow(handle);
    if (this.json) this.context.stdout.write(`${JSON.stringify(final)}\n`);
    if (final.status !== 'done') throw new VidkitError(`render ${final.renderId} ${final.status}: ${final.error ?? 'no error reported'}`);
    if (!this.json) this.context.stdout.write(`${final.output!.url}\n`);
    return ExitCode.Ok;
  }

  /** --estimate: the render's expected usage at the deployed function's memory (the deploy default when no stack is deployed). */
  private async printEstimate(plan: RenderPlan, prepared: PreparedSite): Promise<number> {
    const [{ estimateRenderCost }, { describeStack }] = await Promise.all([import('../sdk/estimate'), import('../sdk/stack')]);
    const stackName = this.stackName ?? DEFAULT_STACK_NAME;
    const stack = await describeStack(stackName);
    const memory = stack?.Parameters?.find((p) => p.ParameterKey === 'MemorySize')?.ParameterValue;
    const estimate = estimateRenderCost({
      chunkFrames: plan.chunkFrames,
      width: plan.width,
      height: plan.height,
      memoryMb: memory === undefined ? undefined : Number(memory),
      siteFiles: prepared.files.length,
      uploadedSiteFiles: this.siteId ? undefined : prepared.files.length,
      webhook: this.webhook !== undefined,
    });
    if (this.json) {
      this.context.stdout.write(`${JSON.stringify(estimate)}\n`);
      return ExitCode.Ok;
    }
    const memoryFrom = memory === undefined ? `the deploy default: no stack ${stackName}` : `stack ${stackName}`;
    this.context.stdout.write(`${estimateLines(estimate, memoryFrom).join('\n')}\n`);
    return ExitCode.Ok;
  }

  /** Polls until the execution ends, writing a line whenever progress moves. */
  private async follow(handle: RenderHandle): Promise<RenderProgress> {
    const { getRenderProgress } = await import('../sdk/progress');
    let last = '';
    for (;;) {
      const progress = await getRenderProgress({ executionArn: handle.executionArn ?? undefined, renderId: handle.renderId, bucketName: handle.bucketName });
      const line = progressLine(progress);
      if (line !== last) this.log(line);
      last = line;
      if (!['planning', 'rendering', 'assembling'].includes(progress.status)) return progress;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
}

/** The estimate as a few aligned lines; dollars to four decimals, or two significant digits below a cent. */
export function estimateLines(e: RenderCostEstimate, memoryFrom: string): string[] {
  const usd = (n: number) => `$${n >= 0.01 ? n.toFixed(4) : n.toPrecision(2)}`;
  const row = (label: string, usage: string, cost: number) => `${label.padEnd(16)}${usage.padEnd(44)}${usd(cost)}`;
  return [
    `Estimate: ${e.totalFrames} frames in ${e.chunks} chunk${e.chunks === 1 ? '' : 's'} at ${e.width}x${e.height}, render function ${e.memoryMb} MB (${memoryFrom})`,
    row('Lambda', `${e.lambda.invocations} invocations, ${e.lambda.seconds.toFixed(1)} s, ${e.lambda.gbSeconds.toFixed(1)} GB-s`, e.lambda.cost),
    row('Step Functions', `${e.stepFunctions.stateTransitions} state transitions`, e.stepFunctions.cost),
    row('S3', `${e.s3.putOrListRequests} PUT/LIST, ${e.s3.getRequests} GET/HEAD requests`, e.s3.cost),
    row('Total', '', e.totalCost),
    `Assumed ${e.assumptions.secondsPerFrame.toPrecision(2)} s a frame and ${e.assumptions.chunkStartSeconds} s to start each chunk; ${e.prices.region} list prices recorded ${e.prices.recorded} (docs/guide/cloud.md, Cost estimate).`,
  ];
}
