// `npm run pack`: the installable tarballs in dist-pack/ (or the directory given as the argument):
// vidkit itself, and each per-platform addon package it names in optionalDependencies (napi-rs
// layout: npm/<platform>/, carrying native/<binaryName>.<platform>.node, packed from a temporary
// copy of that directory). `npm run pack` builds first; this script packs what is built. Prints
// one line per tarball: file, bytes, files in it.
//
// VIDKIT_PACK_CACHE=<dir> (the test suite sets it for its run, which packs the same checkout in
// setup and in five test files): the tarballs are copied from <dir> when they were packed there
// before from the same inputs, and put there when packed. The key is the content of every file
// npm could pack (the checkout's top-level files, each folder the files list names, the platform
// folders and the addon) and npm's version; packing them takes npm seconds, hashing them does not.
import { createHash } from 'node:crypto';
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
  const line = `${path.join(outDir, info.filename)}\t${info.size} bytes\t${info.entryCount} files\n`;
  process.stdout.write(line);
  return line;
}

/** What the cached tarballs' printed lines say in place of the directory they are copied to. */
const CACHED_DIR = '<pack-dir>';
/** The file in a cache entry that keeps the lines printed when it was packed. */
const PRINTED = 'printed.txt';

/** The cache key: npm's version and the content of every file a tarball could take. */
function packKey() {
  const hash = createHash('sha256');
  const add = (file) => {
    const stat = fs.statSync(file);
    hash.update(`${path.relative(root, file)}\0${stat.isDirectory() ? 'dir' : stat.mode & 0o111 ? 'exec' : 'file'}\0`);
    if (stat.isDirectory()) for (const entry of fs.readdirSync(file).sort()) add(path.join(file, entry));
    else hash.update(fs.readFileSync(file));
  };
  hash.update(execFileSync('npm', ['--version'], { encoding: 'utf8' }));
  for (const entry of fs.readdirSync(root, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.isFile()) add(path.join(root, entry.name));
  }
  const folders = new Set((manifest.files ?? []).map((pattern) => pattern.split('/')[0]));
  for (const folder of [...folders].sort()) if (fs.existsSync(path.join(root, folder))) add(path.join(root, folder));
  for (const { dir, built } of platforms) {
    add(dir);
    add(built);
  }
  return hash.digest('hex');
}

const manifest = readJson(path.join(root, 'package.json'));
for (const built of ['dist/index.js', 'dist/cli/main.js', 'dist/player/vidkit-player.js', 'dist/player/vidkit-player.d.ts']) {
  if (!fs.existsSync(path.join(root, built))) fail(`${built} is missing: run \`npm run build\` first`);
}
const natives = Object.entries(manifest.optionalDependencies ?? {});
if (natives.length === 0) fail('package.json names no @vidkit/native-* package in optionalDependencies');

// Each platform package, checked before anything is packed or hashed.
const platforms = natives.map(([name, range]) => {
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
  return { platform, dir, binary, built };
});

/** Packs every platform package and vidkit into outDir; returns the lines printed. */
function packAll() {
  fs.mkdirSync(outDir);
  const printed = [];
  for (const { platform, dir, binary, built } of platforms) {
    // Packed from a copy of its directory, so two packs at once (a template deploy beside the
    // package test) never see each other's binary come and go.
    const staged = fs.mkdtempSync(path.join(os.tmpdir(), `vidkit-pack-${platform}-`));
    try {
      fs.cpSync(dir, staged, { recursive: true });
      fs.copyFileSync(built, path.join(staged, binary));
      printed.push(pack(staged));
    } finally {
      fs.rmSync(staged, { recursive: true, force: true });
    }
  }
  printed.push(pack(root));
  return printed.join('');
}

/**
 * Keeps outDir's tarballs as cache entry `entry`: written beside it, then renamed into place, so a
 * pack running at the same time never copies a half-written entry, and the second of two to
 * finish keeps the first's.
 */
function keep(entry, printed) {
  fs.mkdirSync(cacheRoot, { recursive: true });
  const staging = fs.mkdtempSync(`${entry}.`);
  fs.cpSync(outDir, staging, { recursive: true });
  fs.writeFileSync(path.join(staging, PRINTED), printed.replaceAll(outDir, CACHED_DIR));
  try {
    fs.renameSync(staging, entry);
  } catch {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** Copies cache entry `entry` to outDir and prints the lines its pack printed. */
function restore(entry) {
  fs.cpSync(entry, outDir, { recursive: true });
  const lines = fs.readFileSync(path.join(outDir, PRINTED), 'utf8');
  fs.rmSync(path.join(outDir, PRINTED));
  process.stdout.write(lines.replaceAll(CACHED_DIR, outDir));
}

const cacheRoot = process.env.VIDKIT_PACK_CACHE;
const cached = cacheRoot && path.join(cacheRoot, packKey());
fs.rmSync(outDir, { recursive: true, force: true });
if (cached && fs.existsSync(cached)) restore(cached);
else {
  const printed = packAll();
  if (cached) keep(cached, printed);
}
