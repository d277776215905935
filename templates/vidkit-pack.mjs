// Fills a template's build context with the vidkit it deploys, as npm tarballs:
//   node templates/vidkit-pack.mjs <dir> [--assets <playerFile> <compositionsDir>]
// - by default, packed from the vidkit checkout this template lives in (`npm run pack` there: it
//   builds, then packs vidkit and its native addon package);
// - VIDKIT_BUILT=1: the checkout is built already, pack only (scripts/setup.sh, the tests);
// - VIDKIT_VERSION=<version>: vidkit <version> and its addon package as published on the npm
//   registry, once vidkit is there (the one setting that switches a deploy to the registry).
// <dir> is emptied first and ends with vidkit.tgz and vidkit-native-linux-x64-gnu.tgz (stable
// names, so recipes and package.json name them without a version). Prints one line per tarball.
// --assets: then installs the player, the bundled composition and the request contracts from that
// same vidkit (dist/template-assets.js: the checkout's, or the registry version's).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const checkout = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NATIVE = 'vidkit-native-linux-x64-gnu';

function fail(message) {
  console.error(`vidkit-pack: error: ${message}`);
  process.exit(1);
}

const [dir, ...rest] = process.argv.slice(2);
const assets = rest[0] === '--assets' ? rest.slice(1) : undefined;
if (!dir || (rest.length > 0 && assets?.length !== 2)) fail('usage: node vidkit-pack.mjs <dir> [--assets <playerFile> <compositionsDir>]');
const out = path.resolve(dir);
const version = process.env.VIDKIT_VERSION;
// The command's own error output is shown as it runs; a failure ends here, naming the command.
function run(cmd, args, cwd) {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  } catch (err) {
    fail(`${[cmd, ...args].join(' ')} failed (${err.status ?? err.code})${version ? `: is vidkit ${version} on the npm registry?` : ''}`);
  }
}
const npmQuiet = ['--no-audit', '--no-fund', '--silent'];

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
if (version) {
  // npm pack of a registry spec fetches the published tarball.
  for (const spec of [`vidkit@${version}`, `@vidkit/native-linux-x64-gnu@${version}`]) run('npm', ['pack', spec, '--pack-destination', out], out);
} else {
  if (!fs.existsSync(path.join(checkout, 'scripts', 'pack.mjs'))) {
    fail(`${checkout} is not a vidkit checkout: set VIDKIT_VERSION=<version> to deploy vidkit from the npm registry`);
  }
  // `npm run pack` prints npm's banner on stdout: the tarball lines go to ours.
  if (process.env.VIDKIT_BUILT === '1') run(process.execPath, [path.join(checkout, 'scripts', 'pack.mjs'), out], checkout);
  else run('npm', ['run', '--silent', 'pack', '--', out], checkout);
}
for (const file of fs.readdirSync(out)) {
  const stable = file.startsWith(`${NATIVE}-`) ? `${NATIVE}.tgz` : /^vidkit-\d/.test(file) ? 'vidkit.tgz' : undefined;
  if (!stable) fail(`unexpected file ${file} in ${out}`);
  fs.renameSync(path.join(out, file), path.join(out, stable));
  console.log(`${path.join(out, stable)}\t${fs.statSync(path.join(out, stable)).size} bytes`);
}
for (const wanted of ['vidkit.tgz', `${NATIVE}.tgz`]) if (!fs.existsSync(path.join(out, wanted))) fail(`no ${wanted} in ${out}`);

if (assets) {
  const [playerFile, compositionsDir] = assets.map((a) => path.resolve(a));
  if (!version) {
    run(process.execPath, [path.join(checkout, 'dist', 'template-assets.js'), playerFile, compositionsDir], checkout);
  } else {
    // The registry version's own assets, from a throw-away install of its tarball.
    const prefix = fs.mkdtempSync(path.join(out, '..', '.vidkit-assets-'));
    try {
      run('npm', ['install', ...npmQuiet, '--omit=optional', '--prefix', prefix, path.join(out, 'vidkit.tgz')], prefix);
      run(process.execPath, [path.join(prefix, 'node_modules', 'vidkit', 'dist', 'template-assets.js'), playerFile, compositionsDir], prefix);
    } finally {
      fs.rmSync(prefix, { recursive: true, force: true });
    }
  }
}
