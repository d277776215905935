/**
 * A fuzzed case: its parts, drawn from a seed, and the project files they make. The page is the
 * smallest HyperFrames composition around them: a 640x360 root of 2 s at 30 fps, GSAP and a
 * registered root timeline only when a part needs them (else `data-no-timeline`, without which the
 * peer waits for a timeline).
 */
import { Rng, caseSeed } from './prng';
import { Fragment, KIND_NAMES, Part, generatePart, renderPart } from './parts';

export const ROOT_ID = 'fuzz';
export const SECONDS = 2;
/** Cells of the frame, and so the most parts a case has. */
export const CELLS = 6;

export interface FuzzCase {
  seed: number;
  index: number;
  parts: Part[];
}

/** Case `index` of the run seeded `seed`: one to four parts of any kinds, each in its own cell. */
export function generateCase(seed: number, index: number): FuzzCase {
  const rng = new Rng(caseSeed(seed, index));
  const count = rng.pick([1, 2, 2, 3, 3, 4]);
  const cells = Array.from({ length: CELLS }, (_, i) => i);
  const parts: Part[] = [];
  for (let i = 0; i < count; i++) {
    const cell = cells.splice(rng.int(0, cells.length - 1), 1)[0];
    parts.push(generatePart(rng, rng.pick(KIND_NAMES), cell));
  }
  parts.sort((a, b) => a.cell - b.cell);
  return { seed, index, parts };
}

/** The project's files (path -> text) for a set of parts. */
export function projectFiles(parts: Part[], title: string): Record<string, string> {
  const fragments: Fragment[] = parts.map(renderPart);
  const gsap = fragments.some((f) => f.gsap);
  const join = (pick: (f: Fragment) => string | undefined, sep: string) =>
    fragments
      .map(pick)
      .filter((s): s is string => Boolean(s))
      .join(sep);
  const script = gsap
    ? `  window.__timelines = window.__timelines || {};\n  const main = gsap.timeline({ paused: true });\n  main.to({}, { duration: ${SECONDS} }, 0);\n${indent(join((f) => f.script, '\n'))}\n  window.__timelines['${ROOT_ID}'] = main;`
    : indent(join((f) => f.script, '\n'));
  const index =
    `<!doctype html>\n<!-- ${title} -->\n<html>\n<head>\n<meta charset="utf-8">\n` +
    (gsap ? '<script src="gsap.min.js"></script>\n' : '') +
    `<style>\n  html, body { margin: 0; background: #101820; }\n` +
    `  #root { position: relative; width: 640px; height: 360px; overflow: hidden; background: #101820; }\n` +
    `  .fz-box { position: absolute; width: 60px; height: 60px; }\n  .fz-layer { position: absolute; left: 0; top: 0; width: 640px; height: 360px; }\n` +
    `${indent(join((f) => f.style, '\n'))}\n</style>\n</head>\n<body>\n` +
    `<div id="root" data-composition-id="${ROOT_ID}" data-start="0" data-duration="${SECONDS}" data-width="640" data-height="360"${gsap ? '' : ' data-no-timeline'}>\n` +
    `${indent(join((f) => f.body, '\n'))}\n</div>\n` +
    (script.trim() ? `<script>\n${script}\n</script>\n` : '') +
    '</body>\n</html>\n';
  const files: Record<string, string> = { 'index.html': index };
  for (const f of fragments) Object.assign(files, f.files);
  return files;
}

/** Whether any part draws text (the two tools may rasterise glyphs differently). */
export function drawsText(parts: Part[]): boolean {
  return parts.some((p) => renderPart(p).text === true);
}

function indent(text: string): string {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => `  ${l}`)
    .join('\n');
}
