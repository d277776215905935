import * as fs from 'node:fs';
import * as path from 'node:path';
import { PACKAGE_ROOT } from '../package-info';

/**
 * The family the page runtime puts behind every font-family list, before its first generic family
 * (docs/explanation/fonts.md): one family whose faces are the fallback faces below, each with
 * its `unicode-range`, so a render loads only the files of the characters it draws.
 */
export const FALLBACK_FAMILY = 'Vidkit Fallback';

/** One npm package of fallback faces (SIL Open Font License 1.1), a devDependency of vidkit. */
export interface FallbackPackage {
  pkg: string;
  /** The family its own stylesheet declares: what a page naming the package's faces uses. */
  family: string;
  /** The stylesheet of its upright faces. */
  sheet: string;
  /** The faces served, by file name: a package's Latin subsets are left to the faces before it. */
  files: RegExp;
  /** What it draws, for the docs and `vidkit doctor`. */
  scripts: string;
}

/**
 * The fallback faces, first choice first: where two have a character, the earlier draws it. Noto
 * Sans comes first for Latin, Cyrillic, Greek and Vietnamese; the colour emoji before the CJK faces,
 * which have monochrome forms of many emoji; Han characters take the Simplified Chinese forms, then
 * Traditional, Japanese and Korean for the characters the ones before lack (and Korean for Hangul).
 */
export const FALLBACK_PACKAGES: readonly FallbackPackage[] = [
  {
    pkg: '@fontsource-variable/noto-sans',
    family: 'Noto Sans Variable',
    sheet: 'wght.css',
    files: /^noto-sans-(latin|latin-ext|cyrillic|cyrillic-ext|greek|greek-ext|vietnamese)-wght-normal\.woff2$/,
    scripts: 'Latin, Cyrillic, Greek, Vietnamese',
  },
  // Google Fonts' COLRv1 build: the files of @fontsource/noto-color-emoji hold SVG glyphs, which
  // Chromium does not draw (their outlines are empty).
  { pkg: '@infolektuell/noto-color-emoji', family: 'Noto Color Emoji', sheet: 'index.css', files: /^\d+\.woff2$/, scripts: 'colour emoji' },
  { pkg: '@fontsource-variable/noto-sans-arabic', family: 'Noto Sans Arabic Variable', sheet: 'wght.css', files: /-arabic-arabic-/, scripts: 'Arabic' },
  { pkg: '@fontsource-variable/noto-sans-hebrew', family: 'Noto Sans Hebrew Variable', sheet: 'wght.css', files: /-hebrew-hebrew-/, scripts: 'Hebrew' },
  {
    pkg: '@fontsource-variable/noto-sans-devanagari',
    family: 'Noto Sans Devanagari Variable',
    sheet: 'wght.css',
    files: /-devanagari-devanagari-/,
    scripts: 'Devanagari',
  },
  { pkg: '@fontsource-variable/noto-sans-bengali', family: 'Noto Sans Bengali Variable', sheet: 'wght.css', files: /-bengali-bengali-/, scripts: 'Bengali' },
  { pkg: '@fontsource-variable/noto-sans-tamil', family: 'Noto Sans Tamil Variable', sheet: 'wght.css', files: /-tamil-tamil-/, scripts: 'Tamil' },
  { pkg: '@fontsource-variable/noto-sans-thai', family: 'Noto Sans Thai Variable', sheet: 'wght.css', files: /-thai-thai-/, scripts: 'Thai' },
  { pkg: '@fontsource-variable/noto-sans-sc', family: 'Noto Sans SC Variable', sheet: 'wght.css', files: /^noto-sans-sc-\d+-wght-normal\.woff2$/, scripts: 'Simplified Chinese' },
  { pkg: '@fontsource-variable/noto-sans-tc', family: 'Noto Sans TC Variable', sheet: 'wght.css', files: /^noto-sans-tc-\d+-wght-normal\.woff2$/, scripts: 'Traditional Chinese' },
  { pkg: '@fontsource-variable/noto-sans-jp', family: 'Noto Sans JP Variable', sheet: 'wght.css', files: /^noto-sans-jp-\d+-wght-normal\.woff2$/, scripts: 'Japanese' },
  { pkg: '@fontsource-variable/noto-sans-kr', family: 'Noto Sans KR Variable', sheet: 'wght.css', files: /^noto-sans-kr-\d+-wght-normal\.woff2$/, scripts: 'Korean' },
];

/** Where the build puts the served faces (`npm run build:ts`, scripts/build-fonts.mjs): packed with vidkit, read at run time. */
export const FALLBACK_DIR = path.join(PACKAGE_ROOT, 'dist', 'fallback-fonts');
const SHEET = 'fallback.css';

/** The last path segment of a package name: the folder its files are served from. */
export function servedName(pkg: string): string {
  return pkg.slice(pkg.lastIndexOf('/') + 1);
}

/** The folders of served faces under {@link FALLBACK_DIR}, one per package. */
export function fallbackFolders(): string[] {
  return FALLBACK_PACKAGES.map((p) => servedName(p.pkg));
}

let cachedSheet: string | undefined;

/** The `@font-face` rules of {@link FALLBACK_FAMILY}, with file URLs `<folder>/<file>.woff2`. */
export function fallbackStylesheet(): string {
  if (cachedSheet !== undefined) return cachedSheet;
  const file = path.join(FALLBACK_DIR, SHEET);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: build vidkit first (npm run build:ts)`);
  cachedSheet = fs.readFileSync(file, 'utf8');
  return cachedSheet;
}

/**
 * The served faces, copied from the installed packages into `dir` with each package's licence,
 * and the stylesheet declaring them. Every face gets the same descriptors (upright, weights 100 to
 * 900): the browser picks one set of faces per family by those, so faces that differed would hide
 * one another. The rules are written last choice first, because where the unicode-ranges of one
 * family's faces overlap, the browser tries the face declared last first. A file already there
 * with the same size is kept, so a rebuild copies only what changed.
 */
export function installFallbackFonts(dir: string): { files: number; bytes: number } {
  const rules: string[] = [];
  let files = 0;
  let bytes = 0;
  for (const { pkg, sheet, files: served } of [...FALLBACK_PACKAGES].reverse()) {
    const from = path.dirname(require.resolve(`${pkg}/package.json`));
    const folder = path.join(dir, servedName(pkg));
    fs.mkdirSync(folder, { recursive: true });
    fs.copyFileSync(path.join(from, 'LICENSE'), path.join(folder, 'LICENSE'));
    const faces = fs.readFileSync(path.join(from, sheet), 'utf8').match(/@font-face\s*{[^}]*}/g) ?? [];
    const kept = new Set<string>();
    for (const face of faces) {
      const name = /url\(\.\/files\/([^)]+\.woff2)\)/.exec(face)?.[1];
      const range = /unicode-range:\s*([^;]+);/.exec(face)?.[1];
      if (!name || !range || !served.test(name)) continue;
      const source = path.join(from, 'files', name);
      const target = path.join(folder, name);
      const size = fs.statSync(source).size;
      if (!fs.existsSync(target) || fs.statSync(target).size !== size) fs.copyFileSync(source, target);
      kept.add(name);
      files += 1;
      bytes += size;
      rules.push(
        `@font-face { font-family: ${JSON.stringify(FALLBACK_FAMILY)}; font-style: normal; font-weight: 100 900; font-display: block; ` +
          `src: url(${servedName(pkg)}/${name}) format('woff2'); unicode-range: ${range.trim()}; }`,
      );
    }
    if (kept.size === 0) throw new Error(`${pkg}/${sheet} declares no face matching ${served}`);
    for (const old of fs.readdirSync(folder)) if (old !== 'LICENSE' && !kept.has(old)) fs.rmSync(path.join(folder, old));
  }
  const partial = path.join(dir, `${SHEET}.partial`);
  fs.writeFileSync(partial, `${rules.join('\n')}\n`);
  fs.renameSync(partial, path.join(dir, SHEET));
  return { files, bytes };
}
