import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, Option } from 'clipanion';
import { parseOverrides } from '../composition/variables';
import { ExitCode, badInput } from '../errors';
import type { CaptureMode } from '../render/browser';
import { OUTPUT_FORMATS, formatExtension, parseOutputFormat } from '../render/formats';
import { renderLocal } from '../render/local-render';
import { DEFAULT_MAX_ASSET_BYTES } from '../render/remote-assets';
import { DEFAULT_TIMEOUTS } from '../render/render-context';
import { qualitySettings } from '../render/quality';
import { parseWorkers } from '../render/workers';
import { DEFAULT_SEED, EPOCH_FORMS, parseEpoch } from '../runtime/boot';
import { ExitCodes, VidkitCommand } from './base-command';
import { renderInDocker } from './docker';
import { failOnLintErrors } from './lint-command';
import { frameProgress } from './progress';
import { exitOnTermination } from './termination';

const CAPTURE_MODES = ['auto', 'beginframe', 'screenshot'];

/** What a local render exits with (README, Exit codes). */
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

export class RenderCommand extends VidkitCommand {
  static paths = [['render']];

  static usage = Command.Usage({
    description: 'Render a composition to a video file on this machine',
    details: `
      Renders \`<projectDir>/index.html\` (or the page \`--composition\` names) in headless Chromium,
      one browser per worker, and encodes it through the native core. The output file appears only
      when complete.

      Formats (\`--format\`): mp4 (H.264 yuv420p BT.709, default), webm (VP9 with alpha), mov
      (ProRes 4444 with alpha), hdr-pq and hdr-hlg (10-bit HEVC BT.2020 in MP4, SDR white at the
      HDR reference white). With webm and mov, the page is transparent where it draws no
      background. The \`--output\` extension must match the format: .webm for webm, .mov for
      mov, .mp4 for the others.

      Variables override the composition's declared defaults. A value of the wrong type is a
      warning, or an error with \`--strict-variables\`.

      Media the page references by http(s) URL are fetched once per render, from public addresses
      only (loopback, link-local and private ones need \`--allow-private-network\`), each at most
      \`--max-asset-bytes\`.
    `,
    examples: [
      ['Render the bundled example', '$0 render examples/ui-3d-reveal --output out/reveal.mp4'],
      ['Override variables', `$0 render my-video --variables '{"title":"Hello","accent":"#ff3366"}'`],
      ['Fail on a mistyped variable', '$0 render my-video --variables-file vars.json --strict-variables'],
    ],
  });

  static exitCodes = RENDER_EXIT_CODES;

  projectDir = Option.String({ required: true, name: 'projectDir' });
  composition = Option.String('--composition', {
    description: 'The page to render, a path in the project: a host page or a sub-composition file rendered on its own (default index.html; `vidkit compositions` lists them)',
  });
  output = Option.String('--output,-o', { description: 'Output file, with the extension of --format; default out/<composition id>.<ext>' });
  format = Option.String('--format', { description: `Output format: ${OUTPUT_FORMATS.join(', ')} (default mp4)` });
  workers = Option.String('--workers', 'auto', { description: 'Parallel browser sessions: a number, or "auto" (one per core, one more while the cores sit idle; limited by memory and frames)' });
  variables = Option.String('--variables', { description: 'JSON object of variable overrides' });
  variablesFile = Option.String('--variables-file', { description: 'File holding a JSON object of variable overrides' });
  strictVariables = Option.Boolean('--strict-variables', false, { description: 'Fail on undeclared or mistyped variables' });
  browserGpu = Option.Boolean('--browser-gpu', true, { description: 'Use the GPU when the probe finds one; --no-browser-gpu forces software GL' });
  docker = Option.Boolean('--docker', false, { description: 'Render inside the vidkit render image (cloud/image; built from Debian\'s archive when the engine lacks it)' });
  width = Option.String('--width', { description: 'Output width in pixels (keeps the aspect ratio; default data-width)' });
  height = Option.String('--height', { description: 'Output height in pixels (keeps the aspect ratio; default data-height)' });
  fps = Option.String('--fps', { description: "Frames per second; default the composition's data-fps, else 30" });
  quality = Option.String('--quality', { description: 'draft, standard (default) or high' });
  crf = Option.String('--crf', { description: 'x264 CRF 0-51, overriding --quality (lower is better)' });
  allowMissingMedia = Option.Boolean('--allow-missing-media', false, {
    description: 'A remote image or media file that cannot be fetched is a warning and a transparent placeholder instead of an error',
  });
  allowPrivateNetwork = Option.Boolean('--allow-private-network', false, {
    description: 'Remote assets may be fetched from loopback, link-local and private addresses (refused by default)',
  });
  maxAssetBytes = Option.String('--max-asset-bytes', { description: `Bytes one remote asset may have (default ${DEFAULT_MAX_ASSET_BYTES}, 512 MiB)` });
  seed = Option.String('--seed', { description: `Seeds Math.random, crypto.getRandomValues and crypto.randomUUID in the page (default "${DEFAULT_SEED}")` });
  epoch = Option.String('--epoch', { description: 'What Date reads at time 0: an ISO date (2024-01-01, 2024-01-01T12:00:00Z) or ms since 1970 (default 2024-01-01T00:00:00Z)' });
  capture = Option.String('--capture', 'auto', { description: 'auto (a probe; screenshot for a page with <video>), beginframe (headless shell) or screenshot' });
  loadTimeout = Option.String('--load-timeout', {
    description: `Seconds the page may take to load and become ready (default ${DEFAULT_TIMEOUTS.loadMs / 1000})`,
  });
  frameTimeout = Option.String('--frame-timeout', {
    description: `Seconds one frame may take to seek and draw before the render fails (default ${DEFAULT_TIMEOUTS.frameMs / 1000})`,
  });
  json = Option.Boolean('--json', false, { description: 'Print the result as JSON on stdout' });
  strict = Option.Boolean('--strict', false, { description: 'Run vidkit lint first and fail (exit 2) on its errors' });

  protected async run(): Promise<number> {
    const quality = qualitySettings(this.quality, this.crf);
    const format = parseOutputFormat(this.format);
    const workers = parseWorkers(this.workers);
    const fps = this.fps === undefined ? undefined : Number(this.fps);
    if (fps !== undefined && !(fps > 0 && fps <= 240)) throw badInput(`--fps must be a number above 0 and at most 240, got "${this.fps}"`);
    if (!CAPTURE_MODES.includes(this.capture)) throw badInput(`--capture must be one of ${CAPTURE_MODES.join(', ')}, got "${this.capture}"`);
    const maxAssetBytes = this.maxAssetBytes === undefined ? undefined : Number(this.maxAssetBytes);
    if (maxAssetBytes !== undefined && !(Number.isSafeInteger(maxAssetBytes) && maxAssetBytes > 0)) {
      throw badInput(`--max-asset-bytes must be a whole number of bytes above 0, got "${this.maxAssetBytes}"`);
    }
    const epochMs = this.epoch === undefined ? undefined : parseEpoch(this.epoch);
    if (this.epoch !== undefined && epochMs === undefined) throw badInput(`--epoch must be ${EPOCH_FORMS}, got "${this.epoch}"`);
    const overrides = parseOverrides({ json: this.variables, file: this.variablesFile }, (p) => fs.readFileSync(p, 'utf8'));

    if (this.strict) failOnLintErrors(this.projectDir, this.context.stderr);
    if (this.docker) return this.runInDocker(overrides);

    const timeouts = {
      loadMs: seconds('--load-timeout', this.loadTimeout, DEFAULT_TIMEOUTS.loadMs),
      frameMs: seconds('--frame-timeout', this.frameTimeout, DEFAULT_TIMEOUTS.frameMs),
    };
    const progress = frameProgress(this.context.stderr);
    const stopHandling = exitOnTermination(this.context.stderr, () => progress.stop());
    try {
      const result = await renderLocal({
        projectDir: this.projectDir,
        composition: this.composition,
        output: this.output,
        format,
        overrides,
        strictVariables: this.strictVariables,
        workers,
        fps,
        width: this.width === undefined ? undefined : Number(this.width),
        height: this.height === undefined ? undefined : Number(this.height),
        ...quality,
        allowGpu: this.browserGpu,
        capture: this.capture as CaptureMode | 'auto',
        allowMissingMedia: this.allowMissingMedia,
        allowPrivateNetwork: this.allowPrivateNetwork,
        maxAssetBytes,
        timeouts,
        seed: this.seed,
        epochMs,
        onWarning: (m) => this.warn(m),
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

  /** Hands the same options to `vidkit render` inside the image. */
  private runInDocker(overrides: Record<string, unknown>): number {
    const pass: string[] = ['--workers', this.workers, '--capture', this.capture, '--variables', JSON.stringify(overrides)];
    if (this.strictVariables) pass.push('--strict-variables');
    if (this.composition !== undefined) pass.push('--composition', this.composition);
    if (!this.browserGpu) pass.push('--no-browser-gpu');
    if (this.allowMissingMedia) pass.push('--allow-missing-media');
    if (this.allowPrivateNetwork) pass.push('--allow-private-network');
    if (this.maxAssetBytes !== undefined) pass.push('--max-asset-bytes', this.maxAssetBytes);
    if (this.fps !== undefined) pass.push('--fps', this.fps);
    if (this.width !== undefined) pass.push('--width', this.width);
    if (this.height !== undefined) pass.push('--height', this.height);
    if (this.quality !== undefined) pass.push('--quality', this.quality);
    if (this.crf !== undefined) pass.push('--crf', this.crf);
    if (this.loadTimeout !== undefined) pass.push('--load-timeout', this.loadTimeout);
    if (this.frameTimeout !== undefined) pass.push('--frame-timeout', this.frameTimeout);
    // Joined with `=`: a seed or epoch may begin with a dash.
    if (this.seed !== undefined) pass.push(`--seed=${this.seed}`);
    if (this.epoch !== undefined) pass.push(`--epoch=${this.epoch}`);
    if (this.json) pass.push('--json');
    const format = parseOutputFormat(this.format);
    pass.push('--format', format);
    const output = this.output ?? path.join('out', `${path.basename(path.resolve(this.projectDir))}${formatExtension(format)}`);
    return renderInDocker(this.projectDir, output, pass);
  }
}

/** A positive number of seconds as milliseconds, or `fallback` when the option is absent. */
function seconds(option: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!(n > 0 && n <= 3600)) throw badInput(`${option} must be a number of seconds above 0 and at most 3600, got "${value}"`);
  return n * 1000;
}
