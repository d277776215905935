import { spawnSync } from 'node:child_process';
import { built, tempDir } from './cli';

export interface ShellRun {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `script` (sh) with a small tmpfs mounted on a new directory for each entry of `disks`
 * (`{ T: '40m' }`: `$T` names a directory holding a 40 MiB tmpfs), in a user and mount namespace of
 * its own (no privilege needed; the mounts go with it, the machine's own are untouched).
 * `$VIDKIT` runs the CLI.
 */
export function withSmallDisks(disks: Record<string, string>, script: string, timeoutMs = 180_000): ShellRun {
  const dirs = Object.fromEntries(Object.keys(disks).map((name) => [name, tempDir(`vidkit-small-${name.toLowerCase()}-`)]));
  const mounts = Object.entries(disks).map(([name, size]) => `mount -t tmpfs -o size=${size} tmpfs "$${name}"`);
  const run = spawnSync('unshare', ['--user', '--map-root-user', '--mount', 'sh', '-c', `${mounts.join(' && ')}\n${script}`], {
    encoding: 'utf8',
    env: { ...process.env, ...dirs, VIDKIT: `${process.execPath} ${built('cli', 'main.js')}` },
    timeout: timeoutMs,
  });
  return { status: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

/**
 * A 160x90 canvas of new random noise in every animation frame: frames that cost the encoder
 * their full size, so a render fills a small disk quickly.
 */
export const NOISE = `<canvas id="noise" width="160" height="90" style="position:absolute;left:0;top:0"></canvas><script>
const context = document.getElementById('noise').getContext('2d');
const image = context.createImageData(160, 90);
const draw = () => {
  for (let i = 0; i < image.data.length; i++) image.data[i] = (i & 3) === 3 ? 255 : Math.random() * 256;
  context.putImageData(image, 0, 0);
  requestAnimationFrame(draw);
};
draw();
</script>`;
