// `npm run pack`: the installable tarballs in dist-pack/ (or the directory given as the argument):
// vidkit itself, and each per-platform addon package it names in optionalDependencies (napi-rs
// layout: npm/<platform>/, carrying native/<binaryName>.<platform>.node, packed from a temporary
// copy of that directory). `npm run pack` builds first; this script packs what is built. Prints
// one line per tarball: file, bytes, files in it.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.resolve(process.argv[2] ?? path.join(root, 'dist-pack'));
const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

function fail(message) {
  console.error(`pack: error: ${message}`);
  process.exit(1);
}

/** `npm pack` of one package directory into dist-pack/; what npm reports of the tarball. */
function pack(dir) {
  const out = execFileSync('npm', ['pack', dir, '--pack-destination', outDir, '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [info] = JSON.parse(out);
  console.log(`${path.join(outDir, info.filename)}\t${info.size} bytes\t${info.entryCount} files`);
}

const manifest = readJson(path.join(root, 'package.json'));
for (const built of ['dist/index.js', 'dist/cli/main.js', 'dist/player/vidkit-player.js', 'dist/player/vidkit-player.d.ts']) {
  if (!fs.existsSync(path.join(root, built))) fail(`${built} is missing: run \`npm run build\` first`);
}
const natives = Object.entries(manifest.optionalDependencies ?? {});
if (natives.length === 0) fail('package.json names no @vidkit/native-* package in optionalDependencies');

fs.rmSync(outDir, { recursive: true, force: true });
fs.mkdirSync(outDir);
for (const [name, range] of natives) {
  const platform = name.replace('@vidkit/native-', '');
  const dir = path.join(root, 'npm', platform);
  const native = readJson(path.join(dir, 'package.json'));
  // npm resolves the optional dependency by exact version: a mismatch would install nothing.
  if (native.name !== name || native.version !== manifest.version || range !== manifest.version) {
    fail(`${name}@${range} in optionalDependencies and npm/${platform} (${native.name}@${native.version}) must both be vidkit's version ${manifest.version}`);
  }
  const binary = `${manifest.napi.binaryName}.${platform}.node`;
  const built = path.join(root, 'native', binary);
  if (!fs.existsSync(built)) fail(`${built} is missing: run \`npm run build:native\` on ${platform} first`);
  // Packed from a copy of its directory, so two packs at once (a template deploy beside the
  // package test) never see each other's binary come and go.
  const staged = fs.mkdtempSync(path.join(os.tmpdir(), `vidkit-pack-${platform}-`));
  try {
    fs.cpSync(dir, staged, { recursive: true });
    fs.copyFileSync(built, path.join(staged, binary));
    pack(staged);
  } finally {
    fs.rmSync(staged, { recursive: true, force: true });
  }
}
pack(root);
