// `tsx benches/compat/fuzz/self-check.ts`: checks the fuzzer without rendering a page. The
// generator gives the same cases and files for a seed (and other cases for another seed), the
// reducer, against a fake oracle (a plain function of the parts), finds the known minimal part set
// with its numeric options simplified and stays within its test budget, and the oracle's cells tile
// the frame and find a difference in one cell of one frame (two clips ffmpeg makes). Exits 1 if a check fails.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { framePsnr } from '../../lib/video';
import { PASS_DB } from '../suite';
import { CELLS, generateCase, projectFiles } from './compose';
import { cellNotes, compareCells } from './oracle';
import { cellRect, KIND_NAMES, Part, simplestOptions } from './parts';
import { reduce } from './reduce';

const checks: Array<[string, () => Promise<void> | void]> = [];
const check = (name: string, fn: () => Promise<void> | void) => checks.push([name, fn]);

check('the generator is deterministic for a seed', () => {
  for (let index = 0; index < 50; index++) {
    const a = generateCase(7, index);
    const b = generateCase(7, index);
    assert.deepEqual(a, b);
    assert.deepEqual(projectFiles(a.parts, 't'), projectFiles(b.parts, 't'));
  }
});

check('another seed gives other cases, and a run covers every kind of part', () => {
  const one = Array.from({ length: 50 }, (_, i) => JSON.stringify(generateCase(1, i).parts));
  const two = Array.from({ length: 50 }, (_, i) => JSON.stringify(generateCase(2, i).parts));
  assert.ok(one.filter((c, i) => c !== two[i]).length >= 45);
  const kinds = new Set(Array.from({ length: 200 }, (_, i) => generateCase(1, i).parts.map((p) => p.kind)).flat());
  assert.deepEqual([...kinds].sort(), [...KIND_NAMES].sort());
});

check('parts keep their cells apart, and a page loads GSAP exactly when a part uses it', () => {
  for (let index = 0; index < 200; index++) {
    const { parts } = generateCase(3, index);
    assert.equal(new Set(parts.map((p) => p.cell)).size, parts.length);
    const html = projectFiles(parts, 't')['index.html'];
    assert.equal(html.includes('gsap.min.js'), html.includes("window.__timelines['fuzz'] = main"));
    assert.equal(html.includes('data-no-timeline'), !html.includes('gsap.min.js'));
  }
});

check('the cells tile the 640x360 frame, each pixel in exactly one', () => {
  const covered = new Uint8Array(640 * 360);
  for (let cell = 0; cell < CELLS; cell++) {
    const r = cellRect(cell);
    for (let y = r.y; y < r.y + r.height; y++) for (let x = r.x; x < r.x + r.width; x++) covered[y * 640 + x] += 1;
  }
  assert.ok(covered.every((n) => n === 1));
});

check('the oracle finds a box a frame late in its own cell, which whole frames pass', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-fuzz-cells-'));
  try {
    // A 40x40 box in cell 4, 8 px further on frame 1 of 2.
    const box = (x: number, frame: number) => `drawbox=x=${x}:y=240:w=40:h=40:color=0xe9c46a:t=fill:enable='eq(n,${frame})'`;
    const clip = (file: string, dx: number) =>
      execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=0x101820:s=640x360:r=30:d=0.0667', '-vf', `${box(250, 0)},${box(250 + dx, 1)}`, '-c:v', 'ffv1', path.join(dir, file)]);
    clip('a.mkv', 0);
    clip('b.mkv', 8);
    const [a, b] = [path.join(dir, 'a.mkv'), path.join(dir, 'b.mkv')];
    assert.ok(Math.min(...framePsnr(a, b)) >= PASS_DB);
    const cells = compareCells(a, b);
    assert.deepEqual(
      cells.filter((c) => c.framesUnder > 0).map((c) => [c.cell, c.worstFrame, c.framesUnder]),
      [[4, 1, 1]],
    );
    assert.equal(cellNotes(cells, 2).length, 1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** Eight parts; the fake tool fails when a CSS transition triggered by the timeline shares the page with a GSAP tween outside it. */
function planted(): Part[] {
  const filler: Part[] = KIND_NAMES.filter((k) => k !== 'css-transition' && k !== 'gsap-global')
    .slice(0, 6)
    .map((kind, i) => ({ kind, cell: i, options: { ...simplestOptions(kind) } }));
  return [
    ...filler.slice(0, 3),
    { kind: 'css-transition', cell: 3, options: { trigger: 'timeline-set', prop: 'opacity', at: 0.7, duration: 0.8, easing: 'steps(4)' } },
    ...filler.slice(3),
    { kind: 'gsap-global', cell: 5, options: { mode: 'delayed-call', delay: 0.4, duration: 0.6 } },
  ];
}
const fakeFails = (parts: Part[]) =>
  parts.some((p) => p.kind === 'css-transition' && String(p.options.trigger).startsWith('timeline')) && parts.some((p) => p.kind === 'gsap-global' && p.options.mode !== 'tween');

check('the reducer finds the minimal part set, numeric options simplified and named ones kept', async () => {
  const parts = planted();
  assert.ok(fakeFails(parts));
  let asked = 0;
  const { parts: reduced, tests } = await reduce(parts, async (c) => {
    asked++;
    return fakeFails(c);
  });
  assert.equal(tests, asked);
  assert.deepEqual(
    reduced.map((p) => [p.kind, p.options]),
    [
      ['css-transition', { trigger: 'timeline-set', prop: 'opacity', at: 0, duration: 0.5, easing: 'steps(4)' }],
      ['gsap-global', { mode: 'delayed-call', delay: 0, duration: 1 }],
    ],
  );
});

check('the reducer stops at its test budget with a set that still fails', async () => {
  const { parts: reduced, tests } = await reduce(planted(), async (c) => fakeFails(c), 3);
  assert.ok(tests <= 3);
  assert.ok(fakeFails(reduced));
});

async function main(): Promise<void> {
  let passed = 0;
  for (const [name, fn] of checks) {
    try {
      await fn();
      passed += 1;
      process.stdout.write(`ok   ${name}\n`);
    } catch (err) {
      process.stdout.write(`FAIL ${name}\n${err instanceof Error ? err.message : String(err)}\n`);
    }
  }
  process.stdout.write(`${passed} of ${checks.length} checks pass\n`);
  if (passed < checks.length) process.exitCode = 1;
}

void main();
