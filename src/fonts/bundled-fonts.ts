import * as fs from 'node:fs';
import type * as http from 'node:http';
import * as path from 'node:path';
import { FONTS_PREFIX } from '../runtime/boot';
import { FALLBACK_DIR, FALLBACK_FAMILY, fallbackFolders, fallbackStylesheet, servedName } from './fallback-fonts';

export { FONTS_PREFIX };

interface BundledFamily {
  /** The family's own name, which the page runtime also puts in place of generic families. */
  family: string;
  /** The npm package (installed with vidkit) holding the files and their licence. */
  pkg: string;
  /** Its stylesheets of faces, one `@font-face` per unicode subset; those the package lacks are skipped. */
  sheets: string[];
  /** Other names (lower case) drawn with this family: what HyperFrames maps to it. */
  aliases: string[];
}

/** Each variable package's stylesheets of upright and italic faces (italics where the family has them). */
const WEIGHTS = ['wght.css', 'wght-italic.css'];

/**
 * The bundled set (README: A composition, Fonts): HyperFrames' bundled families that come as
 * variable fonts (one file per subset covers every weight), with the system names HyperFrames
 * maps to each.
 */
const FAMILIES: BundledFamily[] = [
  {
    family: 'Inter',
    pkg: '@fontsource-variable/inter',
    sheets: WEIGHTS,
    aliases: [
      'helvetica', 'helvetica neue', 'helvetica bold', 'arial', 'sf pro', 'sf pro display', 'sf pro text', 'sf pro rounded',
      '-apple-system', 'blinkmacsystemfont', 'avenir', 'avenir next', 'lucida grande', 'geneva', 'optima', 'verdana', 'tahoma',
      'trebuchet ms', 'calibri', 'candara', 'corbel', 'lucida sans', 'lucida sans unicode', 'noto sans', 'dejavu sans',
      'liberation sans',
    ],
  },
  { family: 'Roboto', pkg: '@fontsource-variable/roboto', sheets: WEIGHTS, aliases: ['segoe ui'] },
  {
    family: 'EB Garamond',
    pkg: '@fontsource-variable/eb-garamond',
    sheets: WEIGHTS,
    aliases: [
      'garamond', 'georgia', 'palatino', 'palatino linotype', 'book antiqua', 'cambria', 'times', 'times new roman', 'dejavu serif',
      'liberation serif',
    ],
  },
  {
    family: 'JetBrains Mono',
    pkg: '@fontsource-variable/jetbrains-mono',
    sheets: WEIGHTS,
    aliases: [
      'courier', 'courier new', 'sf mono', 'menlo', 'monaco', 'consolas', 'lucida console', 'lucida sans typewriter', 'andale mono',
      'dejavu sans mono', 'liberation mono',
    ],
  },
  { family: 'Montserrat', pkg: '@fontsource-variable/montserrat', sheets: WEIGHTS, aliases: ['futura', 'din alternate', 'arial black'] },
  { family: 'League Gothic', pkg: '@fontsource-variable/league-gothic', sheets: ['index.css'], aliases: ['bebas neue'] },
  { family: 'Outfit', pkg: '@fontsource-variable/outfit', sheets: WEIGHTS, aliases: [] },
  { family: 'Nunito', pkg: '@fontsource-variable/nunito', sheets: WEIGHTS, aliases: [] },
  { family: 'Oswald', pkg: '@fontsource-variable/oswald', sheets: WEIGHTS, aliases: [] },
  { family: 'Playfair Display', pkg: '@fontsource-variable/playfair-display', sheets: WEIGHTS, aliases: [] },
  { family: 'Source Code Pro', pkg: '@fontsource-variable/source-code-pro', sheets: WEIGHTS, aliases: [] },
  { family: 'Open Sans', pkg: '@fontsource-variable/open-sans', sheets: WEIGHTS, aliases: [] },
];

/** The names of the bundled families. */
export function bundledFamilies(): string[] {
  return FAMILIES.map((f) => f.family);
}

/** The directory of an installed font package. */
function packageDir(pkg: string): string {
  return path.dirname(require.resolve(`${pkg}/package.json`));
}

let cachedSheet: string | undefined;

/**
 * `fonts.css`: every bundled face declared under its own family name and under each alias, and
 * the fallback faces under {@link FALLBACK_FAMILY}, with the file URLs relative to the stylesheet.
 * The page runtime links it before any page style, so a page's own `@font-face` for one of these
 * names comes later and wins. `text-rendering` is set as HyperFrames sets it, and the default font
 * is the bundled serif (Chromium's default is a serif), then the fallback faces.
 */
export function fontsStylesheet(): string {
  if (cachedSheet !== undefined) return cachedSheet;
  const rules: string[] = [
    'html, body, * { text-rendering: geometricPrecision; }',
    `html { font-family: "EB Garamond", ${JSON.stringify(FALLBACK_FAMILY)}; }`,
  ];
  for (const { family, pkg, sheets, aliases } of FAMILIES) {
    const dir = packageDir(pkg);
    const faces = sheets
      .filter((sheet) => fs.existsSync(path.join(dir, sheet)))
      .flatMap((sheet) => fs.readFileSync(path.join(dir, sheet), 'utf8').match(/@font-face\s*{[^}]*}/g) ?? []);
    for (const name of [family, ...aliases]) {
      for (const face of faces) {
        rules.push(
          face
            .replace(/font-family:[^;]*;/, `font-family: ${JSON.stringify(name)};`)
            .replace(/url\(\.\/files\//g, `url(${servedName(pkg)}/`)
            .replace(/font-display:[^;]*;/, 'font-display: block;'),
        );
      }
    }
  }
  cachedSheet = `${rules.join('\n')}\n${fallbackStylesheet()}`;
  return cachedSheet;
}

/**
 * Writes what the project server serves under {@link FONTS_PREFIX} into `dir`: fonts.css, the
 * font files it names and each package's licence. A web template serves `dir` at that path, so
 * its players draw with the same fonts as its renders.
 */
export function exportBundledFonts(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  const sheet = fontsStylesheet();
  for (const { pkg } of FAMILIES) {
    const served = servedName(pkg);
    fs.mkdirSync(path.join(dir, served), { recursive: true });
    fs.copyFileSync(path.join(packageDir(pkg), 'LICENSE'), path.join(dir, served, 'LICENSE'));
  }
  for (const folder of fallbackFolders()) {
    fs.mkdirSync(path.join(dir, folder), { recursive: true });
    fs.copyFileSync(path.join(FALLBACK_DIR, folder, 'LICENSE'), path.join(dir, folder, 'LICENSE'));
  }
  for (const [, served, file] of sheet.matchAll(/url\(([a-z0-9-]+)\/([a-z0-9-]+\.woff2)\)/g)) {
    const target = path.join(dir, served, file);
    if (!fs.existsSync(target)) fs.copyFileSync(bundledFile(`${served}/${file}`)!, target);
  }
  fs.writeFileSync(path.join(dir, 'fonts.css'), sheet);
}

/** The bundled file a path under {@link FONTS_PREFIX} names, or undefined for any other path. */
function bundledFile(rest: string): string | undefined {
  const m = /^([a-z0-9-]+)\/([a-z0-9-]+\.woff2)$/.exec(rest);
  if (!m) return undefined;
  const family = FAMILIES.find((f) => servedName(f.pkg) === m[1]);
  const file = family ? path.join(packageDir(family.pkg), 'files', m[2]) : fallbackFolders().includes(m[1]) ? path.join(FALLBACK_DIR, m[1], m[2]) : undefined;
  return file !== undefined && fs.existsSync(file) ? file : undefined;
}

/** Answers a request under {@link FONTS_PREFIX}; returns false for any other URL. */
export function serveBundledFonts(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  const pathname = new URL(req.url ?? '/', 'http://fonts').pathname;
  if (!pathname.startsWith(FONTS_PREFIX)) return false;
  const rest = pathname.slice(FONTS_PREFIX.length);
  // The files never change for an installed vidkit: let the browser keep them.
  const headers = { 'cache-control': 'public, max-age=86400', 'access-control-allow-origin': '*' };
  if (rest === 'fonts.css') {
    res.writeHead(200, { ...headers, 'content-type': 'text/css; charset=utf-8' });
    res.end(fontsStylesheet());
    return true;
  }
  const file = bundledFile(rest);
  if (file === undefined) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end(`no bundled font ${rest}`);
    return true;
  }
  res.writeHead(200, { ...headers, 'content-type': 'font/woff2', 'content-length': fs.statSync(file).size });
  fs.createReadStream(file).pipe(res);
  return true;
}
