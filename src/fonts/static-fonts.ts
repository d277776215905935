import * as fs from 'node:fs';
import * as path from 'node:path';
import { PACKAGE_ROOT } from '../package-info';
import { PEER_FAMILIES, type StaticFamily } from './peer-families';

export { PEER_FAMILIES, type StaticFamily };

/**
 * What a generic family draws where HyperFrames leaves it to the browser (a generic after the
 * first family, and text with no font-family at all): Chromium on Linux asks fontconfig for Times
 * New Roman, Arial and a monospace, which Debian answers with Liberation Serif, Sans and Mono.
 * These are their metric-compatible twins on npm (Chrome OS' core fonts, whose outlines Liberation
 * 2 took over), so words take the same room and lines break where HyperFrames breaks them.
 */
export const GENERIC_FAMILIES_FACES: readonly StaticFamily[] = [
  { family: 'Tinos', pkg: '@fontsource/tinos', weights: [400, 700], italic: true, aliases: [] },
  { family: 'Arimo', pkg: '@fontsource/arimo', weights: [400, 700], italic: true, aliases: [] },
  { family: 'Cousine', pkg: '@fontsource/cousine', weights: [400, 700], italic: true, aliases: [] },
];

/** Where the build puts the served static faces (`npm run build:ts`, scripts/build-fonts.mjs). */
export const STATIC_DIR = path.join(PACKAGE_ROOT, 'dist', 'static-fonts');
const SHEET = 'static.css';

/** The folder a static family's files are served from (apart from the variable packages' folders). */
export function staticFolder(pkg: string): string {
  return `${pkg.slice(pkg.lastIndexOf('/') + 1)}-static`;
}

function allFamilies(): StaticFamily[] {
  return [...PEER_FAMILIES, ...GENERIC_FAMILIES_FACES];
}

/** The folders of served faces under {@link STATIC_DIR}. */
export function staticFolders(): string[] {
  return allFamilies().map((f) => staticFolder(f.pkg));
}

let cachedSheet: string | undefined;

/** The `@font-face` rules of the static families and their aliases, file URLs `<folder>/<file>.woff2`. */
export function staticStylesheet(): string {
  if (cachedSheet !== undefined) return cachedSheet;
  const file = path.join(STATIC_DIR, SHEET);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: build vidkit first (npm run build:ts)`);
  cachedSheet = fs.readFileSync(file, 'utf8');
  return cachedSheet;
}

/**
 * Copies the served faces from the installed packages into `dir` with each package's licence,
 * and writes the stylesheet declaring them under each family's name and its aliases. A file
 * already there with the same size is kept, so a rebuild copies only what changed.
 */
export function installStaticFonts(dir: string): { files: number; bytes: number } {
  const rules: string[] = [];
  let files = 0;
  let bytes = 0;
  for (const { family, pkg, weights, italic, aliases } of allFamilies()) {
    const from = path.dirname(require.resolve(`${pkg}/package.json`));
    const folder = path.join(dir, staticFolder(pkg));
    fs.mkdirSync(folder, { recursive: true });
    fs.copyFileSync(path.join(from, 'LICENSE'), path.join(folder, 'LICENSE'));
    const kept = new Set<string>();
    const sheets = weights.flatMap((w) => (italic ? [`${w}.css`, `${w}-italic.css`] : [`${w}.css`]));
    for (const sheet of sheets) {
      const faces = fs.readFileSync(path.join(from, sheet), 'utf8').match(/@font-face\s*{[^}]*}/g) ?? [];
      for (const face of faces) {
        const name = /url\(\.\/files\/([^)]+\.woff2)\)/.exec(face)?.[1];
        const range = /unicode-range:\s*([^;]+);/.exec(face)?.[1];
        const style = /font-style:\s*(\w+);/.exec(face)?.[1] ?? 'normal';
        const weight = /font-weight:\s*(\d+);/.exec(face)?.[1];
        // Numbered slices are the CJK glyphs of Noto Sans JP: the fallback faces draw those.
        if (!name || !range || !weight || /-\d+-\d+-(normal|italic)\.woff2$/.test(name)) continue;
        const source = path.join(from, 'files', name);
        const target = path.join(folder, name);
        const size = fs.statSync(source).size;
        if (!fs.existsSync(target) || fs.statSync(target).size !== size) fs.copyFileSync(source, target);
        kept.add(name);
        files += 1;
        bytes += size;
        for (const declared of [family, ...aliases]) {
          rules.push(
            `@font-face { font-family: ${JSON.stringify(declared)}; font-style: ${style}; font-weight: ${weight}; font-display: block; ` +
              `src: url(${staticFolder(pkg)}/${name}) format('woff2'); unicode-range: ${range.trim()}; }`,
          );
        }
      }
    }
    if (kept.size === 0) throw new Error(`${pkg} declares no face for weights ${weights.join(', ')}`);
    for (const old of fs.readdirSync(folder)) if (old !== 'LICENSE' && !kept.has(old)) fs.rmSync(path.join(folder, old));
  }
  const partial = path.join(dir, `${SHEET}.partial`);
  fs.writeFileSync(partial, `${rules.join('\n')}\n`);
  fs.renameSync(partial, path.join(dir, SHEET));
  return { files, bytes };
}
