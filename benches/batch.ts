// `npm run bench:batch`: the batch path at scale, against its targets (issue 5): a 100,000-line
// JSONL file parsed natively (median of 5, target < 100 ms) and a `render-batch --dry-run` over it
// (whole-process peak RSS, target < 200 MB). No peer: no other tool parses our batch format.
//   npm run bench:batch -- [--lines 100000]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { loadNative } from '../dist/native';
import { measure, median } from './lib/measure';

const ROOT = path.resolve(__dirname, '..');
const { values: opts } = parseArgs({ options: { lines: { type: 'string', default: '100000' } } });
const lines = Number(opts.lines);

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-bench-batch-'));
  try {
    const file = path.join(dir, 'batch.jsonl');
    const out = fs.createWriteStream(file);
    for (let i = 0; i < lines; i++) {
      out.write(`${JSON.stringify({ outputKey: `renders/viewer-${i}.mp4`, variables: { headline: `Hello viewer ${i}`, accent: '#ff3366', cards: 3, showBadge: i % 2 === 0, theme: 'dark' } })}\n`);
    }
    await new Promise((resolve) => out.end(resolve));
    const bytes = fs.statSync(file).size;

    const native = loadNative();
    const parseMs: number[] = [];
    let entries = 0;
    for (let run = 0; run < 5; run++) {
      const started = process.hrtime.bigint();
      entries = (await native.parseBatchFile(file)).spans.length / 4;
      parseMs.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    if (entries !== lines) throw new Error(`parsed ${entries} entries of ${lines}`);

    const dry = await measure(process.execPath, [path.join(ROOT, 'dist', 'cli', 'main.js'), 'cloudfn', 'render-batch', path.join(ROOT, 'examples', 'ui-3d-reveal'), '--batch', file, '--dry-run', '--json'], {
      VIDKIT_BUCKET: 'bench-dry-run',
    });
    if (dry.status !== 0) throw new Error(`dry run exited ${dry.status}: ${dry.stderr.slice(-2000)}`);
    const rows = JSON.parse(dry.stdout) as Array<{ status: string }>;
    const wouldInvoke = rows.filter((r) => r.status === 'would-invoke').length;

    const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
    const table = [
      ['measure', 'value', 'target', 'met'],
      [`native parse of ${lines} lines (${mb(bytes)} MB), median of 5`, `${median(parseMs).toFixed(1)} ms`, '< 100 ms', median(parseMs) < 100 ? 'yes' : 'NO'],
      [`render-batch --dry-run over ${lines} lines, peak RSS`, `${mb(dry.peakRssBytes)} MB`, '< 200 MB', dry.peakRssBytes < 200 * 1024 * 1024 ? 'yes' : 'NO'],
      ['render-batch --dry-run, wall', `${dry.wallSeconds.toFixed(1)} s`, '-', '-'],
      ['rows would-invoke', String(wouldInvoke), String(lines), wouldInvoke === lines ? 'yes' : 'NO'],
    ];
    const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
    for (const row of table) process.stdout.write(`${row.map((c, i) => c.padEnd(widths[i])).join(' | ')}\n`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
