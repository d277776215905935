// Prepares the sandbox snapshot at build time: a microVM with the headless browser, the encoder's
// libraries and the vidkit CLI installed, saved so each render restores it instead of installing.
// vidkit is installed from the tarballs in vidkit-pack/ (put there by `npm run deploy`, deployed
// with this folder), uploaded into the sandbox: never from the registry unless vidkit-pack/ holds
// the registry's tarballs (VIDKIT_VERSION). Writes lib/snapshot.generated.json, which the render
// route reads.
//   node scripts/prepare-snapshot.mjs          creates the snapshot (needs Vercel Sandbox access)
//   node scripts/prepare-snapshot.mjs --plan   prints what it would upload and run, as JSON
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'lib', 'snapshot.generated.json');
const write = (snapshotId) => writeFileSync(out, `${JSON.stringify({ snapshotId })}\n`);

const PACK_DIR = path.join(root, 'vidkit-pack');
const SANDBOX_PACK_DIR = '/vercel/sandbox/vidkit-pack';
// Where the browser is linked; the render route passes it as VIDKIT_BROWSER.
const BROWSER = '/usr/local/bin/chromium-headless-shell';

/** The snapshot's plan: the tarballs to upload and the commands to run, in order. */
export function snapshotPlan() {
  let tarballs;
  try {
    tarballs = readdirSync(PACK_DIR).filter((f) => f.endsWith('.tgz')).sort();
  } catch {
    tarballs = [];
  }
  if (!tarballs.includes('vidkit.tgz')) throw new Error(`no vidkit.tgz in ${PACK_DIR}: run \`npm run deploy\` (it packs vidkit there), or \`node ../vidkit-pack.mjs vidkit-pack\``);
  const uploads = tarballs.map((f) => ({ from: path.join(PACK_DIR, f), path: `${SANDBOX_PACK_DIR}/${f}` }));
  // The sandbox image is Amazon Linux 2023 with Node 22; vidkit finds the browser via VIDKIT_BROWSER.
  const commands = [
    ['sudo', ['dnf', 'install', '-y', 'nss', 'atk', 'at-spi2-atk', 'cups-libs', 'libdrm', 'libxkbcommon', 'mesa-libgbm', 'alsa-lib', 'pango', 'liberation-sans-fonts', 'dejavu-sans-fonts']],
    ['npx', ['--yes', '@puppeteer/browsers', 'install', 'chrome-headless-shell@stable', '--path', '/vercel/sandbox/browser']],
    ['sh', ['-c', `sudo ln -sf "$(ls -d /vercel/sandbox/browser/chrome-headless-shell/*/chrome-headless-shell-linux64/chrome-headless-shell)" ${BROWSER}`]],
    ['sudo', ['npm', 'install', '-g', '--no-audit', '--no-fund', ...uploads.map((u) => u.path)]],
    ['vidkit', ['--version']],
  ].map(([cmd, args]) => ({ cmd, args }));
  return { uploads, commands, env: { VIDKIT_BROWSER: BROWSER } };
}

async function main() {
  if (process.argv[2] === '--plan') return console.log(JSON.stringify(snapshotPlan(), null, 2));
  if (process.env.VIDKIT_ADAPTERS === 'local') return write(null);
  if (process.env.SANDBOX_SNAPSHOT_ID) return write(process.env.SANDBOX_SNAPSHOT_ID);
  const plan = snapshotPlan();
  const { Sandbox } = await import('@vercel/sandbox');
  const sandbox = await Sandbox.create({ runtime: 'node22', resources: { vcpus: 4 }, timeout: 20 * 60 * 1000 });
  try {
    await sandbox.writeFiles(plan.uploads.map((u) => ({ path: u.path, content: readFileSync(u.from) })));
    for (const { cmd, args } of plan.commands) {
      const done = await sandbox.runCommand({ cmd, args, env: plan.env });
      if (done.exitCode !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${done.exitCode}): ${(await done.stderr()).trim().split('\n').pop()}`);
    }
    const snapshot = await sandbox.snapshot({ expiration: 0 });
    write(snapshot.snapshotId);
    console.error(`prepare-snapshot: snapshot ${snapshot.snapshotId}`);
  } catch (err) {
    await sandbox.stop();
    throw err;
  }
}

main().catch((err) => {
  console.error(`prepare-snapshot: error: ${err.message}`);
  process.exit(1);
});
