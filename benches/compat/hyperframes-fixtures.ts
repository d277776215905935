// `npm run compat -- --hyperframes <checkout>`: every regression fixture of HyperFrames' producer
// (packages/producer/tests of a local checkout of heygen-com/hyperframes, kept outside this
// repository) staged once (fixture-stage.ts), rendered by the peer and by vidkit with the settings
// of its meta.json, compared frame by frame and gated by that meta: a frame fails below its
// minPsnr; the fixture passes when no more than maxFrameFailures frames fail, both tools made as
// many frames of the same size, and, where the meta asks, the soundtracks' loudness envelopes
// correlate as well as it says. Prints a table; writes JSON as it goes.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { envelopeCorrelation, rmsEnvelope } from '../lib/audio';
import { Measured, measure } from '../lib/measure';
import { printColumns } from '../lib/table';
import { frameCount, framePsnr, frameSize } from '../lib/video';
import { Fixture, FixtureMeta, discoverFixtures, notRunnable, renderFlags } from './fixture-meta';
import { StageError, stageFixture } from './fixture-stage';

export interface FixtureRunOptions {
  /** The hyperframes checkout. */
  checkout: string;
  /** Fixture names to run; every fixture when absent. */
  only?: string[];
  /** Keep the staged projects and renders in this folder. */
  keep?: string;
  out: string;
  /** Seconds one render may take before it is stopped and reported. */
  timeoutSeconds: number;
  /**
   * Folders kept by earlier runs (--keep): a fixture whose peer render one of them holds
   * (`<fixture>-peer.<format>`, first folder first) is compared with that render instead of
   * rendering the peer again. The peer's pictures do not depend on vidkit's code, so a change to
   * vidkit is checked in a third of the time; the row says which render it used.
   */
  peerRenders?: string[];
}

/** `error`: the harness itself failed on the fixture (staging, decoding, comparing), named in the note. */
export type FixtureVerdict = 'pass' | 'FAIL' | 'peer failed' | 'not run' | 'error';

export interface FixtureRow {
  fixture: string;
  tags: string[];
  verdict: FixtureVerdict;
  /** The meta's gate; absent for a fixture whose meta is not valid. */
  gate?: { minPsnr: number; maxFrameFailures: number; audio?: { minCorrelation: number; maxLagWindows: number } };
  frames: { vidkit: number | null; peer: number | null };
  /** vidkit's frame i against the peer's frame i, dB; null where identical (infinite PSNR). */
  psnr: Array<number | null>;
  minDb: number | null;
  /** Frames under the meta's minPsnr. */
  failures: number | null;
  /** The soundtracks' envelope correlation at its best lag (hops of 64 ms), or why it was not measured. */
  audio: { correlation: number; lagWindows: number } | { notChecked: string } | null;
  wallSeconds: { vidkit: number | null; peer: number | null };
  timedOut?: Array<'vidkit' | 'peer'>;
  /** What staging replaced, settings of the meta that change nothing here, and why a row failed. */
  notes: string[];
}

const ROOT = path.resolve(__dirname, '..', '..');

export async function runHyperframesFixtures(opts: FixtureRunOptions): Promise<number> {
  const checkout = path.resolve(opts.checkout);
  let fixtures = discoverFixtures(checkout);
  if (opts.only) {
    const unknown = opts.only.filter((id) => !fixtures.some((f) => f.id === id));
    if (unknown.length > 0) throw new Error(`--only: no fixture ${unknown.join(', ')} in ${checkout}/packages/producer/tests`);
    fixtures = fixtures.filter((f) => opts.only!.includes(f.id));
  }
  const work = opts.keep ? path.resolve(opts.keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-compat-hf-'));
  fs.mkdirSync(work, { recursive: true });
  const record = { date: new Date().toISOString(), checkout, machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model }, timeoutSeconds: opts.timeoutSeconds, rows: [] as FixtureRow[] };
  process.stderr.write(`compat: ${fixtures.length} HyperFrames fixtures, smallest first\n`);
  try {
    for (const fixture of fixtures) {
      const row = await runFixture(fixture, work, opts.timeoutSeconds, opts.peerRenders ?? []).catch((err: unknown) => harnessError(fixture, err));
      record.rows.push(row);
      // A full run takes hours: each row's outcome, and the results so far, as it lands.
      process.stderr.write(`compat: ${row.fixture}: ${row.verdict}, frames ${row.frames.vidkit ?? '-'}/${row.frames.peer ?? '-'}, min ${db(row.minDb)} dB, failures ${failures(row)}, audio ${audio(row)}, wall ${wall(row)}${row.notes.length ? `; ${row.notes.join('; ')}` : ''}\n`);
      fs.mkdirSync(path.dirname(path.resolve(opts.out)), { recursive: true });
      fs.writeFileSync(opts.out, `${JSON.stringify(record, null, 2)}\n`);
    }
  } finally {
    if (!opts.keep) fs.rmSync(work, { recursive: true, force: true });
  }
  printTable(record.rows);
  process.stderr.write(`compat: results written to ${opts.out}${opts.keep ? `; staged projects and renders kept in ${work}` : ''}\n`);
  return record.rows.some((r) => r.verdict === 'FAIL' || r.verdict === 'error') ? 1 : 0;
}

async function runFixture(fixture: Fixture, work: string, timeoutSeconds: number, peerRenders: string[]): Promise<FixtureRow> {
  const row: FixtureRow = {
    fixture: fixture.id,
    tags: fixture.tags,
    verdict: 'not run',
    frames: { vidkit: null, peer: null },
    psnr: [],
    minDb: null,
    failures: null,
    audio: null,
    wallSeconds: { vidkit: null, peer: null },
    notes: [],
  };
  if ('invalid' in fixture.meta) return { ...row, notes: [fixture.meta.invalid] };
  const meta = fixture.meta;
  row.gate = { minPsnr: meta.minPsnr, maxFrameFailures: meta.maxFrameFailures, audio: meta.audio };
  const cannot = notRunnable(meta);
  if (cannot) return { ...row, notes: [cannot] };
  let project: string;
  try {
    const staged = stageFixture(ROOT, fixture, path.join(work, 'staged'), path.join(work, 'stand-ins'));
    project = staged.project;
    row.notes.push(...staged.notes);
  } catch (err) {
    if (err instanceof StageError) return { ...row, notes: [`not staged: ${err.message}`] };
    throw err;
  }
  row.notes.push(...meta.ignored.map((setting) => `ignored: ${setting}`));
  if (meta.experimentalFastCapture) row.notes.push('the peer with --experimental-fast-capture, vidkit with its own capture');

  const flags = renderFlags(meta);
  const ext = meta.format === 'png-sequence' ? '' : `.${meta.format}`;
  const peerOut = path.join(work, `${fixture.id}-peer${ext}`);
  const vidkitOut = path.join(work, `${fixture.id}-vidkit${ext}`);
  for (const out of [peerOut, vidkitOut]) fs.rmSync(out, { recursive: true, force: true });
  const limitMs = timeoutSeconds * 1000;
  const earlier = peerRenders.map((dir) => path.join(path.resolve(dir), path.basename(peerOut))).find((file) => fs.existsSync(file));
  // null: the peer's render of an earlier run is used.
  let peer: Measured | null = null;
  if (earlier) {
    fs.cpSync(earlier, peerOut, { recursive: true });
    row.notes.push(`the peer's render of an earlier run: ${earlier}`);
  } else {
    process.stderr.write(`compat: ${fixture.id}: peer\n`);
    peer = await measure('bash', [path.join(ROOT, 'benches', 'peer', 'render.sh'), project, peerOut, ...flags.peer], flags.peerEnv, limitMs);
  }
  process.stderr.write(`compat: ${fixture.id}: vidkit\n`);
  const vidkit = await measure(process.execPath, [path.join(ROOT, 'dist', 'cli', 'main.js'), 'render', project, '--output', vidkitOut, '--json', ...flags.vidkit], {}, limitMs);
  row.wallSeconds = { vidkit: vidkit.wallSeconds, peer: peer?.wallSeconds ?? null };
  const timedOut = ([['peer', peer], ['vidkit', vidkit]] as const).filter(([, m]) => m?.timedOut).map(([tool]) => tool);
  if (timedOut.length > 0) row.timedOut = timedOut;

  if (peer && peer.status !== 0) return { ...row, verdict: 'peer failed', notes: [...row.notes, failure(peer, 'peer', timeoutSeconds)] };
  const [peerVideo, vidkitVideo] = meta.format === 'png-sequence' ? [asVideo(peerOut, meta), null] : [peerOut, vidkitOut];
  row.frames.peer = frameCount(peerVideo);
  if (vidkit.status !== 0) return { ...row, verdict: 'FAIL', notes: [...row.notes, failure(vidkit, 'vidkit', timeoutSeconds)] };
  const vidkitFile = vidkitVideo ?? asVideo(vidkitOut, meta);
  row.frames.vidkit = frameCount(vidkitFile);
  compare(row, meta, vidkitFile, peerVideo);
  return row;
}

function harnessError(fixture: Fixture, err: unknown): FixtureRow {
  return {
    fixture: fixture.id,
    tags: fixture.tags,
    verdict: 'error',
    frames: { vidkit: null, peer: null },
    psnr: [],
    minDb: null,
    failures: null,
    audio: null,
    wallSeconds: { vidkit: null, peer: null },
    notes: [`harness error: ${err instanceof Error ? err.message.slice(0, 300) : String(err)}`],
  };
}

/** Fills in the picture and sound comparison and the verdict. */
function compare(row: FixtureRow, meta: FixtureMeta, vidkitFile: string, peerFile: string): void {
  const [vs, ps] = [frameSize(vidkitFile), frameSize(peerFile)];
  if (vs.width !== ps.width || vs.height !== ps.height) {
    row.verdict = 'FAIL';
    row.notes.push(`size differs: vidkit ${vs.width}x${vs.height}, peer ${ps.width}x${ps.height}`);
    return;
  }
  let pass = true;
  if (row.frames.vidkit !== row.frames.peer) {
    pass = false;
    row.notes.push(`frame count differs (compared the first ${Math.min(row.frames.vidkit!, row.frames.peer!)})`);
  }
  // webm, mov and png-sequence carry alpha: compared premultiplied, the alpha plane counting.
  const psnr = framePsnr(vidkitFile, peerFile, { alpha: meta.format !== 'mp4' });
  row.psnr = psnr.map((v) => (Number.isFinite(v) ? v : null));
  row.minDb = psnr.length > 0 ? Math.min(...psnr) : null;
  row.failures = psnr.filter((v) => v < meta.minPsnr).length;
  if (row.failures > meta.maxFrameFailures) {
    pass = false;
    const worst = psnr.indexOf(Math.min(...psnr));
    row.notes.push(`${row.failures} of ${psnr.length} frames under ${meta.minPsnr} dB, the lowest frame ${worst} (${worst / (meta.fps.num / meta.fps.den)} s)`);
  }
  if (meta.audio) {
    if (meta.format === 'png-sequence') {
      row.audio = { notChecked: 'a png-sequence has no sound' };
    } else {
      const { correlation, lag } = envelopeCorrelation(rmsEnvelope(vidkitFile), rmsEnvelope(peerFile), meta.audio.maxLagWindows);
      if (Number.isNaN(correlation)) {
        row.audio = { notChecked: 'too short for the envelope comparison (33 hops of 64 ms at least)' };
      } else {
        row.audio = { correlation, lagWindows: lag };
        if (correlation < meta.audio.minCorrelation) {
          pass = false;
          row.notes.push(`sound correlates ${correlation.toFixed(3)} with the peer's (lag ${lag}), under ${meta.audio.minCorrelation}`);
        }
      }
    }
  }
  row.verdict = pass ? 'pass' : 'FAIL';
}

/** A png-sequence directory as one lossless video (FFV1, RGBA) at the fixture's rate, for the frame comparison. */
function asVideo(dir: string, meta: FixtureMeta): string {
  const video = `${dir}.mkv`;
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-framerate', `${meta.fps.num}/${meta.fps.den}`, '-pattern_type', 'glob', '-i', path.join(dir, '*.png'), '-c:v', 'ffv1', '-pix_fmt', 'bgra', video]);
  return video;
}

/** The last error line a tool printed, or that it was stopped at the time limit. */
function failure(m: Measured, tool: string, timeoutSeconds: number): string {
  if (m.timedOut) return `${tool} stopped after ${timeoutSeconds} s (a render that hangs)`;
  const lines = `${m.stderr}\n${m.stdout}`.split('\n').map((l) => l.trim()).filter(Boolean);
  const error = [...lines].reverse().find((l) => /error/i.test(l)) ?? lines[lines.length - 1] ?? '';
  return `${tool} exited ${m.status}: ${error.slice(0, 200)}`;
}

const db = (n: number | null) => (n === null ? '-' : Number.isFinite(n) ? n.toFixed(1) : 'inf');
const failures = (r: FixtureRow) => (r.gate ? `${r.failures ?? '-'}/${r.gate.maxFrameFailures}` : '-');
const wall = (r: FixtureRow) => `${r.wallSeconds.vidkit?.toFixed(0) ?? '-'}/${r.wallSeconds.peer?.toFixed(0) ?? '-'} s`;

function audio(r: FixtureRow): string {
  if (!r.gate?.audio) return 'not asked';
  if (r.audio === null) return '-';
  if ('notChecked' in r.audio) return 'not checked';
  return `${r.audio.correlation.toFixed(3)} (min ${r.gate.audio.minCorrelation})`;
}

function printTable(rows: FixtureRow[]): void {
  printColumns([
    ['fixture', 'frames v/p', 'min dB', 'gate dB', 'failures/allowed', 'audio corr.', 'verdict', 'wall v/p', 'note'],
    ...rows.map((r) => [
      r.fixture,
      `${r.frames.vidkit ?? '-'}/${r.frames.peer ?? '-'}`,
      db(r.minDb),
      r.gate ? String(r.gate.minPsnr) : '-',
      failures(r),
      audio(r),
      r.verdict,
      wall(r),
      r.notes.join('; '),
    ]),
  ]);
  const count = (v: FixtureVerdict) => rows.filter((r) => r.verdict === v).length;
  const compared = rows.length - count('not run') - count('peer failed') - count('error');
  process.stdout.write(`\n${count('pass')} of ${compared} fixtures the peer rendered pass their meta.json gate; ${count('peer failed')} the peer could not render; ${count('not run')} not run; ${count('error')} harness errors\n`);
}
