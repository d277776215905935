import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Command, Option } from 'clipanion';
import { ExitCode } from '../errors';
import { render } from '../index';
import { cliOption } from '../options/cli-options';
import { RawOptions, resolveRenderSettings } from '../options/resolve';
import { PACKAGE_ROOT } from '../package-info';
import { trackPath, untrackPath } from '../render/browser/leftovers';
import { QUALITIES } from '../values/constants';
import { VidkitCommand } from './base-command';
import { frameProgress } from './progress';
import { RENDER_EXIT_CODES } from './render-command';
import { exitOnTermination } from './termination';

/** The composition every vidkit carries (package.json "files"): 1920x1080, 6 s at 30 fps, CSS 3D. */
export const BENCHMARK_PROJECT = path.join(PACKAGE_ROOT, 'examples', 'ui-3d-reveal');

export class BenchmarkCommand extends VidkitCommand {
  static paths = [['benchmark']];

  static usage = Command.Usage({
    description: 'Render the bundled example and report the speed of this machine',
    details: `
      Renders the bundled example (examples/ui-3d-reveal, 1920x1080, 180 frames) as \`vidkit render\`
      would, into a temporary file that is removed afterwards, and prints the frames, seconds,
      frames per second, the workers \`--workers\` chose, the capture mode and GL. Progress and the
      render's own lines go to stderr.
    `,
    examples: [
      ['Benchmark this machine', '$0 benchmark'],
      ['Smaller and as JSON', '$0 benchmark --width 640 --json'],
    ],
  });

  static exitCodes = RENDER_EXIT_CODES;

  workers = cliOption('workers', { description: 'Parallel browser sessions: a number, or "auto" as for vidkit render' });
  width = cliOption('width', { description: 'Output width in pixels (keeps the aspect ratio; default 1920)' });
  quality = cliOption('quality', { description: `${QUALITIES.join(', ')} (default standard)` });
  json = Option.Boolean('--json', false, { description: 'Print {composition, width, height, frames, seconds, fps, workers, capture, gl} on stdout' });

  protected async run(): Promise<number> {
    // Read as vidkit render reads them: bad input fails before any browser starts.
    const { workers, values } = resolveRenderSettings('cli', this as RawOptions);
    const progress = frameProgress(this.context.stderr);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-benchmark-'));
    trackPath(dir);
    const stopHandling = exitOnTermination(this.context.stderr, () => progress.stop());
    try {
      const result = await render({
        projectDir: BENCHMARK_PROJECT,
        output: path.join(dir, 'benchmark.mp4'),
        workers,
        width: values.width,
        quality: values.quality,
        onWarning: (m) => this.warn(m),
        onInfo: (m) => this.log(m),
        onStart: ({ totalFrames }) => progress.start(totalFrames),
        onFrame: () => progress.frame(),
      });
      progress.stop();
      const report = {
        composition: result.compositionId,
        width: result.width,
        height: result.height,
        frames: result.frames,
        seconds: Number(result.wallSeconds.toFixed(2)),
        fps: Number((result.frames / result.wallSeconds).toFixed(2)),
        workers: result.workers,
        capture: result.capture,
        gl: result.gl,
      };
      if (this.json) {
        this.context.stdout.write(`${JSON.stringify(report)}\n`);
      } else {
        this.context.stdout.write(
          `${report.composition} ${report.width}x${report.height}: ${report.frames} frames in ${report.seconds} s, ${report.fps} fps, ` +
            `${report.workers} worker${report.workers === 1 ? '' : 's'} (${this.workers}), ${report.capture} capture, ${report.gl} GL\n`,
        );
      }
      return ExitCode.Ok;
    } finally {
      progress.stop();
      stopHandling();
      fs.rmSync(dir, { recursive: true, force: true });
      untrackPath(dir);
    }
  }
}
