// Prepares the sandbox snapshot at build time: a microVM with the headless browser, the encoder's
// libraries and the vidkit CLI installed, saved so each render restores it instead of installing.
// Writes lib/snapshot.generated.json, which the render route reads.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'lib', 'snapshot.generated.json');
const write = (snapshotId) => writeFileSync(out, `${JSON.stringify({ snapshotId })}\n`);

// The sandbox image is Amazon Linux 2023 with Node 22; vidkit finds the browser via VIDKIT_BROWSER.
const INSTALL = [
  ['sudo', ['dnf', 'install', '-y', 'nss', 'atk', 'at-spi2-atk', 'cups-libs', 'libdrm', 'libxkbcommon', 'mesa-libgbm', 'alsa-lib', 'pango', 'liberation-sans-fonts', 'dejavu-sans-fonts']],
  ['npx', ['--yes', '@puppeteer/browsers', 'install', 'chrome-headless-shell@stable', '--path', '/vercel/sandbox/browser']],
  ['sh', ['-c', 'sudo ln -sf "$(ls -d /vercel/sandbox/browser/chrome-headless-shell/*/chrome-headless-shell-linux64/chrome-headless-shell)" /usr/local/bin/chromium-headless-shell']],
  ['sudo', ['npm', 'install', '-g', 'vidkit']],
  ['vidkit', ['--version']],
];

async function main() {
  if (process.env.VIDKIT_ADAPTERS === 'local') return write(null);
  if (process.env.SANDBOX_SNAPSHOT_ID) return write(process.env.SANDBOX_SNAPSHOT_ID);
  const { Sandbox } = await import('@vercel/sandbox');
  const sandbox = await Sandbox.create({ runtime: 'node22', resources: { vcpus: 4 }, timeout: 20 * 60 * 1000 });
  for (const [cmd, args] of INSTALL) {
    const done = await sandbox.runCommand({ cmd, args, env: { VIDKIT_BROWSER: '/usr/local/bin/chromium-headless-shell' } });
    if (done.exitCode !== 0) {
      await sandbox.stop();
      throw new Error(`${cmd} ${args.join(' ')} failed (exit ${done.exitCode}): ${(await done.stderr()).trim().split('\n').pop()}`);
    }
  }
  const snapshot = await sandbox.snapshot({ expiration: 0 });
  write(snapshot.snapshotId);
  console.error(`prepare-snapshot: snapshot ${snapshot.snapshotId}`);
}

main().catch((err) => {
  console.error(`prepare-snapshot: error: ${err.message}`);
  process.exit(1);
});
