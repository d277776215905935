import { Command, Option } from 'clipanion';
import { parseOverrides } from '../composition/variables';
import { ExitCode, VidkitError, badInput } from '../errors';
import type { RenderProgress } from '../sdk/progress';
import { CloudCommand } from './cloud-command';
import { formatExtension } from '../render/formats';
import { resolveFormat } from '../sdk/validate-config';
import { BUCKET_DESCRIPTION, FORMAT_DESCRIPTION, STATE_MACHINE_DESCRIPTION, wholeNumber } from './cloudfn-options';
import { progressLine } from './cloudfn-progress-command';

/** How often `--wait` polls; VIDKIT_POLL_MS overrides (the tests poll faster). */
const POLL_MS = Number(process.env.VIDKIT_POLL_MS) > 0 ? Number(process.env.VIDKIT_POLL_MS) : 2000;

export class CloudfnRenderCommand extends CloudCommand {
  static paths = [['cloudfn', 'render']];

  static usage = Command.Usage({
    category: 'Cloud',
    description: 'Render a project on AWS Lambda: one Step Functions execution, one function invocation a chunk',
    details: `
      Uploads the project as a site (skipped with --site-id), checks the whole execution input
      against the 256 KiB limit before any request, and starts the render. Without --wait it prints
      the render id and execution ARN and returns; with --wait, progress lines stream on stderr until
      the output exists, then its location is printed.

      Chunks: without --target-chunk-frames, --max-parallel-chunks chunks (default 16), never more
      than one per --chunk-size frames (default 240). --target-chunk-frames sets the frames per chunk
      instead, within 1..--max-parallel-chunks chunks, and is ignored when --chunk-size is given.
      --variables-file is local only.

      Formats: the names of vidkit render --format whose segments join by stream copy, mp4, webm
      and mov (HDR is refused before any request); the output key must carry the format's
      extension. The sound of the page's audio and video elements is mixed in as in a local render.
    `,
    examples: [['Render and wait', `$0 cloudfn render my-video --variables '{"title":"Hi"}' --output-key renders/hi.mp4 --wait`]],
  });

  projectDir = Option.String({ required: true, name: 'projectDir' });
  siteId = Option.String('--site-id', { description: 'A site uploaded before by `cloudfn sites create`: not uploaded again' });
  width = Option.String('--width', { description: 'Output width in pixels (keeps the aspect ratio)' });
  height = Option.String('--height', { description: 'Output height in pixels (keeps the aspect ratio)' });
  variables = Option.String('--variables', { description: 'JSON object of variable overrides' });
  variablesFile = Option.String('--variables-file', { hidden: true });
  format = Option.String('--format', { description: FORMAT_DESCRIPTION });
  outputKey = Option.String('--output-key', { description: "Object key of the output (default renders/<composition id>-<time> with the format's extension)" });
  wait = Option.Boolean('--wait', false, { description: 'Stream progress until the output exists, then print its location' });
  maxParallelChunks = Option.String('--max-parallel-chunks', { description: 'Chunks rendered at once (default 16)' });
  targetChunkFrames = Option.String('--target-chunk-frames', { description: 'Ceiling on frames per chunk (ignored with --chunk-size)' });
  chunkSize = Option.String('--chunk-size', { description: 'Frames per chunk (default 240)' });
  bucket = Option.String('--bucket', { description: BUCKET_DESCRIPTION });
  stateMachineArn = Option.String('--state-machine-arn', { description: STATE_MACHINE_DESCRIPTION });
  json = Option.Boolean('--json', false, { description: 'Print the render handle (or, with --wait, the final progress) as JSON' });

  protected async runCloud(): Promise<number> {
    if (this.variablesFile !== undefined) {
      throw badInput('--variables-file is for local renders only (`vidkit render`); pass the overrides inline with --variables');
    }
    // Loaded here, not at the top: `vidkit render` and the other local commands skip the AWS SDK.
    const [{ renderToLambda, requireStateMachine, validateConfig }, { deploySite, prepareSite, siteHandleFor }] = await Promise.all([
      import('../sdk/render'),
      import('../sdk/site'),
    ]);
    const overrides = parseOverrides({ json: this.variables }, () => '');
    const format = resolveFormat(this.format);
    const prepared = prepareSite(this.projectDir);
    const siteId = this.siteId ?? prepared.siteId;
    const siteHandle = { ...prepared, siteId, prefix: `sites/${siteId}/` };
    const request = {
      siteHandle,
      bucketName: this.bucket,
      stateMachineArn: this.stateMachineArn,
      outputKey: this.outputKey ?? `renders/${prepared.composition.id}-${new Date().toISOString().replace(/[:.]/g, '-')}${formatExtension(format)}`,
      config: {
        format,
        width: wholeNumber(this.width, '--width'),
        height: wholeNumber(this.height, '--height'),
        variables: overrides,
        maxParallelChunks: wholeNumber(this.maxParallelChunks, '--max-parallel-chunks'),
        targetChunkFrames: wholeNumber(this.targetChunkFrames, '--target-chunk-frames'),
        chunkSize: wholeNumber(this.chunkSize, '--chunk-size'),
      },
    };
    // Everything that can be refused without a request is refused before the first one.
    validateConfig(request);
    requireStateMachine(this.stateMachineArn);

    const site = this.siteId ? await siteHandleFor(this.siteId, this.bucket) : await deploySite({ prepared, bucketName: this.bucket });
    if (!this.siteId) this.log(site.uploadedFiles === 0 ? `site ${site.siteId}: already uploaded` : `site ${site.siteId}: uploaded ${site.uploadedFiles} files`);
    const handle = await renderToLambda({ ...request, siteHandle: site, onWarning: (m) => this.warn(m) });
    const frames = handle.totalFrames === undefined ? 'length measured on the page, up to' : `${handle.totalFrames} frames in`;
    this.log(`render ${handle.renderId} started: ${frames} ${handle.chunks} chunk${handle.chunks === 1 ? '' : 's'}`);
    if (!this.wait) {
      if (this.json) this.context.stdout.write(`${JSON.stringify(handle)}\n`);
      else this.context.stdout.write(`Render ID: ${handle.renderId}\nExecution ARN: ${handle.executionArn}\n`);
      return ExitCode.Ok;
    }
    const final = await this.follow(handle.executionArn);
    if (this.json) this.context.stdout.write(`${JSON.stringify(final)}\n`);
    if (final.status !== 'done') throw new VidkitError(`render ${final.renderId} ${final.status}: ${final.error ?? 'no error reported'}`);
    if (!this.json) this.context.stdout.write(`${final.output!.url}\n`);
    return ExitCode.Ok;
  }

  /** Polls until the execution ends, writing a line whenever progress moves. */
  private async follow(executionArn: string): Promise<RenderProgress> {
    const { getRenderProgress } = await import('../sdk/progress');
    let last = '';
    for (;;) {
      const progress = await getRenderProgress({ executionArn });
      const line = progressLine(progress);
      if (line !== last) this.log(line);
      last = line;
      if (!['planning', 'rendering', 'assembling'].includes(progress.status)) return progress;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
}
