import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir, vidkit } from '../test-support/cli';
import { cli } from './main';

/** Runs the CLI in this process, as main.ts does, capturing what it writes. */
async function run(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const sink = (key: 'stdout' | 'stderr') =>
    new Writable({
      write(chunk, _encoding, done) {
        out[key] += String(chunk);
        done();
      },
    });
  const status = await cli.run(args, { stdout: sink('stdout') as never, stderr: sink('stderr') as never });
  return { status, ...out };
}

// Read from the CLI itself, so that every command registered later is checked too.
const commandPaths = cli.commands().flatMap((c) => c.paths).filter((p) => p.length > 0 && !p[0].startsWith('-'));
const groupPaths = cli.groups();

test('the CLI knows its commands and groups', () => {
  const names = commandPaths.map((p) => p.join(' '));
  for (const name of ['render', 'cloudfn render', 'cloudfn sites create', 'doctor', 'benchmark', 'completion', 'help']) assert.ok(names.includes(name), name);
  assert.ok(groupPaths.some((g) => g.join(' ') === 'cloudfn'));
  assert.ok(groupPaths.some((g) => g.join(' ') === 'cloudfn sites'));
});

test('every command and group: --help exits 0 with named placeholders; a command lists its exit codes', async () => {
  for (const words of [...commandPaths, ...groupPaths]) {
    const help = await run([...words, '--help']);
    const name = words.join(' ');
    assert.is(help.status, 0, `${name} --help: ${help.stderr}`);
    assert.is(help.stderr, '', name);
    assert.not.match(help.stdout, /#\d/, `${name} --help shows an unnamed placeholder`);
    if (groupPaths.includes(words)) {
      for (const sub of commandPaths.filter((p) => p.length > words.length && words.every((w, i) => p[i] === w))) {
        assert.ok(help.stdout.includes(`vidkit ${sub.join(' ')}`), `${name} --help lists ${sub.join(' ')}`);
      }
      assert.equal(await run(words), help, `bare ${name} prints its help`);
    } else {
      assert.match(help.stdout, /Exit codes\n\n\s+0  \S/, `${name} --help lists its exit codes`);
      assert.equal(await run(['help', ...words]), help, `vidkit help ${name}`);
    }
  }
});

test('every command: an option it does not take is bad input, exit 2, the error on stderr', async () => {
  for (const words of commandPaths) {
    const bad = await run([...words, '--no-such-option']);
    assert.equal([bad.status, bad.stdout], [2, ''], words.join(' '));
    assert.match(bad.stderr, /Unsupported option name \("--no-such-option"\)/);
    assert.not.match(bad.stderr, /#\d/);
  }
});

test('the vidkit program: help, groups, placeholders and usage errors as a user sees them', () => {
  const help = vidkit(['help']);
  assert.is(help.status, 0, help.stderr);
  assert.equal(help.stdout, vidkit(['--help']).stdout);
  assert.ok(help.stdout.includes('vidkit cloudfn render [--format <format>]'), help.stdout);

  const group = vidkit(['cloudfn', 'sites', '--help']);
  assert.is(group.status, 0, group.stderr);
  assert.ok(group.stdout.includes('vidkit cloudfn sites create [--bucket <bucket>] [--stack-name <stack-name>] [--json] <projectDir>'), group.stdout);
  assert.not.match(group.stdout, /\x1b\[/, 'no colours when stdout is not a terminal');

  const render = vidkit(['render', '--help']);
  assert.ok(render.stdout.includes('--output,-o <output>'), render.stdout);
  assert.not.match(render.stdout, /\.mp4,[\s\S]{0,40}\.mp4/, 'the list of extensions names .mp4 once');

  const late = vidkit(['render', 'my-video', '--output', 'x.mp4', '--help']);
  assert.equal([late.status, late.stdout], [0, render.stdout], '--help after the arguments');

  const cases: string[][] = [['render'], ['render', 'x', '--fps'], ['no-such-command'], ['cloudfn', 'nope'], ['help', 'nope'], ['completion', 'tcsh'], ['render', 'x', '--workers', 'many']];
  for (const args of cases) {
    const r = vidkit(args);
    assert.equal([r.status, r.stdout], [2, ''], args.join(' '));
    assert.ok(r.stderr.length > 0, args.join(' '));
  }
});

/** What bash completes for `line` (the cursor at its end) with the script `vidkit completion bash` printed. */
function bashComplete(script: string, line: string): string[] {
  const r = spawnSync(
    'bash',
    ['--norc', '-c', `source "$1"; read -ra COMP_WORDS <<< "$2"; [[ $2 == *' ' ]] && COMP_WORDS+=(''); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _vidkit; printf '%s\\n' "\${COMPREPLY[@]}"`, 'bash', script, line],
    { encoding: 'utf8' },
  );
  assert.is(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean);
}

test('vidkit completion bash: registers _vidkit and completes commands, groups and options', () => {
  const printed = vidkit(['completion', 'bash']);
  assert.is(printed.status, 0, printed.stderr);
  const script = path.join(tempDir('vidkit-completion-'), 'vidkit.bash');
  fs.writeFileSync(script, printed.stdout);

  const registered = spawnSync('bash', ['--norc', '-c', 'source "$1" && complete -p vidkit', 'bash', script], { encoding: 'utf8' });
  assert.equal([registered.status, registered.stdout.trim()], [0, 'complete -o bashdefault -o default -F _vidkit vidkit']);

  const top = bashComplete(script, 'vidkit ');
  for (const words of commandPaths) assert.ok(top.includes(words[0]), `vidkit <TAB> offers ${words[0]}`);
  assert.equal(bashComplete(script, 'vidkit cloudfn s'), ['sites']);
  assert.ok(bashComplete(script, 'vidkit cloudfn sites ').includes('create'));
  assert.equal(bashComplete(script, 'vidkit render my-video --out'), ['--output', '--output-key', '--output-dir']);
  assert.equal(bashComplete(script, 'vidkit render --output x.mp4 --js'), ['--json']);
  assert.equal(bashComplete(script, 'vidkit cloudfn render --wait --state'), ['--state-machine-arn']);
  // The word after a value option is its value: left to the shell's file completion.
  assert.equal(bashComplete(script, 'vidkit render --output --j'), []);
});

test('vidkit completion zsh and fish: every command and option of every command', () => {
  for (const shell of ['zsh', 'fish']) {
    const printed = vidkit(['completion', shell]);
    assert.is(printed.status, 0, printed.stderr);
    for (const c of cli.commands()) {
      for (const words of c.paths.filter((p) => p.length > 0 && !p[0].startsWith('-'))) {
        for (const w of words) assert.ok(printed.stdout.includes(w), `${shell}: ${w}`);
      }
      for (const o of c.options.filter((o) => !o.hidden)) {
        const long = o.names.find((n) => n.startsWith('--'))!;
        assert.ok(printed.stdout.includes(shell === 'fish' ? `-l ${long.slice(2)}` : `${long}:`), `${shell}: ${long}`);
      }
    }
  }
});

test.run();
