import * as path from 'node:path';
import { Command, Option } from 'clipanion';
import { ExitCode, badInput } from '../errors';
import { dockerArgv, withSurfaceOptions } from '../options/cli-options';
import { flagOf } from '../options/registry';
import { OutputFormat, formatExtension } from '../values/formats';
import { renderLocal } from '../render/local-render';
import type { ExitCodes } from './base-command';
import { CompositionCommand } from './composition-command';
import { renderInDocker } from './docker';
import { failOnLintErrors } from './lint-command';
import { frameProgress } from './progress';
import { refuseSingleRenderOptions, runBatchEstimate, runRenderBatch } from './render-batch';
import { exitOnTermination } from './termination';

/** What a local render exits with (docs/reference/command-line.md). */
export const RENDER_EXIT_CODES: ExitCodes = {
  [ExitCode.Ok]: 'success',
  [ExitCode.RenderFailed]: 'render failed (a script error, a page that loops or navigates away, a browser that died three times)',
  [ExitCode.BadInput]: 'bad input: project, composition, variables, options, an --output that is a directory, a size or length over the limits',
  [ExitCode.MissingDependency]: 'missing dependency: browser, native addon, Docker engine',
  [ExitCode.OutputFailed]: 'output not writable: full disk, read-only file system, permission',
  [ExitCode.Hangup]: 'hangup (SIGHUP)',
  [ExitCode.Interrupted]: 'interrupted (Ctrl-C)',
  [ExitCode.Terminated]: 'terminated (SIGTERM)',
};

export class RenderCommand extends withSurfaceOptions(CompositionCommand, ['render', 'batch']) {
  static paths = [['render']];

  static usage = Command.Usage({
    description: 'Render a composition to a video file on this machine',
    details: `
      Renders \`<projectDir>/index.html\` (or the page \`--composition\` names) in headless Chromium,
      one browser per worker, and encodes it through the native core. The output file appears only
      when complete.

      Formats (\`--format\`): mp4 (H.264 yuv420p BT.709, default), webm (VP9 with alpha), mov
      (ProRes 4444 with alpha), hdr-pq and hdr-hlg (10-bit HEVC BT.2020 in MP4, SDR white at the
      HDR reference white), gif (one palette for the whole render; \`--gif-loop\`), png-sequence
      (a directory of RGBA PNG frames, frame_000001.png first) and hls (a directory: master.m3u8,
      stream.m3u8 and MPEG-TS segments of \`--hls-segment-seconds\`, each starting on a keyframe).
      With webm, mov and png-sequence, the page is transparent where it draws no background. The
      \`--output\` extension must match the format (.mp4 for mp4, hdr-pq and hdr-hlg; .webm; .mov;
      .gif); png-sequence and hls name a directory, replaced if it holds an earlier output.

      \`--resolution\` names the output size as HyperFrames does (1080p, 720p, 480p, 4k, or
      landscape/portrait/square with -4k, -720p, -480p); the composition is drawn at the scale
      that fills it.

      Variables override the composition's declared defaults. A value of the wrong type is a
      warning, or an error with \`--strict-variables\`.

      Text that no font can draw (neither the page's own fonts nor the bundled families and
      fallback faces have a character, so it would show as an empty box) is a warning naming the
      element, the variable the text came from and the characters; with \`--strict\` it fails the
      render (exit 2) before any output appears.

      Media the page references by http(s) URL are fetched once per render, from public addresses
      only (loopback, link-local and private ones need \`--allow-private-network\`), each at most
      \`--max-asset-bytes\`. Everything else the browser sends (workers, WebSockets, iframes) goes
      out through vidkit's egress gate under the same rule; service workers are refused unless
      \`--allow-service-workers\` is given.
    `,
    examples: [
      ['Render the bundled example', '$0 render examples/ui-3d-reveal --output out/reveal.mp4'],
      ['Override variables', `$0 render my-video --variables '{"title":"Hello","accent":"#ff3366"}'`],
      ['Fail on a mistyped variable', '$0 render my-video --variables-file vars.json --strict-variables'],
      ['Fail on lint errors and on characters no font can draw', '$0 render my-video --variables-file vars.json --strict'],
      ['Render one video per line of a JSONL file, browsers kept warm', '$0 render my-video --batch viewers.jsonl --output-dir out/viewers'],
      ['What each line of that batch would draw and share, rendering nothing', '$0 render my-video --batch viewers.jsonl --estimate'],
    ],
  });

  static exitCodes = RENDER_EXIT_CODES;

  json = Option.Boolean('--json', false, { description: 'Print the result as JSON on stdout' });

  protected async run(): Promise<number> {
    const settings = this.settings();
    const { format, encode: quality, workers } = settings;
    const delivery = { gifLoop: settings.gifLoop, hlsSegmentSeconds: settings.hlsSegmentSeconds };
    const page = this.pageSettings(settings);

    if (this.strict) failOnLintErrors(this.projectDir, this.context.stderr);
    if (this.batch !== undefined) {
      refuseSingleRenderOptions(this);
      const io = { stdout: this.context.stdout, stderr: this.context.stderr, log: (m: string) => this.log(m), warn: (m: string) => this.warn(m), json: this.json };
      const batch = {
        ...page,
        ...quality,
        strictGlyphs: this.strict,
        format,
        gifLoop: delivery.gifLoop,
        batchFile: this.batch,
        maxBatchBytes: settings.values.maxBatchBytes,
        outputKeyPattern: this.outputKey,
      };
      if (this.estimate) return runBatchEstimate(io, batch);
      return runRenderBatch(io, {
        ...batch,
        outputDir: this.outputDir,
        concurrency: settings.values.batchConcurrency ?? 'auto',
        failFast: this.failFast,
        force: this.force,
      });
    }
    if (this.estimate) throw badInput(`${flagOf('estimate')} goes with ${flagOf('batch')}: it tells what the lines of a batch would share`);
    if (this.maxBatchBytes !== undefined) throw badInput(`${flagOf('maxBatchBytes')} goes with ${flagOf('batch')}: it bounds the batch file`);
    if (this.outputKey !== undefined) throw badInput(`${flagOf('outputKey')} goes with a CSV or TSV ${flagOf('batch')}: it names each row's output from its cells`);
    if (this.docker) return this.runInDocker(page.overrides, format);

    const progress = frameProgress(this.context.stderr);
    const stopHandling = exitOnTermination(this.context.stderr, () => progress.stop());
    try {
      const result = await renderLocal({
        ...page,
        ...delivery,
        output: this.output,
        format,
        workers,
        ...quality,
        strictGlyphs: this.strict,
        onInfo: (m) => this.log(m),
        onStart: ({ totalFrames }) => progress.start(totalFrames),
        onFrame: () => progress.frame(),
      });
      progress.stop();
      if (this.json) {
        this.context.stdout.write(`${JSON.stringify(result)}\n`);
      } else {
        this.log(`${result.frames} frames in ${result.wallSeconds.toFixed(1)}s (${(result.frames / result.wallSeconds).toFixed(1)} fps)`);
        this.context.stdout.write(`${result.output}\n`);
      }
      return ExitCode.Ok;
    } finally {
      progress.stop();
      stopHandling();
    }
  }

  /** Hands the same options to `vidkit render` inside the image (the table marks which pass). */
  private runInDocker(overrides: Record<string, unknown>, format: OutputFormat): number {
    const pass = [...dockerArgv(this), `${flagOf('variables')}=${JSON.stringify(overrides)}`, `${flagOf('format')}=${format}`];
    if (this.json) pass.push('--json');
    const output = this.output ?? path.join('out', `${path.basename(path.resolve(this.projectDir))}${formatExtension(format)}`);
    return renderInDocker(this.projectDir, output, pass);
  }
}
