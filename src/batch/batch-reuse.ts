import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ExitCode, VidkitError, badInput, errorMessage } from '../errors';
import { loadNative } from '../native';
import type { MediaElementTiming, PageReach } from '../runtime/protocol';
import { ChunkRange, SessionSlot, renderChunk, segmentEncoder } from '../render/capture/chunk-renderer';
import { OutputFormat, encoderFormat, formatExtension } from '../values/formats';
import { trackPath, untrackPath } from '../render/browser/leftovers';
import { MissingGlyphs, mergeMissingGlyphs, missingGlyphsError } from '../render/capture/missing-glyphs';
import { partialPathFor, renderWriteError } from '../render/output/output-path';
import type { PlannedRender } from '../render/render-context';
import { soundtrackDigest, soundtrackOf } from '../render/output/soundtrack';
import { settingsDigest } from './batch-record';
import { RowReuse, differingVariables, rowSegments, wholeRowAudio } from './reuse-plan';
import { cellGrid } from '../render/plan/cell-grid';
import type { PoolPage, PooledRender, PooledRenderHooks, WarmPool } from './warm-pool';

/** The folder under a batch's --output-dir that keeps its shared segments until every row is complete. */
export const REUSE_DIR = '.vidkit-reuse';

/** What the reference row's render left in the work folder: enough for a re-run to render none of it again. */
interface SharedRecord {
  totalFrames: number;
  /** What the variables reached over the reference's every frame. */
  reach: PageReach;
  segments: ChunkRange[];
  /** Text no font could draw, per segment. */
  missingGlyphs: MissingGlyphs[][];
  /**
   * The media the reference's page showed: the soundtrack of every row that reuses. A project
   * file's URL is kept as its path: each run serves the project on a port of its own.
   */
  timeline: MediaElementTiming[];
}

export interface BatchReuseOptions {
  pool: WarmPool;
  /** Every row that planned, in line order; the first is the reference. */
  planned: PlannedRender[];
  format: OutputFormat;
  outputDir: string;
  projectDir: string;
  strictGlyphs?: boolean;
  onWarning?: (message: string) => void;
}

/**
 * Segment reuse in a local batch (docs/explanation/batch-reuse.md). The first row that planned is
 * the reference: its video is rendered once as segments, the render's cells (cut where the frames
 * its variables reach begin and end, and every few seconds), into the batch's work folder, while
 * its page records what the variables reach. Every row, the reference included, is then joined by
 * stream copy from those segments and the segments it renders itself: those holding frames one of
 * its own differing variables reaches. A row whose differing variables cannot be bounded is
 * rendered whole.
 */
export class BatchReuse {
  private shared?: Promise<SharedRecord>;
  /** The soundtrack of every row that reuses, kept in the work folder; undefined when it is silent. */
  private soundtrack?: Promise<string | undefined>;

  private constructor(
    private readonly opts: BatchReuseOptions,
    private readonly reference: PlannedRender,
    /** Variables whose value differs between some row and the reference. */
    private readonly varying: string[],
    /** This reference's folder in the work folder. */
    readonly workDir: string,
  ) {}

  /** Undefined where nothing can be shared: a gif (one palette for the whole video) or fewer than two rows. */
  static create(opts: BatchReuseOptions): BatchReuse | undefined {
    if (opts.format === 'gif' || opts.planned.length < 2) return undefined;
    const reference = opts.planned[0];
    const varying = [...new Set(opts.planned.flatMap((p) => differingVariables(reference.boot, p.boot)))].sort();
    const key = createHash('sha256').update(settingsDigest(reference)).update(projectFingerprint(opts.projectDir, opts.outputDir)).digest('hex').slice(0, 24);
    return new BatchReuse(opts, reference, varying, path.join(opts.outputDir, REUSE_DIR, key));
  }

  /** Renders `planned` to `output`, reusing the shared segments its variables leave unchanged. */
  async render(planned: PlannedRender, output: string, hooks: PooledRenderHooks): Promise<PooledRender & { reuse: RowReuse }> {
    const started = Date.now();
    const whole = async (why: string) => {
      const done = await this.opts.pool.render(planned, output, hooks);
      return { ...done, reuse: { segments: 1, reusedSegments: 0, framesRendered: done.frames, framesReused: 0, whole: why, audio: wholeRowAudio(why) } };
    };
    let shared: SharedRecord;
    try {
      shared = await (this.shared ??= this.renderShared(hooks));
    } catch (err) {
      // A row with the reference's variables would fail the same way; another may not.
      if (hooks.signal?.aborted || differingVariables(this.reference.boot, planned.boot).length === 0) throw err;
      return whole(`the shared segments could not be rendered: ${errorMessage(err)}`);
    }
    if (planned.totalFrames !== undefined && planned.totalFrames !== shared.totalFrames) return whole('its length differs from the first row\'s');
    const decision = rowSegments(shared.reach, differingVariables(this.reference.boot, planned.boot), shared.segments);
    if ('whole' in decision) return whole(decision.whole);
    const { own } = decision;
    const ownFrames = shared.segments.filter((s) => own.has(s.index)).reduce((n, s) => n + s.endFrame - s.startFrame, 0);
    hooks.onFrames?.(ownFrames);
    const extension = formatExtension(this.opts.format);
    const partial = partialPathFor(output, extension);
    trackPath(partial);
    try {
      const glyphs: MissingGlyphs[][] = shared.segments.filter((s) => !own.has(s.index)).map((s) => shared.missingGlyphs[s.index]);
      const kept = this.sharedSoundtrack(shared);
      const join = async (renderDir: string | undefined) => {
        const soundtrack = await kept;
        const files = shared.segments.map((s) => (own.has(s.index) ? path.join(renderDir!, segmentName(s, extension)) : this.segmentFile(s)));
        const format = encoderFormat(this.opts.format);
        const encoded = soundtrack === undefined ? undefined : await loadNative().readSoundtrack(soundtrack, format);
        return loadNative().concatSegments(files, partial, { faststart: true, format }, encoded);
      };
      let joined;
      if (own.size === 0) joined = await join(undefined);
      else {
        joined = await this.opts.pool.withPage(planned, hooks.onWarning, async (page) => {
          if (page.totalFrames !== shared.totalFrames) return undefined;
          for (const s of shared.segments) {
            if (own.has(s.index)) glyphs.push(await this.renderSegment(page.slot, page, s, path.join(page.renderDir, segmentName(s, extension)), hooks, true));
          }
          return join(page.renderDir);
        });
        if (joined === undefined) return await whole('its length differs from the first row\'s');
      }
      const missingGlyphs = mergeMissingGlyphs(glyphs);
      if (this.opts.strictGlyphs && missingGlyphs.length > 0) throw missingGlyphsError(missingGlyphs);
      fs.renameSync(partial, output);
      const reuse: RowReuse = {
        segments: shared.segments.length,
        reusedSegments: shared.segments.length - own.size,
        framesRendered: ownFrames,
        framesReused: shared.totalFrames - ownFrames,
        audio: { mixed: (await kept) === undefined ? 'none' : 'once' },
      };
      return { output, frames: joined.frames, bytes: joined.bytes, seconds: (Date.now() - started) / 1000, missingGlyphs, reuse };
    } catch (err) {
      throw renderWriteError(err, output);
    } finally {
      fs.rmSync(partial, { force: true });
      untrackPath(partial);
    }
  }

  /**
   * Removes the work folder: every row of the batch is complete. Segments of another reference
   * (an earlier run whose first row had other variables) go with it.
   */
  discard(): void {
    fs.rmSync(path.dirname(this.workDir), { recursive: true, force: true });
  }

  /** The soundtrack of the rows that reuse, mixed while the row that first asks draws its own segments. */
  private sharedSoundtrack(shared: SharedRecord): Promise<string | undefined> {
    if (!this.soundtrack) {
      this.soundtrack = this.keepSoundtrack(shared);
      // Its failure is every joining row's to report, when each awaits it.
      this.soundtrack.catch(() => undefined);
    }
    return this.soundtrack;
  }

  /**
   * The soundtrack of the media the reference's page played, mixed and encoded once into the work
   * folder under a digest of what it is made of (the timeline, the length, the format), or found
   * there from an earlier run. Every row that reuses plays that media at those times (its
   * differing variables reach no media and no script read them), so each muxes these packets, as
   * its lone render would have mixed them. Undefined when nothing audible plays.
   */
  private async keepSoundtrack(shared: SharedRecord): Promise<string | undefined> {
    const durationSeconds = (shared.totalFrames * this.reference.settings.fps.den) / this.reference.settings.fps.num;
    const served = shared.timeline.map((m) => ({ ...m, src: new URL(m.src, this.opts.pool.origin).href }));
    const options = await soundtrackOf(served, { assets: this.opts.pool.assets, durationSeconds });
    if (options.tracks.length === 0) return undefined;
    const format = encoderFormat(this.opts.format);
    const file = path.join(this.workDir, `soundtrack-${soundtrackDigest(shared.timeline, durationSeconds, format)}.sound`);
    if (fs.existsSync(file)) return file;
    return (await loadNative().keepSoundtrack(options, format, file)) ? file : undefined;
  }

  private segmentFile(s: ChunkRange): string {
    return path.join(this.workDir, segmentName(s, formatExtension(this.opts.format)));
  }

  private recordFile(): string {
    return path.join(this.workDir, 'shared.json');
  }

  /**
   * The reference's segments and what its variables reach: read back from the work folder when an
   * earlier run left all of them, else rendered from its first frame to its last (every frame is
   * stepped, so every read a page script makes is recorded). `hooks` are the first row's to ask,
   * whose progress the frames count in and under whose line the page's warnings are named.
   */
  private async renderShared(hooks: { signal?: AbortSignal; onFrame?: () => void; onWarning?: (message: string) => void }): Promise<SharedRecord> {
    // Nothing is written through a link: a batch writes only inside its --output-dir.
    for (const dir of [path.dirname(this.workDir), this.workDir]) {
      if (fs.lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink()) throw badInput(`${dir} is a symlink: a batch writes only inside its --output-dir`);
    }
    const kept = this.readRecord();
    if (kept) return kept;
    fs.mkdirSync(this.workDir, { recursive: true });
    return this.opts.pool.withPage(this.reference, hooks.onWarning ?? this.opts.onWarning, async (page) => {
      const session = await page.slot.current();
      const atLoad = await session.reach(page.totalFrames);
      const segments = cellGrid(atLoad, this.reference.boot, page.totalFrames, page.context.settings.fps);
      // The segments rows will draw again: their video pictures are kept for the rows.
      const varying = rowSegments(atLoad, this.varying, segments);
      const missingGlyphs: MissingGlyphs[][] = [];
      for (const s of segments) {
        const file = this.segmentFile(s);
        const partial = `${file}.partial${formatExtension(this.opts.format)}`;
        trackPath(partial);
        try {
          missingGlyphs.push(await this.renderSegment(page.slot, page, s, partial, hooks, 'own' in varying && varying.own.has(s.index)));
          fs.renameSync(partial, file);
        } finally {
          fs.rmSync(partial, { force: true });
          untrackPath(partial);
        }
      }
      const last = await page.slot.current();
      const origin = this.opts.pool.origin;
      const timeline = (await last.mediaTimeline()).map((m) => (m.src.startsWith(`${origin}/`) ? { ...m, src: m.src.slice(origin.length) } : m));
      const record: SharedRecord = { totalFrames: page.totalFrames, reach: await last.reach(page.totalFrames), segments, missingGlyphs, timeline };
      // Written last, under another name first: a record names only segments that are whole.
      const partial = `${this.recordFile()}.partial`;
      fs.rmSync(partial, { force: true });
      fs.writeFileSync(partial, JSON.stringify(record), { flag: 'wx' });
      fs.renameSync(partial, this.recordFile());
      return record;
    });
  }

  private readRecord(): SharedRecord | undefined {
    try {
      const record = JSON.parse(fs.readFileSync(this.recordFile(), 'utf8')) as SharedRecord;
      if (record.segments.every((s) => fs.existsSync(this.segmentFile(s)))) return record;
    } catch {
      // No record, or one cut short: render anew.
    }
    return undefined;
  }

  /**
   * Renders segment `s` to `file`. With `keepPictures` (a segment some row draws itself), the
   * page's video pictures are kept in the work folder and shown from there to every row that
   * draws the same frames: each is decoded once per batch (docs/explanation/batch-reuse.md).
   */
  private async renderSegment(slot: SessionSlot, page: PoolPage, s: ChunkRange, file: string, hooks: { signal?: AbortSignal; onFrame?: () => void }, keepPictures: boolean): Promise<MissingGlyphs[]> {
    const done = await renderChunk(slot, s, segmentEncoder(page.context.settings, file, page.encoderThreads), {
      onFrame: () => {
        if (hooks.signal?.aborted) throw new VidkitError('render interrupted', { exitCode: ExitCode.Interrupted });
        hooks.onFrame?.();
      },
      onRelaunch: (message) => this.opts.onWarning?.(message),
      videoPictures: keepPictures ? path.join(this.workDir, 'pictures') : undefined,
    });
    return done.missingGlyphs;
  }
}

function segmentName(s: ChunkRange, extension: string): string {
  return `frames-${String(s.startFrame).padStart(7, '0')}-${String(s.endFrame).padStart(7, '0')}${extension}`;
}

/**
 * Every file of the project by path, size and modification time, so that shared segments an
 * earlier run left are used again only while the project is unchanged. The batch's own output
 * folder and version-control and package folders are left out.
 */
function projectFingerprint(projectDir: string, outputDir: string): string {
  const hash = createHash('sha256');
  const skip = new Set([path.resolve(outputDir)]);
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(dir, entry.name);
      if (skip.has(path.resolve(full)) || entry.name === '.git' || entry.name === 'node_modules') continue;
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        const stat = fs.statSync(full);
        hash.update(`${path.relative(projectDir, full)}\0${stat.size}\0${stat.mtimeMs}\n`);
      }
    }
  };
  walk(projectDir);
  return hash.digest('hex');
}
