import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './cli';
import { ImageConfig } from './render-image';

// The web templates' images without Docker or a platform: a root filesystem assembled from
// Debian's archive the way the template's recipe says (its base suite, its apt packages, its own
// install commands run inside it as root, with the network), cached layer by layer outside the
// repository like the render image's (cloud/image/debian-base.sh), then run under bubblewrap as an
// unprivileged user with a read-only root and only /tmp writable (render-image.ts's inImage).

const DEBIAN_BASE = path.join(REPO_ROOT, 'cloud', 'image', 'debian-base.sh');
const CACHE = process.env.VIDKIT_IMAGE_CACHE ?? '/var/tmp/vidkit-image-cache';

/** One step of a recipe, run in order as root inside the root filesystem. */
export type RecipeStep =
  /** apt-get install of these packages (--no-install-recommends), then the lists removed. */
  | { apt: string[] }
  /** A host file or directory copied in (a Dockerfile's COPY before the last RUN). */
  | { copy: string; to: string }
  /** A shell command, in `cwd` with `env`. */
  | { run: string; cwd: string; env: Record<string, string> };

export interface ImageRecipe {
  /** Names the cache entries (a new key replaces the entry of the same name). */
  name: string;
  /** The Debian suite of the base image (debian:<suite>-slim: mmdebstrap's minbase). */
  suite: string;
  steps: RecipeStep[];
  /** What the image runs with: its ENV, WORKDIR, CMD. */
  config: ImageConfig;
  /** The template's own files, [host, inside], bound read-only when it runs (COPY after the last RUN). */
  files: [string, string][];
}

const hash = (...parts: (string | Buffer)[]): string => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex').slice(0, 16);
};

/** A file's or a directory's content, for a cache key. */
function contentHash(file: string): string {
  if (!fs.statSync(file).isDirectory()) return hash(fs.readFileSync(file));
  const entries = fs.readdirSync(file, { recursive: true, encoding: 'utf8' }).sort();
  return hash(...entries.flatMap((e) => (fs.statSync(path.join(file, e)).isDirectory() ? [e] : [e, contentHash(path.join(file, e))])));
}

function stepKey(step: RecipeStep): string {
  if ('apt' in step) return JSON.stringify({ apt: [...step.apt].sort() });
  if ('copy' in step) return JSON.stringify({ copy: contentHash(step.copy), to: step.to });
  return JSON.stringify(step);
}

function sh(command: string, args: string[], what: string, timeoutMs = 30 * 60_000): string {
  const run = spawnSync(command, args, { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`${what} failed (${run.status ?? run.signal}):\n${run.stderr.slice(-6000)}${run.error ?? ''}`);
  return run.stdout;
}

/** Runs one step inside `root` as root, with this machine's network and DNS. */
function runStep(root: string, step: RecipeStep): void {
  if ('copy' in step) {
    const to = path.join(root, step.to);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.cpSync(step.copy, to, { recursive: true });
    return;
  }
  const command =
    'apt' in step
      ? `apt-get update -qq && apt-get install -y -qq --no-install-recommends ${step.apt.join(' ')} >/dev/null && rm -rf /var/lib/apt/lists/*`
      : step.run;
  const cwd = 'apt' in step ? '/' : step.cwd;
  const env = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/root', DEBIAN_FRONTEND: 'noninteractive', ...('apt' in step ? {} : step.env) };
  fs.mkdirSync(path.join(root, cwd), { recursive: true });
  // The packages npm fetches come through this machine's npm cache, and TLS trusts what this
  // machine trusts (the registries may be reached through a proxy with a certificate of its own).
  const npmCache = process.env.npm_config_cache ?? path.join(process.env.HOME ?? '/root', '.npm');
  fs.mkdirSync(npmCache, { recursive: true });
  const hostCa = '/etc/ssl/certs/ca-certificates.crt';
  const ca = fs.existsSync(hostCa) ? { npm_config_cafile: '/tmp/.host-ca.crt', PIP_CERT: '/tmp/.host-ca.crt', SSL_CERT_FILE: '/tmp/.host-ca.crt' } : {};
  const args = [
    // As a Docker build runs it: the image's own /tmp (a COPY may have put files there).
    ...['--bind', root, '/', '--proc', '/proc', '--dev', '/dev', '--ro-bind', '/etc/resolv.conf', '/etc/resolv.conf'],
    ...['--bind', npmCache, '/tmp/.host-npm-cache', ...(fs.existsSync(hostCa) ? ['--ro-bind', hostCa, '/tmp/.host-ca.crt'] : [])],
    ...['--cap-add', 'ALL', '--die-with-parent', '--clearenv', '--chdir', cwd],
    ...Object.entries({ ...env, ...ca, npm_config_cache: '/tmp/.host-npm-cache', npm_config_update_notifier: 'false', npm_config_fetch_retries: '1' }).flatMap(([k, v]) => ['--setenv', k, v]),
    '/bin/sh',
    '-ec',
    command,
  ];
  sh('bwrap', args, `${command} in ${root}`);
}

/**
 * The recipe's root filesystem, built once per machine and cached as a directory keyed by the base
 * and every step (a copied file by its content); the layers before each copy and after each apt
 * step are kept too, so new vidkit tarballs rebuild from what was installed before them. Cold:
 * minutes; warm: instant.
 */
export function buildImageRoot(recipe: ImageRecipe): string {
  const baseArgs = [`${recipe.suite}-slim`, recipe.suite, 'minbase'];
  // The base's path names its key; it is built only when a layer has to be built on it.
  const base = sh('bash', [DEBIAN_BASE, '--path-only', ...baseArgs], `debian-base.sh ${recipe.suite}`).trim();
  const mountPoints = recipe.files.map(([host, inside]) => [inside, fs.statSync(host).isDirectory()] as const);
  // Keyed by the base's own key (its suite, mirrors, packages), not where it lies.
  let key = hash(/-([0-9a-f]+)\.tar$/.exec(base)![1]);
  const layers = recipe.steps.map((step) => (key = hash(key, stepKey(step))));
  const finalKey = hash(key, JSON.stringify(mountPoints));
  // Kept layers (after an apt step, and before a copy, whose content changes with every vidkit
  // build) are named by their key alone, so recipes that begin alike share them.
  const kept = (i: number) => i < recipe.steps.length - 1 && ('apt' in recipe.steps[i] || 'copy' in recipe.steps[i + 1]);
  const layer = (i: number) => path.join(CACHE, `layer-${recipe.suite}-${layers[i]}`);
  const final = path.join(CACHE, `image-${recipe.name}-${finalKey}`);
  if (fs.existsSync(final)) return final;
  let from = recipe.steps.length;
  while (from > 0 && !(kept(from - 1) && fs.existsSync(layer(from - 1)))) from--;
  const work = `${final}.partial`;
  fs.rmSync(work, { recursive: true, force: true });
  if (from > 0) sh('cp', ['-a', layer(from - 1), work], 'copying a layer');
  else {
    sh('bash', [DEBIAN_BASE, ...baseArgs], `debian-base.sh ${recipe.suite}`);
    fs.mkdirSync(work, { recursive: true });
    // /dev comes from bubblewrap; its device nodes need not be unpacked.
    sh('tar', ['-C', work, '--exclude=./dev/*', '-xf', base], `unpacking ${base}`);
  }
  for (let i = from; i < recipe.steps.length; i++) {
    runStep(work, recipe.steps[i]);
    if (kept(i) && !fs.existsSync(layer(i))) {
      // A copy: the build goes on in `work`.
      sh('cp', ['-a', work, `${layer(i)}.partial`], 'keeping a layer');
      fs.renameSync(`${layer(i)}.partial`, layer(i));
    }
  }
  // The template's files are bound over these when it runs: a read-only root cannot grow them.
  for (const [inside, isDir] of mountPoints) {
    const at = path.join(work, inside);
    fs.mkdirSync(isDir ? at : path.dirname(at), { recursive: true });
    if (!isDir) fs.writeFileSync(at, '');
  }
  sh('chmod', ['-R', 'a+rX', work], 'making the root readable');
  fs.renameSync(work, final);
  // An earlier build of this recipe goes.
  for (const entry of fs.readdirSync(CACHE)) {
    if (entry.startsWith(`image-${recipe.name}-`) && entry !== path.basename(final)) fs.rmSync(path.join(CACHE, entry), { recursive: true, force: true });
  }
  return final;
}

/** A Dockerfile's instructions, continuation lines joined, comments dropped. */
function dockerfileInstructions(file: string): [string, string][] {
  const logical = fs.readFileSync(file, 'utf8').replace(/\\\n/g, ' ').split('\n');
  return logical.flatMap((line) => {
    const m = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    return m && !line.trim().startsWith('#') ? [[m[1], m[2].trim()] as [string, string]] : [];
  });
}

/**
 * A one-stage Dockerfile FROM debian:<suite>-slim as a recipe: its apt-get install RUN as an apt
 * step, the other RUNs as commands, COPY before the last RUN copied in, COPY after it bound when it
 * runs; ENV, WORKDIR and CMD as its configuration. `context` is the build context.
 */
export function dockerfileRecipe(name: string, file: string, context: string): ImageRecipe {
  const instructions = dockerfileInstructions(file);
  const lastRun = instructions.map(([op]) => op).lastIndexOf('RUN');
  const config: ImageConfig = { env: {}, workdir: '/', entrypoint: [], cmd: [] };
  const recipe: ImageRecipe = { name, suite: '', steps: [], config, files: [] };
  instructions.forEach(([op, rest], i) => {
    if (op === 'FROM') {
      const m = /^debian:([a-z]+)-slim$/.exec(rest);
      if (!m) throw new Error(`${file}: FROM ${rest} is not a debian:<suite>-slim image`);
      recipe.suite = m[1];
    } else if (op === 'RUN') {
      const apt = /apt-get install -y --no-install-recommends (.*?) &&/.exec(rest);
      recipe.steps.push(apt ? { apt: apt[1].trim().split(/\s+/) } : { run: rest, cwd: config.workdir, env: { ...config.env } });
    } else if (op === 'COPY') {
      const [src, dest] = rest.split(/\s+/);
      const inside = path.posix.resolve(config.workdir, dest.endsWith('/') ? path.posix.join(dest, path.basename(src)) : dest);
      if (i < lastRun) recipe.steps.push({ copy: path.join(context, src), to: inside });
      else recipe.files.push([path.join(context, src), inside]);
    } else if (op === 'ENV') {
      for (const [, k, v] of rest.matchAll(/(\w+)=(\S+)/g)) config.env[k] = v;
    } else if (op === 'WORKDIR') {
      config.workdir = path.posix.resolve(config.workdir, rest);
    } else if (op === 'CMD') {
      config.cmd = JSON.parse(rest);
    }
  });
  return recipe;
}
