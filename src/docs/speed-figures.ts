// The speed table of README.md and docs/guide/render.md, written from the bench's results files
// (benches/results/*.json from `npm run bench`) rather than kept by hand: each row from the newest
// file that measured it, named with that file's date and machine. `npm run docs:speed` writes it
// between the markers and a test compares the committed pages.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const SPEED_PAGES = ['README.md', 'docs/guide/render.md'];
export const RESULTS_DIR = 'benches/results';
const START = '<!-- speed-figures:start (npm run docs:speed writes this table from benches/results) -->';
const END = '<!-- speed-figures:end -->';

interface Tool {
  medianWall: number;
  medianCpu?: number;
  peakRssMb: number;
  sizeMb: number;
  psnrDb: number;
}

interface BenchRow {
  composition: string;
  resolution: number;
  vidkit: Tool;
  peer?: Tool;
}

interface BenchFile {
  file: string;
  date: string;
  machine: { cpus: number; model: string; memGb?: number };
  rows: BenchRow[];
}

/**
 * The results files of `npm run bench` in `dir` (the compatibility suite's files have rows of
 * another kind; benches/results/latest.json is an uncommitted run).
 */
export function benchFiles(dir: string): BenchFile[] {
  const files: BenchFile[] = [];
  for (const name of fs.readdirSync(dir).sort()) {
    if (!name.endsWith('.json') || name === 'latest.json') continue;
    const record = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
    const rows = record.rows;
    if (!Array.isArray(rows) || rows.length === 0 || !rows.every((r) => typeof r?.vidkit?.medianWall === 'number')) continue;
    files.push({ file: name, date: record.date, machine: record.machine, rows });
  }
  return files;
}

/** Each composition and resolution from the newest file that measured it, in the bench's order of first appearance. */
export function newestRows(files: BenchFile[]): Array<{ row: BenchRow; from: BenchFile }> {
  const newestFirst = [...files].sort((a, b) => b.date.localeCompare(a.date));
  const byKey = new Map<string, { row: BenchRow; from: BenchFile }>();
  for (const from of newestFirst) {
    for (const row of from.rows) {
      const key = `${row.composition}-${row.resolution}`;
      if (!byKey.has(key)) byKey.set(key, { row, from });
    }
  }
  return [...byKey.values()].sort((a, b) => a.row.composition.localeCompare(b.row.composition) || b.row.resolution - a.row.resolution);
}

const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);

/** The Markdown table and its sources, without the markers. */
export function speedTable(dir: string): string {
  const rows = newestRows(benchFiles(dir));
  const lines = [
    '| composition | res | vidkit wall s | vidkit CPU s | peer wall s | wall ratio | PSNR diff dB | size ratio | peak memory ratio | results |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  const sources = new Map<string, BenchFile>();
  for (const { row, from } of rows) {
    const v = row.vidkit;
    const p = row.peer;
    sources.set(from.file, from);
    lines.push(
      `| ${row.composition} | ${row.resolution}p | ${f1(v.medianWall)} | ${v.medianCpu === undefined ? '-' : f1(v.medianCpu)} | ${p ? f1(p.medianWall) : '-'} | ` +
        `${p ? f2(v.medianWall / p.medianWall) : '-'} | ${p ? f2(v.psnrDb - p.psnrDb) : '-'} | ${p ? f2(v.sizeMb / p.sizeMb) : '-'} | ` +
        `${p ? f2(v.peakRssMb / p.peakRssMb) : '-'} | ${from.date.slice(0, 10)} |`,
    );
  }
  const legend = [...sources.values()].map((s) => {
    const memory = s.machine.memGb === undefined ? '' : `, ${Math.round(s.machine.memGb)} GiB`;
    return `\`${RESULTS_DIR}/${s.file}\` (${s.date.slice(0, 16).replace('T', ' ')} UTC, ${s.machine.cpus} cores of ${s.machine.model}${memory})`;
  });
  return `${lines.join('\n')}\n\nMedians of the runs, vidkit and the peer (hyperframes 0.8.170) alternating; ratios are vidkit's over the peer's. Each row comes from the newest results file that measured it: ${legend.join('; ')}.\n`;
}

/** `page` with the text between its markers replaced by `table`; an error when it has no markers. */
export function withSpeedTable(page: string, table: string, name: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${name} has no speed-figures markers`);
  return `${page.slice(0, start + START.length)}\n${table}${page.slice(end)}`;
}
