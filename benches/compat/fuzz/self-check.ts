// `tsx benches/compat/fuzz/self-check.ts`: checks the fuzzer without rendering anything. The
// generator gives the same cases and files for a seed (and other cases for another seed), and the
// reducer, against a fake oracle (a plain function of the parts), finds the known minimal part set
// with its numeric options simplified and stays within its test budget. Exits 1 on the first failure.
import * as assert from 'node:assert/strict';
import { generateCase, projectFiles } from './compose';
import { KIND_NAMES, Part, simplestOptions } from './parts';
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
