import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { ExitCode, VidkitError } from '../errors';
import { PACKAGE_ROOT as REPO_ROOT, VERSION } from '../package-info';

export const DOCKERFILE = path.join(REPO_ROOT, 'cloud', 'image', 'Dockerfile');
const IMAGE = `vidkit-render:${VERSION}`;

/** Fails with a clear message unless a Docker engine answers. */
export function requireDockerEngine(): void {
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 15_000 });
  if (info.error && (info.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new VidkitError('--docker: the docker command is not installed; install Docker or render without --docker', {
      exitCode: ExitCode.MissingDependency,
    });
  }
  if (info.status !== 0) {
    const why = (info.stderr || info.stdout || '').trim().split('\n').filter(Boolean).pop() ?? 'no answer';
    throw new VidkitError(
      `--docker: no Docker engine is reachable (${why}); start the Docker daemon or set DOCKER_HOST, or render without --docker`,
      { exitCode: ExitCode.MissingDependency },
    );
  }
}

/**
 * Runs the same `vidkit render` inside the image built from cloud/image/Dockerfile, with the
 * project mounted read-only and the output directory mounted for writing. Returns the exit code.
 */
export function renderInDocker(projectDir: string, output: string, passThrough: string[]): number {
  requireDockerEngine();
  const haveImage = spawnSync('docker', ['image', 'inspect', IMAGE], { stdio: 'ignore' }).status === 0;
  if (!haveImage) {
    const build = spawnSync('docker', ['build', '-t', IMAGE, '-f', DOCKERFILE, REPO_ROOT], { stdio: ['ignore', 2, 2] });
    if (build.status !== 0) throw new VidkitError(`--docker: building ${IMAGE} from ${DOCKERFILE} failed`);
  }
  const outDir = path.dirname(path.resolve(output));
  const args = [
    'run', '--rm', '--init',
    '-u', `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`,
    '-v', `${path.resolve(projectDir)}:/project:ro`,
    '-v', `${outDir}:/out`,
    IMAGE, 'render', '/project', '--output', `/out/${path.basename(output)}`, ...passThrough,
  ];
  return spawnSync('docker', args, { stdio: ['ignore', 1, 2] }).status ?? ExitCode.RenderFailed;
}
