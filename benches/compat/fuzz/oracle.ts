/**
 * Renders a set of parts with the peer and with vidkit, as the compatibility suite does (the peer at
 * its defaults, vidkit at `--quality high`), and compares them frame by frame: a match is equal
 * frame counts and every frame at 30 dB or more against the peer's, the whole frame and each of its
 * cells alike. The cells are compared on their own because a part is small: one box a frame out of
 * step left a whole frame at 31-35 dB while its own cell was at 18-24 dB.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Measured, measure } from '../../lib/measure';
import { frameCount, framePsnr } from '../../lib/video';
import { stageCompatComposition } from '../stage';
import { PASS_DB } from '../suite';
import { CELLS, projectFiles } from './compose';
import { cellRect, Part } from './parts';

/** A 2 s composition taking longer than this has hung. */
const RENDER_TIMEOUT_MS = 120_000;

export type Verdict = 'match' | 'differs' | 'peer failed';

export interface Outcome {
  verdict: Verdict;
  frames: { vidkit: number | null; peer: number | null };
  /** Lowest frame PSNR (dB) and its frame; null where no frames were compared, Infinity when all are identical. */
  minDb: number | null;
  worstFrame: number | null;
  /** Frames under the line. */
  framesUnder: number;
  /** Each cell of the frame compared on its own; empty where no frames were compared. */
  cells: CellOutcome[];
  note?: string;
  wallSeconds: { vidkit: number; peer: number };
}

export interface CellOutcome {
  cell: number;
  /** Lowest PSNR (dB) of the cell over the frames, and its frame (Infinity, 0 when all are identical). */
  minDb: number;
  worstFrame: number;
  framesUnder: number;
}

/** Every cell of `file`'s frames against the same cell of `reference`'s, up to the shorter of the two. */
export function compareCells(file: string, reference: string): CellOutcome[] {
  return Array.from({ length: CELLS }, (_, cell) => {
    const psnr = framePsnr(file, reference, { crop: cellRect(cell) });
    const minDb = Math.min(...psnr);
    return { cell, minDb, worstFrame: psnr.indexOf(minDb), framesUnder: psnr.filter((db) => db < PASS_DB).length };
  });
}

/** The lowest PSNR of any cell; null where no frames were compared. */
export function lowestCellDb(cells: CellOutcome[]): number | null {
  return cells.length === 0 ? null : Math.min(...cells.map((c) => c.minDb));
}

/** What a row's or case's note says of its cells under the line. */
export function cellNotes(cells: CellOutcome[], frames: number): string[] {
  return cells
    .filter((c) => c.framesUnder > 0)
    .map((c) => `cell ${c.cell}: ${c.framesUnder} of ${frames} frames under ${PASS_DB} dB, lowest ${c.minDb.toFixed(1)} dB at frame ${c.worstFrame}`);
}

/** Writes the project of `parts` into `dir`, replacing what was there. */
export function writeProject(parts: Part[], title: string, dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  for (const [file, text] of Object.entries(projectFiles(parts, title))) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
}

/** Renders `parts` with both tools under `work/<name>` and compares them. */
export async function renderAndCompare(root: string, parts: Part[], name: string, work: string): Promise<Outcome> {
  const sources = path.join(work, 'sources');
  writeProject(parts, name, path.join(sources, name));
  const staged = stageCompatComposition(root, name, path.join(work, 'staged'), sources);
  const peerOut = path.join(work, `${name}-peer.mp4`);
  const vidkitOut = path.join(work, `${name}-vidkit.mp4`);
  try {
    const peer = await measure('bash', [path.join(root, 'benches', 'peer', 'render.sh'), staged, peerOut], {}, RENDER_TIMEOUT_MS);
    const vidkit = await measure(process.execPath, [path.join(root, 'dist', 'cli', 'main.js'), 'render', staged, '--output', vidkitOut, '--quality', 'high', '--json'], {}, RENDER_TIMEOUT_MS);
    const outcome: Outcome = {
      verdict: 'differs',
      frames: { vidkit: null, peer: null },
      minDb: null,
      worstFrame: null,
      framesUnder: 0,
      cells: [],
      wallSeconds: { vidkit: vidkit.wallSeconds, peer: peer.wallSeconds },
    };
    if (peer.status !== 0) return { ...outcome, verdict: 'peer failed', note: failure(peer, 'peer') };
    outcome.frames.peer = frameCount(peerOut);
    if (vidkit.status !== 0) return { ...outcome, note: failure(vidkit, 'vidkit') };
    outcome.frames.vidkit = frameCount(vidkitOut);
    const psnr = framePsnr(vidkitOut, peerOut);
    outcome.minDb = Math.min(...psnr);
    outcome.worstFrame = psnr.indexOf(outcome.minDb);
    outcome.framesUnder = psnr.filter((db) => db < PASS_DB).length;
    outcome.cells = compareCells(vidkitOut, peerOut);
    const notes: string[] = [];
    if (outcome.frames.vidkit !== outcome.frames.peer) notes.push(`frame count differs: vidkit ${outcome.frames.vidkit}, peer ${outcome.frames.peer}`);
    if (outcome.framesUnder > 0) notes.push(`${outcome.framesUnder} of ${psnr.length} frames under ${PASS_DB} dB`);
    notes.push(...cellNotes(outcome.cells, psnr.length));
    if (notes.length > 0) outcome.note = notes.join('; ');
    outcome.verdict = notes.length === 0 ? 'match' : 'differs';
    return outcome;
  } finally {
    fs.rmSync(staged, { recursive: true, force: true });
  }
}

/** The last error line a tool printed. */
function failure(m: Measured, tool: string): string {
  const lines = `${m.stderr}\n${m.stdout}`.split('\n').map((l) => l.trim()).filter(Boolean);
  const error = [...lines].reverse().find((l) => /error/i.test(l)) ?? lines[lines.length - 1] ?? '';
  return `${tool} exited ${m.status}: ${error.slice(0, 200)}`;
}
