import * as fs from 'node:fs';
import type * as http from 'node:http';
import * as path from 'node:path';
import { FONTS_PREFIX } from './fonts-prefix';
import { FALLBACK_DIR, FALLBACK_FAMILY, fallbackFolders, fallbackStylesheet, servedName } from './fallback-fonts';
import { PEER_FAMILIES, STATIC_DIR, staticFolders, staticStylesheet } from './static-fonts';

/** What text with no font-family draws with: the face standing in for the browser's default serif. */
const DEFAULT_FACE = 'Tinos';

export { FONTS_PREFIX };

interface VariableFamily {
  /** The family name its package declares ("Inter Variable"): what a composition names to set a variable axis. */
  family: string;
  /** The npm package (installed with vidkit) holding the files and their licence. */
  pkg: string;
  /** Its stylesheets of faces, one `@font-face` per unicode subset; those the package lacks are skipped. */
  sheets: string[];
}

/** Each variable package's stylesheets of upright and italic faces (italics where the family has them). */
const WEIGHTS = ['wght.css', 'wght-italic.css'];
/**
 * The same with the width axis too (`font-stretch` 75% to 100%), for the families whose package
 * has it: at the default width they draw the weight-only faces' glyphs.
 */
const WEIGHTS_AND_WIDTHS = ['wdth.css', 'wdth-italic.css'];

/**
 * The variable faces of twelve of HyperFrames' families (docs/explanation/fonts.md), under
 * their packages' own names: a composition that sets a weight between the static faces' or
 * another axis (`font-variation-settings`, or `font-stretch` for Roboto's and Open Sans' width)
 * names "Inter Variable" instead of "Inter".
 */
const VARIABLE_FAMILIES: VariableFamily[] = [
  { family: 'Inter Variable', pkg: '@fontsource-variable/inter', sheets: WEIGHTS },
  { family: 'Roboto Variable', pkg: '@fontsource-variable/roboto', sheets: WEIGHTS_AND_WIDTHS },
  { family: 'EB Garamond Variable', pkg: '@fontsource-variable/eb-garamond', sheets: WEIGHTS },
  { family: 'JetBrains Mono Variable', pkg: '@fontsource-variable/jetbrains-mono', sheets: WEIGHTS },
  { family: 'Montserrat Variable', pkg: '@fontsource-variable/montserrat', sheets: WEIGHTS },
  { family: 'League Gothic Variable', pkg: '@fontsource-variable/league-gothic', sheets: ['index.css'] },
  { family: 'Outfit Variable', pkg: '@fontsource-variable/outfit', sheets: WEIGHTS },
  { family: 'Nunito Variable', pkg: '@fontsource-variable/nunito', sheets: WEIGHTS },
  { family: 'Oswald Variable', pkg: '@fontsource-variable/oswald', sheets: WEIGHTS },
  { family: 'Playfair Display Variable', pkg: '@fontsource-variable/playfair-display', sheets: WEIGHTS },
  { family: 'Source Code Pro Variable', pkg: '@fontsource-variable/source-code-pro', sheets: WEIGHTS },
  { family: 'Open Sans Variable', pkg: '@fontsource-variable/open-sans', sheets: WEIGHTS_AND_WIDTHS },
];

/** The names of the bundled families: HyperFrames' static ones, then the variable ones. */
export function bundledFamilies(): string[] {
  return [...PEER_FAMILIES.map((f) => f.family), ...VARIABLE_FAMILIES.map((f) => f.family)];
}

/** The directory of an installed font package. */
function packageDir(pkg: string): string {
  return path.dirname(require.resolve(`${pkg}/package.json`));
}

let cachedSheet: string | undefined;

/**
 * `fonts.css`: HyperFrames' static faces under their family names and each alias, the faces the
 * generic families draw with, the variable faces under their own names, and the fallback faces
 * under {@link FALLBACK_FAMILY}, with the file URLs relative to the stylesheet. The page runtime
 * links it before any page style, so a page's own `@font-face` for one of these names comes later
 * and wins. `text-rendering` is set as HyperFrames sets it, and the default font is the serif
 * Chromium draws text without a font-family in (Tinos, as Liberation Serif), then the fallback faces.
 */
export function fontsStylesheet(): string {
  if (cachedSheet !== undefined) return cachedSheet;
  const rules: string[] = [
    'html, body, * { text-rendering: geometricPrecision; }',
    `html { font-family: ${JSON.stringify(DEFAULT_FACE)}, ${JSON.stringify(FALLBACK_FAMILY)}; }`,
    staticStylesheet(),
  ];
  for (const { family, pkg, sheets } of VARIABLE_FAMILIES) {
    const dir = packageDir(pkg);
    const faces = sheets
      .filter((sheet) => fs.existsSync(path.join(dir, sheet)))
      .flatMap((sheet) => fs.readFileSync(path.join(dir, sheet), 'utf8').match(/@font-face\s*{[^}]*}/g) ?? []);
    for (const face of faces) {
      rules.push(
        face
          .replace(/font-family:[^;]*;/, `font-family: ${JSON.stringify(family)};`)
          .replace(/url\(\.\/files\//g, `url(${servedName(pkg)}/`)
          .replace(/font-display:[^;]*;/, 'font-display: block;'),
      );
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
  for (const { pkg } of VARIABLE_FAMILIES) {
    const served = servedName(pkg);
    fs.mkdirSync(path.join(dir, served), { recursive: true });
    fs.copyFileSync(path.join(packageDir(pkg), 'LICENSE'), path.join(dir, served, 'LICENSE'));
  }
  for (const folder of fallbackFolders()) {
    fs.mkdirSync(path.join(dir, folder), { recursive: true });
    fs.copyFileSync(path.join(FALLBACK_DIR, folder, 'LICENSE'), path.join(dir, folder, 'LICENSE'));
  }
  for (const folder of staticFolders()) {
    fs.mkdirSync(path.join(dir, folder), { recursive: true });
    fs.copyFileSync(path.join(STATIC_DIR, folder, 'LICENSE'), path.join(dir, folder, 'LICENSE'));
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
  const family = VARIABLE_FAMILIES.find((f) => servedName(f.pkg) === m[1]);
  const file = family
    ? path.join(packageDir(family.pkg), 'files', m[2])
    : fallbackFolders().includes(m[1])
      ? path.join(FALLBACK_DIR, m[1], m[2])
      : staticFolders().includes(m[1])
        ? path.join(STATIC_DIR, m[1], m[2])
        : undefined;
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
