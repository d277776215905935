import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FIXTURES, tempDir } from '../test-support/cli';
import { decodeRgbFrame, ffprobe, rgbAt } from '../test-support/media';
import { SCRIPT_NAMES_FIXTURE, SCRIPT_NAMES_VARIABLES } from '../test-support/templates';
import { RenderTimeoutError } from './render-errors';
import { WarmTemplateRenderer } from './warm-render';
import { processTable } from '../render/browser/process-table';

const decoded = tempDir('vidkit-warm-render-test-');
// What the renderer writes to os.tmpdir() is looked at: give it a directory of its own while these
// tests run (uvu loads every test file into one process first, so not at import time).
const tmp = tempDir('vidkit-warm-render-tmp-');
const outerTmp = process.env.TMPDIR;
test.before(() => {
  process.env.TMPDIR = tmp;
});
test.after(() => {
  if (outerTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = outerTmp;
});

/** This process's browser children (pid list): the warm pool's browsers are launched from here. */
function browserChildren(): number[] {
  return processTable()
    .filter((p) => p.ppid === process.pid && /chrom/.test(p.cmdline))
    .map((p) => p.pid);
}

const colourAt = (mp4: Buffer, name: string) => {
  const file = path.join(decoded, name);
  fs.writeFileSync(file, mp4);
  assert.is(ffprobe(file).streams[0].nb_read_frames, '15');
  return rgbAt(decodeRgbFrame(file, 14, 320, 180), 320, 160, 90);
};

test('two requests render on one warm browser, each with its own variables, and leave nothing of theirs in TMPDIR', async () => {
  const renderer = new WarmTemplateRenderer();
  try {
    const projectDir = path.join(FIXTURES, 'color-var');
    const red = await renderer.render({ projectDir, variables: { fill: '#ff0000' }, env: {}, timeoutSeconds: 60 });
    const browsers = browserChildren();
    assert.is(browsers.length, 1);
    const green = await renderer.render({ projectDir, variables: { fill: '#00ff00' }, env: {}, timeoutSeconds: 60 });
    assert.equal(browserChildren(), browsers, 'the second request launched a browser');
    const [r, g] = [colourAt(red, 'red.mp4'), colourAt(green, 'green.mp4')];
    assert.ok(r[0] > 230 && r[1] < 25 && r[2] < 25, `first render ${r}`);
    assert.ok(g[0] < 25 && g[1] > 230 && g[2] < 25, `second render ${g}`);
    assert.equal(fs.readdirSync(tmp).filter((e) => !e.startsWith('vidkit-pool-')), [], 'a render left its files');
  } finally {
    await renderer.close();
  }
  assert.equal(browserChildren(), []);
  assert.equal(fs.readdirSync(tmp).filter((e) => e.startsWith('vidkit-')), [], 'close() left the pool directory');
});

test('a render past its timeout fails with RenderTimeoutError, and its browser and files are gone', async () => {
  const renderer = new WarmTemplateRenderer();
  const err = await renderer.render({ projectDir: path.join(FIXTURES, 'endless-frame'), variables: {}, env: {}, timeoutSeconds: 2 }).catch((e: unknown) => e);
  assert.instance(err, RenderTimeoutError);
  assert.equal(browserChildren(), []);
  assert.equal(fs.readdirSync(tmp).filter((e) => e.startsWith('vidkit-')), []);
  await renderer.close();
});

test('text no font can draw is a warning in the log naming the element, the variable and the character; a name in each script of the fallback faces is not', async () => {
  const renderer = new WarmTemplateRenderer();
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void warnings.push(args.join(' '));
  try {
    const projectDir = path.join(FIXTURES, SCRIPT_NAMES_FIXTURE);
    const { names } = SCRIPT_NAMES_VARIABLES.variables;
    await renderer.render({ projectDir, variables: { names }, env: {}, timeoutSeconds: 60 });
    assert.equal(warnings, []);
    await renderer.render({ projectDir, variables: { names: `${names} \uE000` }, env: {}, timeoutSeconds: 60 });
    assert.is(warnings.length, 1, warnings.join('\n'));
    assert.ok(warnings[0].startsWith('vidkit: warning: <p#names> (variable "names") draws "\uE000" U+E000 as empty boxes: no font has it'), warnings[0]);
  } finally {
    console.warn = warn;
    await renderer.close();
  }
});

test.run();

