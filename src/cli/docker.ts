import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ExitCode, VidkitError } from '../errors';
import { PACKAGE_ROOT as REPO_ROOT, VERSION } from '../package-info';
import { flagOf } from '../options/registry';

export const DOCKERFILE = path.join(REPO_ROOT, 'cloud', 'image', 'Dockerfile');
export const BUILD_ROOTFS = path.join(REPO_ROOT, 'cloud', 'image', 'build-rootfs.sh');
const IMAGE = `vidkit-render:${VERSION}`;

/** Fails with a clear message unless a Docker engine answers. */
export function requireDockerEngine(): void {
  const info = spawnSync('docker', ['info', '--format={{.ServerVersion}}'], { encoding: 'utf8', timeout: 15_000 });
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
 * Builds the image's `render` target: the root filesystem from cloud/image/build-rootfs.sh (Debian's
 * archive, no base image pulled) is the build context of cloud/image/Dockerfile.
 */
function buildImage(): void {
  if (!fs.existsSync(BUILD_ROOTFS)) {
    throw new VidkitError(
      `--docker: this Docker engine has no image ${IMAGE}, and building it needs a vidkit checkout (cloud/image/build-rootfs.sh; docs/guide/cloud.md): build it there, or load it into this engine`,
      { exitCode: ExitCode.MissingDependency },
    );
  }
  const context = fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-image-'));
  try {
    const rootfs = spawnSync('bash', [BUILD_ROOTFS, path.join(context, 'rootfs.tar')], { stdio: ['ignore', 2, 2] });
    if (rootfs.status !== 0) throw new VidkitError(`--docker: building the root filesystem of ${IMAGE} with ${BUILD_ROOTFS} failed (its error is above)`);
    const build = spawnSync('docker', ['build', '--target', 'render', '-t', IMAGE, '-f', DOCKERFILE, context], { stdio: ['ignore', 2, 2] });
    if (build.status !== 0) throw new VidkitError(`--docker: building ${IMAGE} from ${DOCKERFILE} failed`);
  } finally {
    fs.rmSync(context, { recursive: true, force: true });
  }
}

/**
 * Runs the same `vidkit render` inside the render image (built first if this engine lacks it), with
 * the project mounted read-only and the output directory mounted for writing. Returns the exit code.
 */
export function renderInDocker(projectDir: string, output: string, passThrough: string[]): number {
  requireDockerEngine();
  if (spawnSync('docker', ['image', 'inspect', IMAGE], { stdio: 'ignore' }).status !== 0) buildImage();
  const outDir = path.dirname(path.resolve(output));
  const args = [
    'run', '--rm', '--init',
    '-u', `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`,
    '-v', `${path.resolve(projectDir)}:/project:ro`,
    '-v', `${outDir}:/out`,
    IMAGE, 'render', '/project', flagOf('output'), `/out/${path.basename(output)}`, ...passThrough,
  ];
  return spawnSync('docker', args, { stdio: ['ignore', 1, 2] }).status ?? ExitCode.RenderFailed;
}
