import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT } from '../test-support/cli';

// docs/reference/cli/ is generated from the commands' help in dist/: the committed pages must be
// what the script writes now, so a changed option or help text without regenerated docs fails.
const SCRIPT = path.join(REPO_ROOT, 'scripts', 'gen-cli-docs.mjs');

test('docs/reference/cli holds exactly the pages the commands\' help generates', () => {
  const r = spawnSync(process.execPath, [SCRIPT, '--check'], { cwd: REPO_ROOT, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
});

test('the check names a page that differs from the help, and one that is no command\'s', () => {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-cli-docs-'));
  try {
    fs.mkdirSync(path.join(copy, 'scripts'));
    fs.copyFileSync(SCRIPT, path.join(copy, 'scripts', 'gen-cli-docs.mjs'));
    fs.symlinkSync(path.join(REPO_ROOT, 'dist'), path.join(copy, 'dist'));
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(copy, 'node_modules'));
    fs.cpSync(path.join(REPO_ROOT, 'docs', 'reference', 'cli'), path.join(copy, 'docs', 'reference', 'cli'), { recursive: true });
    fs.appendFileSync(path.join(copy, 'docs', 'reference', 'cli', 'still.md'), 'an edit by hand\n');
    fs.writeFileSync(path.join(copy, 'docs', 'reference', 'cli', 'gone.md'), '# vidkit gone\n');
    const r = spawnSync(process.execPath, [path.join(copy, 'scripts', 'gen-cli-docs.mjs'), '--check'], { encoding: 'utf8' });
    assert.is(r.status, 1);
    assert.match(r.stderr, 'docs/reference/cli/still.md differs');
    assert.match(r.stderr, 'docs/reference/cli/gone.md is no command');
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
});

test.run();
