// Stages one HyperFrames producer fixture so that both tools render the same bytes without the
// network: scripts named by CDN URL come from the same package versions on npm, Google Fonts from
// the @fontsource packages of the same families, remote media and the fixture's Git LFS files
// (absent from a checkout, which holds their pointers) from ffmpeg's test sources.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Fixture } from './fixture-meta';

export interface StagedFixture {
  /** The project both tools render (the fixture's src/, staged). */
  project: string;
  /** What staging replaced, and remote addresses left as they are (neither tool reaches them here). */
  notes: string[];
}

/** A fixture that cannot be staged faithfully; the run lists it with this reason. */
export class StageError extends Error {}

/** Where the staged files land in a project: the same for every page, named relative to each. */
const VENDOR = '_vendor';
const FONTS = '_fonts';
const MEDIA = '_media';

/**
 * Stages `fixture` under `dir` (its src/ and the files beside it, as the peer's harness lays them
 * out; symbolic links are copied as the files they point to, since the peer renders a copy of the
 * project). `cache` keeps the stand-in media between fixtures.
 */
export function stageFixture(root: string, fixture: Fixture, dir: string, cache: string): StagedFixture {
  const base = path.join(dir, fixture.id);
  fs.rmSync(base, { recursive: true, force: true });
  fs.mkdirSync(base, { recursive: true });
  for (const entry of fs.readdirSync(fixture.dir)) {
    if (['output', 'meta.json', 'failures'].includes(entry)) continue;
    fs.cpSync(path.join(fixture.dir, entry), path.join(base, entry), { recursive: true, dereference: true });
  }
  const project = path.join(base, 'src');
  const stager = new Stager(root, project, cache);
  const files = fs.readdirSync(project, { recursive: true, encoding: 'utf8' }).map((f) => path.join(project, f));
  for (const file of files) if (isLfsPointer(file)) stager.lfsStandIn(file);
  for (const file of files.filter((f) => /\.(html?|css|js|mjs)$/.test(f))) {
    const text = fs.readFileSync(file, 'utf8');
    const staged = stager.rewrite(file, text);
    if (staged !== text) fs.writeFileSync(file, staged);
  }
  return { project, notes: stager.notes() };
}

const LFS_HEAD = 'version https://git-lfs.github.com/spec/';

function isLfsPointer(file: string): boolean {
  if (!fs.statSync(file).isFile()) return false;
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(LFS_HEAD.length);
    fs.readSync(fd, head, 0, head.length, 0);
    return head.toString('latin1') === LFS_HEAD;
  } finally {
    fs.closeSync(fd);
  }
}

/** cdnjs names a library, not its npm package: the package and the folder of it that cdnjs serves. */
const CDNJS: Record<string, { pkg: string; folder: string }> = {
  gsap: { pkg: 'gsap', folder: 'dist' },
  bodymovin: { pkg: 'lottie-web', folder: 'build/player' },
};

const CDN_URL = /https:\/\/(?:cdn\.jsdelivr\.net\/npm|unpkg\.com|cdnjs\.cloudflare\.com\/ajax\/libs)\/[^\s"'()<>]+/g;
const GOOGLE_CSS = /https:\/\/fonts\.googleapis\.com\/css2?\?[^\s"'()<>]+/;
const MEDIA_URL = /https?:\/\/[^\s"'()<>]+?\.(mp4|webm|mov|m4v|mp3|wav|m4a|aac|ogg|png|jpe?g|gif|webp|svg)(?:\?[^\s"'()<>]*)?(?=["')\s<>])/gi;

type MediaKind = 'video' | 'audio' | 'image' | 'svg';
const KIND: Record<string, MediaKind> = {
  mp4: 'video', webm: 'video', mov: 'video', m4v: 'video',
  mp3: 'audio', wav: 'audio', m4a: 'audio', aac: 'audio', ogg: 'audio',
  png: 'image', jpg: 'image', jpeg: 'image', gif: 'image', webp: 'image',
  svg: 'svg',
};

class Stager {
  private readonly vendored = new Set<string>();
  private readonly fonts = new Set<string>();
  private readonly missingWeights = new Set<string>();
  private readonly lengths = new Map<string, number>();
  private remoteMedia = 0;
  private lfsFiles = 0;

  constructor(
    private readonly root: string,
    private readonly project: string,
    private readonly cache: string,
  ) {}

  notes(): string[] {
    const notes: string[] = [];
    if (this.vendored.size > 0) notes.push(`scripts from npm: ${[...this.vendored].join(', ')}`);
    if (this.fonts.size > 0) notes.push(`fonts from @fontsource: ${[...this.fonts].join(', ')}`);
    if (this.missingWeights.size > 0) notes.push(`weights no package has (the browser picks the nearest): ${[...this.missingWeights].join(', ')}`);
    if (this.remoteMedia > 0) notes.push(`${this.remoteMedia} remote media as stand-ins`);
    if (this.lfsFiles > 0) notes.push(`${this.lfsFiles} Git LFS file(s) as stand-ins`);
    const left = this.remoteLeft();
    if (left.length > 0) notes.push(`left remote (unreachable here for both): ${left.join(', ')}`);
    return notes;
  }

  /** The page's text with every CDN script, Google Fonts sheet and remote media file made local. */
  rewrite(file: string, text: string): string {
    // A script's URLs resolve against the page that loads it; a page's and a sheet's against itself.
    const rel = file.endsWith('.js') || file.endsWith('.mjs') ? '' : path.relative(path.dirname(file), this.project);
    const prefix = rel === '' ? '' : `${rel.split(path.sep).join('/')}/`;
    let out = text
      // Hints that only speed up a connection to Google Fonts.
      .replace(/<link\b[^>]*href=["']https:\/\/fonts\.(?:googleapis|gstatic)\.com\/?["'][^>]*>/gi, '')
      .replace(/<link\b[^>]*href=["'](https:\/\/fonts\.googleapis\.com\/css2?\?[^"']+)["'][^>]*>/gi, (_, href: string) => `<style>\n${this.fontFaces(decodeEntities(href), prefix)}</style>`)
      .replace(/@import\s+(?:url\()?\s*["']?(https:\/\/fonts\.googleapis\.com\/css2?\?[^"')]+)["']?\s*\)?\s*;?/gi, (_, href: string) => this.fontFaces(decodeEntities(href), prefix));
    if (GOOGLE_CSS.test(out)) throw new StageError(`${path.relative(this.project, file)} loads Google Fonts in a way staging does not replace`);
    out = out.replace(CDN_URL, (url) => `${prefix}${this.vendor(url)}`);
    out = out.replace(MEDIA_URL, (url: string, ext: string) => {
      this.remoteMedia++;
      const name = `${createHash('sha1').update(url).digest('hex').slice(0, 12)}.${ext.toLowerCase()}`;
      this.standIn(path.join(this.project, MEDIA, name), ext.toLowerCase(), this.seconds(url));
      return `${prefix}${MEDIA}/${name}`;
    });
    return out;
  }

  /** A file of the fixture that is a Git LFS pointer, replaced by a stand-in of its kind. */
  lfsStandIn(file: string): void {
    const ext = path.extname(file).slice(1).toLowerCase();
    if (!KIND[ext]) throw new StageError(`${path.relative(this.project, file)} is a Git LFS object with no stand-in for .${ext}`);
    this.lfsFiles++;
    fs.rmSync(file);
    this.standIn(file, ext, this.seconds(path.relative(this.project, file).split(path.sep).join('/')));
  }

  /** Copies a CDN URL's file from the npm package of the same version (installed as `cdn-<package>-<version>`); its path in the project. */
  private vendor(url: string): string {
    let pkg: string;
    let version: string;
    let file: string;
    const npm = /^https:\/\/(?:cdn\.jsdelivr\.net\/npm|unpkg\.com)\/((?:@[^/@]+\/)?[^/@]+)@([^/]+)\/(.+)$/.exec(url);
    const cdnjs = /^https:\/\/cdnjs\.cloudflare\.com\/ajax\/libs\/([^/]+)\/([^/]+)\/(.+)$/.exec(url);
    if (npm) {
      [, pkg, version, file] = npm;
    } else if (cdnjs && CDNJS[cdnjs[1]]) {
      pkg = CDNJS[cdnjs[1]].pkg;
      version = cdnjs[2];
      file = `${CDNJS[cdnjs[1]].folder}/${cdnjs[3]}`;
    } else {
      throw new StageError(`no npm package known for ${url}`);
    }
    const alias = `cdn-${pkg.replace(/^@/, '').replace('/', '-')}-${version}`;
    const from = path.join(this.root, 'benches', 'compat', 'node_modules', alias, file);
    if (!fs.existsSync(from)) throw new StageError(`${url} needs ${alias} in benches/compat/package.json (as npm:${pkg}@<the version it names>), installed by benches/compat/install.sh`);
    const local = `${VENDOR}/${alias}/${file}`;
    this.copyWithReferences(from, path.join(this.project, local));
    this.vendored.add(`${pkg} ${version}`);
    return local;
  }

  /** Copies a file, and for a stylesheet the files its relative url()s name (a sheet's images). */
  private copyWithReferences(from: string, to: string): void {
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(from, to);
    if (!from.endsWith('.css')) return;
    for (const [, ref] of fs.readFileSync(from, 'utf8').matchAll(/url\(\s*["']?([^"')]+)["']?\s*\)/g)) {
      if (/^(data:|https?:|#|\/)/.test(ref)) continue;
      const source = path.resolve(path.dirname(from), ref.split(/[?#]/)[0]);
      if (fs.existsSync(source)) this.copyWithReferences(source, path.resolve(path.dirname(to), ref.split(/[?#]/)[0]));
    }
  }

  /**
   * The @font-face rules of a Google Fonts css2 URL, from the @fontsource package of each family
   * (benches/compat's, else the root's): every unicode subset of each weight and style asked, the
   * woff2 files copied into the project.
   */
  private fontFaces(href: string, prefix: string): string {
    const families = new URL(href).searchParams.getAll('family');
    let css = '';
    for (const spec of families) {
      const [name, axes] = spec.split(':');
      const slug = name.trim().toLowerCase().replace(/\s+/g, '-');
      const pkg = [path.join(this.root, 'benches', 'compat', 'node_modules'), path.join(this.root, 'node_modules')]
        .map((modules) => path.join(modules, '@fontsource', slug))
        .find((dir) => fs.existsSync(dir));
      if (!pkg) throw new StageError(`Google Fonts family "${name}" needs @fontsource/${slug} in benches/compat/package.json`);
      for (const { weight, italic } of fontStyles(axes)) {
        const sheet = path.join(pkg, `${weight}${italic ? '-italic' : ''}.css`);
        const label = `${name} ${weight}${italic ? ' italic' : ''}`;
        if (!fs.existsSync(sheet)) {
          this.missingWeights.add(label);
          continue;
        }
        this.fonts.add(label);
        css += fs.readFileSync(sheet, 'utf8').replace(/src:\s*url\(\.\/files\/([^)]+\.woff2)\)\s*format\('woff2'\)[^;]*;/g, (_, woff2: string) => {
          fs.mkdirSync(path.join(this.project, FONTS), { recursive: true });
          fs.copyFileSync(path.join(pkg, 'files', woff2), path.join(this.project, FONTS, woff2));
          return `src: url(${prefix}${FONTS}/${woff2}) format('woff2');`;
        });
      }
    }
    return css;
  }

  /**
   * How long a stand-in for `ref` must play: the longest window (data-duration, after
   * data-media-start) of the elements that name it, else the longest data-duration of the
   * project, else 10 s; whole seconds, one more for the frame at the end. Measured once per
   * reference, before any page naming it is rewritten.
   */
  private seconds(ref: string): number {
    const known = this.lengths.get(ref);
    if (known !== undefined) return known;
    let needed = 0;
    let longest = 0;
    for (const file of fs.readdirSync(this.project, { recursive: true, encoding: 'utf8' }).filter((f) => /\.html?$/.test(f))) {
      const html = fs.readFileSync(path.join(this.project, file), 'utf8');
      for (const [, d] of html.matchAll(/data-duration=["']([\d.]+)["']/g)) longest = Math.max(longest, Number(d));
      for (let at = html.indexOf(ref); at >= 0; at = html.indexOf(ref, at + 1)) {
        const tag = html.slice(html.lastIndexOf('<', at), html.indexOf('>', at) + 1);
        const duration = Number(/data-duration=["']([\d.]+)["']/.exec(tag)?.[1] ?? 0);
        const start = Number(/data-(?:media|playback)-start=["']([\d.]+)["']/.exec(tag)?.[1] ?? 0);
        if (duration > 0) needed = Math.max(needed, duration + start);
      }
    }
    const seconds = Math.ceil(needed || longest || 10) + 1;
    this.lengths.set(ref, seconds);
    return seconds;
  }

  /** Makes a stand-in file (cached by kind, length and name) at `to`. */
  private standIn(to: string, ext: string, seconds: number): void {
    const key = createHash('sha1').update(`${path.basename(to)} ${seconds}`).digest('hex').slice(0, 16);
    const cached = path.join(this.cache, `${key}.${ext}`);
    if (!fs.existsSync(cached)) {
      fs.mkdirSync(this.cache, { recursive: true });
      if (KIND[ext] === 'svg') {
        fs.writeFileSync(cached, STAND_IN_SVG);
      } else {
        // Each file sounds at its own pitch, so two stand-ins mixed stay apart.
        const pitch = 200 + (parseInt(key.slice(0, 4), 16) % 400);
        execFileSync('ffmpeg', ['-v', 'error', '-y', ...standInArgs(ext, seconds, pitch), cached]);
      }
    }
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(cached, to);
  }

  /** Hosts still named by an address in quotes or url() in the fixture's own pages, sheets and scripts (XML namespaces aside). */
  private remoteLeft(): string[] {
    const hosts = new Set<string>();
    const own = fs.readdirSync(this.project, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(html?|css|m?js)$/.test(f) && !f.startsWith(VENDOR));
    for (const file of own) {
      const text = fs.readFileSync(path.join(this.project, file), 'utf8');
      for (const [, host] of text.matchAll(/(?:["'`]|url\()https?:\/\/([^/"'`)\s]+)/g)) if (host !== 'www.w3.org') hosts.add(host);
    }
    return [...hosts];
  }
}

const STAND_IN_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400" viewBox="0 0 400 400">' +
  '<rect width="400" height="400" fill="#2a6f97"/><circle cx="200" cy="200" r="120" fill="#f4a261"/><path d="M80 320 L200 90 L320 320 Z" fill="#264653"/></svg>\n';

/**
 * ffmpeg arguments (before the output) of a stand-in: video is a moving test pattern with a
 * voice-like tone (its level rising and falling three times a second), audio that tone alone, an
 * image one frame of the pattern.
 */
function standInArgs(ext: string, seconds: number, pitch: number): string[] {
  const tone = ['-f', 'lavfi', '-i', `aevalsrc=0.3*sin(2*PI*${pitch}*t)*(0.6+0.4*sin(2*PI*3*t)):s=48000:d=${seconds}`];
  const pattern = ['-f', 'lavfi', '-i', `testsrc2=s=640x360:r=30:d=${seconds},hue=H=2*PI*t/${seconds}`];
  switch (KIND[ext]) {
    case 'video': {
      const codecs =
        ext === 'webm'
          ? ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '1M', '-c:a', 'libopus']
          : ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-g', '60', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '128k'];
      return [...pattern, ...tone, ...codecs, '-shortest'];
    }
    case 'audio': {
      const codec: Record<string, string[]> = {
        mp3: ['-c:a', 'libmp3lame', '-b:a', '128k'],
        wav: ['-c:a', 'pcm_s16le'],
        ogg: ['-c:a', 'libvorbis'],
      };
      return [...tone, ...(codec[ext] ?? ['-c:a', 'aac', '-b:a', '128k'])];
    }
    default:
      return ['-f', 'lavfi', '-i', 'testsrc2=s=1280x720:d=1', '-frames:v', '1'];
  }
}

/** The font styles a css2 family's axes ask: `wght@400;700`, `ital,wght@0,400;1,900`, `ital@1`, or none (400 upright). */
function fontStyles(axes: string | undefined): Array<{ weight: number; italic: boolean }> {
  if (!axes) return [{ weight: 400, italic: false }];
  const [names, values] = axes.split('@');
  const keys = names.split(',');
  return values.split(';').map((tuple) => {
    const parts = tuple.split(',');
    const get = (axis: string) => parts[keys.indexOf(axis)];
    return { weight: keys.includes('wght') ? Number(get('wght')) : 400, italic: keys.includes('ital') ? get('ital') === '1' : false };
  });
}

function decodeEntities(href: string): string {
  return href.replace(/&amp;/g, '&');
}
