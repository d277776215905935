// tier: unit
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from '../cli/main';
import { VidkitError, render } from '../index';
import { resolveConfig } from '../sdk/validate-config';
import { REPO_ROOT } from '../test-support/cli';
import { dockerArgv } from './cli-options';
import { REFERENCE_PAGE, renderOptionsPage } from './reference-page';
import { RENDER_OPTIONS, Surface, renderOptionEntries } from './registry';

// The render option table is the one declaration of every render option: the commands, the Docker
// argv, render()'s checks and the reference page are all made from it. These tests fail when a
// flag is declared a second time, when a command lacks an option its surface promises, or when
// the committed page differs from what the table writes.
const test = suite('render option registry');

/** Every non-test TypeScript file under src/. */
function sources(dir = path.join(REPO_ROOT, 'src')): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'test-support' || e.name === 'node_modules' ? [] : sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

test('each flag appears as a string literal in one file of src/: the registry', () => {
  const files = sources().map((f) => ({ file: path.relative(REPO_ROOT, f), text: fs.readFileSync(f, 'utf8') }));
  for (const [, spec] of renderOptionEntries()) {
    // A declaration names the flag as a quoted string of its own: '--fps' or '--output,-o'
    // (prose in comments and usage text, in backquotes, is no declaration).
    const literal = new RegExp(`['"]${spec.flag}(?:,-\\w)?['"]`, 'g');
    const found = files.flatMap(({ file, text }) => (text.match(literal) ?? []).map(() => file));
    assert.equal(found, ['src/options/registry.ts'], `${spec.flag} is declared in ${found.join(', ')}`);
  }
});

test('the committed reference page is what the table writes (npm run docs:options)', () => {
  const committed = fs.readFileSync(path.join(REPO_ROOT, REFERENCE_PAGE), 'utf8');
  assert.equal(committed, renderOptionsPage());
});

/** The command of each surface: it must take every option the table applies to the surface, and no other but hidden ones. */
const COMMANDS: [string, Surface[]][] = [
  ['render', ['render', 'batch']],
  ['still', ['still']],
  ['cloudfn render', ['cloudfn']],
  ['cloudfn render-batch', ['cloudfn-batch']],
];

test('each command of a surface takes every option the table applies to it, and shows no other', () => {
  const commands = cli.commands();
  for (const [command, surfaces] of COMMANDS) {
    const info = commands.find((c) => c.paths.some((p) => p.join(' ') === command));
    assert.ok(info, command);
    const shown = new Set(info.options.filter((o) => !o.hidden).flatMap((o) => o.names));
    for (const [, spec] of renderOptionEntries()) {
      const applies = spec.appliesTo.some((s) => surfaces.includes(s));
      assert.is(shown.has(spec.flag), applies, `vidkit ${command} ${applies ? 'lacks' : 'shows'} ${spec.flag} (the table applies it to ${spec.appliesTo.join(', ')})`);
    }
  }
});

test('every surface but the APIs has its command', () => {
  const covered = new Set(COMMANDS.flatMap(([, surfaces]) => surfaces));
  const all = new Set(renderOptionEntries().flatMap(([, spec]) => spec.appliesTo));
  assert.equal([...all].filter((s) => !covered.has(s)), ['sdk']);
});

test('--help shows the description the table holds', () => {
  const render = cli.commands().find((c) => c.paths.some((p) => p.join(' ') === 'render'))!;
  for (const [, spec] of renderOptionEntries()) {
    if (!spec.appliesTo.includes('render') && !spec.appliesTo.includes('batch')) continue;
    const option = render.options.find((o) => o.names.includes(spec.flag));
    assert.is(option?.description, spec.description, spec.flag);
  }
});

test('the Docker argv passes what differs from the defaults, values joined with =', () => {
  const argv = dockerArgv({
    workers: 'auto',
    capture: 'screenshot',
    seed: '-starts-with-a-dash',
    epoch: '-86400000',
    browserGpu: false,
    strict: true,
    strictVariables: false,
    allowPrivateNetwork: true,
    docker: true,
    output: 'x.mp4',
    batch: 'rows.jsonl',
  });
  assert.equal(argv, [
    '--workers=auto',
    '--no-browser-gpu',
    '--capture=screenshot',
    '--allow-private-network',
    '--seed=-starts-with-a-dash',
    '--epoch=-86400000',
    '--strict',
  ]);
});

test('render() and the SDK config refuse an fps over the ceiling, naming the option', async () => {
  const ceiling = RENDER_OPTIONS.fps.description.match(/at most (\d+)/)![1];
  const err = await render({ projectDir: 'no-such-project', fps: Number(ceiling) + 1 }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.instance(err, VidkitError);
  assert.is((err as VidkitError).exitCode, 2);
  assert.match((err as VidkitError).message, `options.fps must be a number above 0 and at most ${ceiling}`);
  assert.throws(() => resolveConfig({ fps: Number(ceiling) + 1 }), (e: Error) => e.message.includes(`config.fps: must be a number above 0 and at most ${ceiling}`));
  assert.is(resolveConfig({ fps: Number(ceiling) }).fps, Number(ceiling));
});

test.run();
