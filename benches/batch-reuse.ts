// `npm run bench:batch-reuse`: what segment reuse saves a batch (issue 49). The rows of
// `compositions/batch-personal` (15 s at 1080x1920, 30 fps: a-roll with sound, music, captions, the
// viewer's name in the first 3 s and in a lower third at 10-12 s) rendered two ways:
//   - `vidkit render --batch` (warm pool, `--batch-concurrency auto`, segments shared between rows);
//   - each row alone: a loop of `vidkit render` processes with as many workers as the batch ran browsers.
// Prints wall time, CPU seconds (user + system of the whole process tree, read from /proc) and bytes written per
// row, the batch's frames drawn and reused, the CPU ratio against the check (at most
// 0.35x, goal 0.2x), and how many rows' decoded frames are identical to their lone render's (both
// are joined from the same cells, each encoded alone: src/render/plan/cell-grid.ts), and the CPU s
// per frame drawn by each, beside the ratio of frames drawn (the CPU ratio at equal cost a frame).
//   npm run bench:batch-reuse -- [--rows 20] [--width 1080 --height 1920] [--format mp4]
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Measured, measure } from './lib/measure';
import { stageComposition, stageMedia } from './lib/stage';
import { printColumns } from './lib/table';
import { frameCount } from './lib/video';

const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
const { values: opts } = parseArgs({
  options: {
    rows: { type: 'string', default: '20' },
    width: { type: 'string', default: '1080' },
    height: { type: 'string', default: '1920' },
    format: { type: 'string', default: 'mp4' },
  },
});
const rowCount = Number(opts.rows);
const FRAMES = 450;
const NAMES = ['Ann', 'Bartholomew', 'Chloé', 'Dmitri', 'Eve', 'Fatima', 'Gustavo', 'Hana', 'Ivo', 'Jun'];

/** The a-roll and the music, made with ffmpeg's own sources when staged. */
const MEDIA: Record<string, string[]> = {
  'aroll.mp4': [
    '-f', 'lavfi', '-i', 'testsrc2=s=1080x1920:r=30:d=15,hue=H=2*PI*t/15',
    '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=15', '-af', 'volume=0.3', '-c:a', 'aac', '-b:a', '128k',
    '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '18', '-g', '60', '-pix_fmt', 'yuv420p',
  ],
  'music.m4a': ['-f', 'lavfi', '-i', 'sine=frequency=220:sample_rate=48000:duration=15', '-c:a', 'aac', '-b:a', '128k'],
};

/** Runs the CLI; its CPU seconds are those of the whole process tree, browsers included (`measure`). */
async function timed(args: string[], what: string): Promise<Measured> {
  const m = await measure(process.execPath, [CLI, ...args]);
  if (m.status !== 0) throw new Error(`${what} failed (exit ${m.status}): ${m.stderr.slice(-2000)}`);
  return m;
}

function checkFrames(file: string, what: string): void {
  const frames = frameCount(file);
  if (frames !== FRAMES) throw new Error(`${what}: ${file} has ${frames} frames, not ${FRAMES}`);
}

function frameMd5(file: string): string[] {
  return execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:v', '-f', 'framemd5', '-'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split(',').pop()!.trim());
}

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-bench-batch-reuse-'));
  // Rows of 1080x1920 ProRes take gigabytes: the folder goes whether the bench ends or fails.
  try {
    const dir = stageComposition(ROOT, 'batch-personal', path.join(work, 'compositions'));
    stageMedia(dir, MEDIA);
    const ext = `.${opts.format === 'mov' ? 'mov' : opts.format}`;
    const size = ['--width', opts.width!, '--height', opts.height!, '--format', opts.format!];
    const variables = Array.from({ length: rowCount }, (_, i) => ({ name: `${NAMES[i % NAMES.length]} ${i + 1}` }));
    const jsonl = path.join(work, 'rows.jsonl');
    fs.writeFileSync(jsonl, variables.map((v, i) => JSON.stringify({ outputKey: `row-${i}${ext}`, variables: v })).join('\n') + '\n');

    process.stderr.write(`bench:batch-reuse: vidkit render --batch, ${rowCount} rows\n`);
    const batchDir = path.join(work, 'batch');
    const batch = await timed(['render', dir, '--batch', jsonl, '--output-dir', batchDir, '--batch-concurrency', 'auto', '--json', ...size], 'vidkit --batch');
    const browsers = Number(/(\d+) at once/.exec(batch.stderr)?.[1] ?? 1);
    const rows = JSON.parse(batch.stdout) as Array<{ bytes?: number; reuse?: { framesRendered: number; framesReused: number; whole?: string } }>;
    const batchFiles = variables.map((_, i) => path.join(batchDir, `row-${i}${ext}`));
    batchFiles.forEach((f) => checkFrames(f, 'vidkit --batch'));

    const loneDir = path.join(work, 'lone');
    let lone = { wallSeconds: 0, cpuSeconds: 0, peakRssBytes: 0 };
    const loneFiles: string[] = [];
    for (let i = 0; i < rowCount; i++) {
      process.stderr.write(`bench:batch-reuse: vidkit render, row ${i + 1}/${rowCount}\n`);
      const output = path.join(loneDir, `row-${i}${ext}`);
      const m = await timed(['render', dir, '--output', output, '--variables', JSON.stringify(variables[i]), '--workers', String(browsers), ...size], `vidkit render row ${i}`);
      checkFrames(output, 'vidkit render');
      loneFiles.push(output);
      lone = { wallSeconds: lone.wallSeconds + m.wallSeconds, cpuSeconds: lone.cpuSeconds + m.cpuSeconds, peakRssBytes: Math.max(lone.peakRssBytes, m.peakRssBytes) };
    }

    const bytes = (files: string[]) => files.reduce((n, f) => n + fs.statSync(f).size, 0) / files.length;
    // A row's framesRendered counts the frames drawn for it alone; the shared segments are drawn once
    // for the whole batch, every frame of the first row's render, which that row then reuses whole.
    const shared = rows.some((r) => (r.reuse?.framesReused ?? 0) > 0) ? FRAMES : 0;
    const drawn = shared + rows.reduce((n, r) => n + (r.reuse?.framesRendered ?? FRAMES), 0);
    const reused = rows.reduce((n, r) => n + (r.reuse?.framesReused ?? 0), 0);
    const whole = rows.filter((r) => r.reuse?.whole !== undefined).length;
    const same = batchFiles.filter((f, i) => JSON.stringify(frameMd5(f)) === JSON.stringify(frameMd5(loneFiles[i]))).length;
    const f1 = (n: number) => n.toFixed(1);
    process.stdout.write(
      `${rowCount} rows of batch-personal (15 s, 30 fps) at ${opts.width}x${opts.height}, ${opts.format}, ${os.availableParallelism()} cores; ` +
        `the batch ran ${browsers} browsers, each lone render ${browsers} workers\n`,
    );
    printColumns([
      ['tool', 'wall s', 'CPU s', 'CPU s/row', 'MB/row', 'peak RSS MB'],
      ['vidkit --batch (reuse)', f1(batch.wallSeconds), f1(batch.cpuSeconds), f1(batch.cpuSeconds / rowCount), f1(bytes(batchFiles) / 2 ** 20), f1(batch.peakRssBytes / 2 ** 20)],
      ['each row alone', f1(lone.wallSeconds), f1(lone.cpuSeconds), f1(lone.cpuSeconds / rowCount), f1(bytes(loneFiles) / 2 ** 20), f1(lone.peakRssBytes / 2 ** 20)],
    ]);
    process.stdout.write(`\nframes drawn ${drawn} of ${rowCount * FRAMES} (${shared} of them once for every row; rows reused ${reused}), ${whole} rows rendered whole\n`);
    // A frame the batch draws costs what a lone render's frame costs (the same page, capture and
    // encoder), so the frames drawn set the CPU ratio the batch can reach: the floor below.
    const perFrame = (cpu: number, frames: number) => (cpu / frames).toFixed(3);
    process.stdout.write(
      `CPU s per frame drawn: batch ${perFrame(batch.cpuSeconds, drawn)}, each row alone ${perFrame(lone.cpuSeconds, rowCount * FRAMES)} (start-up included); ` +
        `frames drawn against each row alone: ${(drawn / (rowCount * FRAMES)).toFixed(3)}x, the CPU ratio at the same cost a frame\n`,
    );
    const ratio = batch.cpuSeconds / lone.cpuSeconds;
    printColumns([
      ['check', 'measured', 'wanted', 'met'],
      ['CPU s, batch vs each row alone', `${ratio.toFixed(2)}x`, '<= 0.35x (goal 0.2x)', ratio <= 0.35 ? 'yes' : 'NO'],
      ['rows frame-identical to their lone render', `${same}/${rowCount}`, `${rowCount}/${rowCount}`, same === rowCount ? 'yes' : 'NO'],
    ]);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`bench:batch-reuse: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
