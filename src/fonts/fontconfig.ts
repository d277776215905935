import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { vidkitCacheDir } from '../cache-dir';

/** Where fontconfig reads its configuration when FONTCONFIG_FILE is unset. */
const SYSTEM_CONFIG = '/etc/fonts/fonts.conf';

let cachedFile: string | undefined;

/**
 * The fontconfig file the browser runs with: the machine's own configuration (FONTCONFIG_FILE, or
 * the system's), for its rendering settings, with every font it lists rejected but the DejaVu
 * faces of the `dejavu-fonts-ttf` package (docs/explanation/fonts.md). So Chromium's system
 * fallback, and the generic families a page draws with where the page runtime cannot rewrite them
 * (a canvas, a form control's default font), find the same faces on every machine, and never a
 * font only this machine has: characters that neither the page's fonts nor the bundled families
 * and fallback faces have are drawn by DejaVu, or as an empty box that the glyph check reports.
 * Chromium draws no text at all, web fonts included, when fontconfig lists no font, so a machine
 * without fonts (a bare container) needs these too. Written once per configuration, kept with
 * fontconfig's own cache in vidkit's cache directory (the temporary directory where that is
 * read-only).
 */
export function browserFontconfig(): string {
  if (cachedFile !== undefined) return cachedFile;
  const included = process.env.FONTCONFIG_FILE || SYSTEM_CONFIG;
  const fallbackDir = fallbackFontDir();
  const name = `fontconfig-${createHash('sha256').update(`${included}\n${fallbackDir}\n${SYSTEM_FACES.join(',')}`).digest('hex').slice(0, 16)}`;
  const dir = writableDir(path.join(vidkitCacheDir(), name), path.join(os.tmpdir(), `vidkit-${name}`));
  const file = path.join(dir, 'fonts.conf');
  const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const text = [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">',
    '<fontconfig>',
    `  <include ignore_missing="yes">${xml(path.resolve(included))}</include>`,
    `  <dir>${xml(fallbackDir)}</dir>`,
    '  <selectfont>',
    '    <rejectfont><glob>*</glob></rejectfont>',
    ...SYSTEM_FACES.map((glob) => `    <acceptfont><glob>${xml(path.join(fallbackDir, glob))}</glob></acceptfont>`),
    '  </selectfont>',
    `  <cachedir>${xml(path.join(dir, 'cache'))}</cachedir>`,
    '</fontconfig>',
    '',
  ].join('\n');
  // Written aside and renamed, so a browser another render starts meanwhile never reads half a file.
  const partial = `${file}.${process.pid}.partial`;
  fs.writeFileSync(partial, text);
  fs.renameSync(partial, file);
  cachedFile = file;
  return file;
}

/**
 * The faces of {@link fallbackFontDir} the browser's fontconfig lists: DejaVu Sans, Serif and Sans
 * Mono in every weight and slant (not DejaVu Math TeX Gyre), so that what the system fallback may
 * draw is what the glyph check asks for ({@link SYSTEM_FACE_NAMES}).
 */
export const SYSTEM_FACES = ['DejaVuSans*.ttf', 'DejaVuSerif*.ttf'];

/**
 * The full names of those faces' regular styles, which hold every character of their bold and
 * oblique styles: the glyph check asks for them by `local()` name (src/runtime/glyph-page/glyph-check.ts).
 */
export const SYSTEM_FACE_NAMES = ['DejaVu Sans', 'DejaVu Serif', 'DejaVu Sans Mono'];

/** The DejaVu faces of the `dejavu-fonts-ttf` package, which every browser's fontconfig lists. */
export function fallbackFontDir(): string {
  return path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
}

/** `preferred`, created, or `fallback` when it cannot be (a read-only home). */
function writableDir(preferred: string, fallback: string): string {
  try {
    fs.mkdirSync(preferred, { recursive: true });
    fs.accessSync(preferred, fs.constants.W_OK);
    return preferred;
  } catch {
    fs.mkdirSync(fallback, { recursive: true });
    return fallback;
  }
}
