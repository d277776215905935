// tier: unit
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT } from '../test-support/cli';
import { RESULTS_DIR, SPEED_PAGES, speedTable, withSpeedTable } from './speed-figures';

const table = speedTable(path.join(REPO_ROOT, RESULTS_DIR));

test('README.md and the render guide hold the speed table of the newest results files (npm run docs:speed writes it)', () => {
  for (const page of SPEED_PAGES) {
    const committed = fs.readFileSync(path.join(REPO_ROOT, page), 'utf8');
    assert.fixture(committed, withSpeedTable(committed, table, page), `${page}: run npm run docs:speed`);
  }
});

test('a newer results file replaces the rows it measured, named with its date, and leaves the others', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-speed-figures-'));
  try {
    const tool = (wall: number) => ({ medianWall: wall, medianCpu: wall * 1.8, peakRssMb: 900, sizeMb: 4, psnrDb: 40 });
    const machine = { cpus: 2, model: 'Test CPU', memGb: 23.5 };
    fs.writeFileSync(
      path.join(dir, '2026-01-01-a.json'),
      JSON.stringify({ date: '2026-01-01T10:00:00.000Z', machine, rows: [{ composition: 'slides', resolution: 1080, vidkit: tool(6), peer: tool(30) }, { composition: 'gsap-text', resolution: 1080, vidkit: tool(10), peer: tool(25) }] }),
    );
    fs.writeFileSync(path.join(dir, '2026-01-02-b.json'), JSON.stringify({ date: '2026-01-02T09:30:00.000Z', machine, note: 'why', rows: [{ composition: 'slides', resolution: 1080, vidkit: tool(3), peer: tool(30) }] }));
    // Neither a compatibility file (rows of another kind) nor an uncommitted run counts.
    fs.writeFileSync(path.join(dir, '2026-01-03-compat.json'), JSON.stringify({ date: '2026-01-03T00:00:00.000Z', machine, rows: [{ composition: 'x', verdict: 'pass' }] }));
    fs.writeFileSync(path.join(dir, 'latest.json'), JSON.stringify({ date: '2026-01-04T00:00:00.000Z', machine, rows: [{ composition: 'slides', resolution: 1080, vidkit: tool(1), peer: tool(30) }] }));
    const text = speedTable(dir);
    assert.match(text, '| slides | 1080p | 3.0 | 5.4 | 30.0 | 0.10 | 0.00 | 1.00 | 1.00 | 2026-01-02 |');
    assert.match(text, '| gsap-text | 1080p | 10.0 | 18.0 | 25.0 | 0.40 | 0.00 | 1.00 | 1.00 | 2026-01-01 |');
    assert.match(text, '`benches/results/2026-01-02-b.json` (2026-01-02 09:30 UTC, 2 cores of Test CPU, 24 GiB)');
    assert.not.match(text, '| 6.0 |');
    assert.not.match(text, '| 1.0 |');
    const page = withSpeedTable('# Speed\n<!-- speed-figures:start (npm run docs:speed writes this table from benches/results) -->\nold\n<!-- speed-figures:end -->\nafter\n', text, 'page');
    assert.ok(page.endsWith(`${text}<!-- speed-figures:end -->\nafter\n`));
    assert.not.match(page, 'old');
    assert.throws(() => withSpeedTable('# no markers\n', text, 'page.md'), /page.md has no speed-figures markers/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
