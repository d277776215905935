import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Where fontconfig reads its configuration when FONTCONFIG_FILE is unset. */
const SYSTEM_CONFIG = '/etc/fonts/fonts.conf';

let cachedFile: string | undefined;

/**
 * The fontconfig file the browser runs with: the machine's own configuration (FONTCONFIG_FILE, or
 * the system's) plus the DejaVu faces of the `dejavu-fonts-ttf` package. Chromium draws no text at
 * all, web fonts included, when fontconfig lists no font, so a machine without fonts (a bare
 * container) gets these; they only draw characters the bundled web fonts lack (README: A
 * composition, Fonts). Written once per configuration, under the temporary directory.
 */
export function browserFontconfig(): string {
  if (cachedFile !== undefined) return cachedFile;
  const included = process.env.FONTCONFIG_FILE || SYSTEM_CONFIG;
  const fallbackDir = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  const dir = path.join(os.tmpdir(), `vidkit-fontconfig-${createHash('sha256').update(`${included}\n${fallbackDir}`).digest('hex').slice(0, 16)}`);
  const file = path.join(dir, 'fonts.conf');
  const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const text = [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">',
    '<fontconfig>',
    `  <include ignore_missing="yes">${xml(path.resolve(included))}</include>`,
    `  <dir>${xml(fallbackDir)}</dir>`,
    `  <cachedir>${xml(path.join(dir, 'cache'))}</cachedir>`,
    '</fontconfig>',
    '',
  ].join('\n');
  fs.mkdirSync(dir, { recursive: true });
  // Written aside and renamed, so a browser another render starts meanwhile never reads half a file.
  const partial = `${file}.${process.pid}.partial`;
  fs.writeFileSync(partial, text);
  fs.renameSync(partial, file);
  cachedFile = file;
  return file;
}
