import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The bench compositions as both tools render them, staged under `dir`: each composition's own
 * files plus the shared fonts (Liberation Sans, SIL OFL), so both tools draw the same glyphs from
 * the same files, and the videos its pages name ({@link BENCH_MEDIA}). `ui-3d-reveal` is made from
 * examples/ui-3d-reveal rather than kept as a copy. `compositions` is the folder they come from
 * (the compatibility suite keeps its own).
 */
export function stageComposition(root: string, name: string, dir: string, compositions = path.join(root, 'benches', 'compositions')): string {
  const staged = path.join(dir, name);
  if (name === 'ui-3d-reveal') {
    fs.mkdirSync(staged, { recursive: true });
    fs.writeFileSync(path.join(staged, 'index.html'), benchUi3dReveal(fs.readFileSync(path.join(root, 'examples', name, 'index.html'), 'utf8')));
  } else {
    fs.cpSync(path.join(compositions, name), staged, { recursive: true });
  }
  fs.cpSync(path.join(root, 'benches', 'compositions', 'fonts'), staged, { recursive: true });
  stageLibraries(root, staged);
  stageMedia(staged, BENCH_MEDIA);
  return staged;
}

/** Files a page may name without keeping a copy in its folder, from the root's devDependencies. */
const BENCH_LIBRARIES: Record<string, string> = {
  'gsap.min.js': path.join('node_modules', 'gsap', 'dist', 'gsap.min.js'),
  'oswald-latin-500-normal.woff2': path.join('node_modules', '@fontsource', 'oswald', 'files', 'oswald-latin-500-normal.woff2'),
  'montserrat-latin-800-normal.woff2': path.join('node_modules', '@fontsource', 'montserrat', 'files', 'montserrat-latin-800-normal.woff2'),
};

function stageLibraries(root: string, staged: string): void {
  const html = projectHtml(staged);
  for (const [file, source] of Object.entries(BENCH_LIBRARIES)) {
    if (html.includes(`"${file}"`) && !fs.existsSync(path.join(staged, file))) fs.copyFileSync(path.join(root, source), path.join(staged, file));
  }
}

/** A test-pattern video (frame number and timecode burned in, colours turning), H.264 with a keyframe every 2 s. */
function patternVideo(size: string, seconds: number, hue: string, tone: boolean): string[] {
  return [
    '-f', 'lavfi', '-i', `testsrc2=s=${size}:r=30:d=${seconds},hue=H=${hue}`,
    ...(tone ? ['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${seconds}`, '-af', 'volume=0.3', '-c:a', 'aac', '-b:a', '128k'] : ['-an']),
    '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '18', '-g', '60', '-pix_fmt', 'yuv420p',
  ];
}

/**
 * The bench compositions' videos, made with ffmpeg's own test source when a page names them, so
 * every run has the same pictures without keeping large files in the repository.
 */
const BENCH_MEDIA: Record<string, string[]> = {
  'talk.mp4': patternVideo('1080x1920', 30, '2*PI*t/30', true),
  'aroll.mp4': patternVideo('1080x1920', 13, '2*PI*t/13', true),
  'scene.mp4': patternVideo('1080x1920', 13, 'PI/2+2*PI*t/13', false),
  'main.mp4': patternVideo('1920x1080', 10, '2*PI*t/10', true),
  'inset.mp4': patternVideo('1280x720', 10, 'PI', false),
};

/** The text of every HTML file of a staged project: index.html and its sub-compositions. */
export function projectHtml(staged: string): string {
  const files = fs.readdirSync(staged, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.html'));
  return files.map((f) => fs.readFileSync(path.join(staged, f), 'utf8')).join('\n');
}

/**
 * Makes each file of `media` (ffmpeg arguments before the output) that a page of the staged
 * project names, as `"<file>"` or `"../<file>"`, at the project's root.
 */
export function stageMedia(staged: string, media: Record<string, string[]>): void {
  const html = projectHtml(staged);
  for (const [file, args] of Object.entries(media)) {
    if (!html.includes(`"${file}"`) && !html.includes(`"../${file}"`)) continue;
    execFileSync('ffmpeg', ['-v', 'error', '-y', ...args, path.join(staged, file)]);
  }
}

const FONT_FACES =
  '<style>\n' +
  '  @font-face { font-family: "Liberation Sans"; font-weight: 400; font-style: normal; src: url("LiberationSans-Regular.ttf") format("truetype"); }\n' +
  '  @font-face { font-family: "Liberation Sans"; font-weight: 700; font-style: normal; src: url("LiberationSans-Bold.ttf") format("truetype"); }\n' +
  '</style>\n';

/**
 * The example with three changes, nothing else: the text face loaded from the staged fonts (the
 * peer would otherwise swap the system's Liberation Sans for its own bundled Inter); 10 s long like
 * every bench composition (the animations end by 6 s, the rest holds the final picture); and
 * `data-no-timeline` on the root, without which the peer waits 45 s for a GSAP timeline that a
 * CSS-animated composition never registers (vidkit ignores the attribute).
 */
function benchUi3dReveal(html: string): string {
  const edits: Array<[string, string]> = [
    ['</head>', `${FONT_FACES}</head>`],
    ['data-duration="6"', 'data-duration="10" data-no-timeline'],
  ];
  return edits.reduce((page, [from, to]) => {
    if (!page.includes(from)) throw new Error(`examples/ui-3d-reveal/index.html has no ${from}: update benches/lib/stage.ts`);
    return page.replace(from, to);
  }, html);
}
