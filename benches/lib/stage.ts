import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The bench compositions as both tools render them, staged under `dir`: each composition's own
 * files plus the shared fonts (Liberation Sans, SIL OFL), so both tools draw the same glyphs from
 * the same files. `ui-3d-reveal` is made from examples/ui-3d-reveal rather than kept as a copy.
 * `compositions` is the folder they come from (the compatibility suite keeps its own).
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
  return staged;
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
