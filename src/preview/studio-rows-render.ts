import * as path from 'node:path';
import { inputLimitsFromEnv } from '../options/input-limits';
import { renderBatch } from '../batch/local-batch';
import type { OutputFormat } from '../values/formats';
import type { Quality } from '../values/quality';
import { STUDIO_LINKS, projectFile } from '../values/project-files';
import { badInput } from '../errors';
import { readRowsFile } from './rows-file';
import { FrameMeter, JobRun, RowProgress, emptyProgress } from './studio-jobs';
import { OUTPUT_FOLDER } from './studio-render';
import { resolveRenderSettings } from '../options/resolve';

/** A rows render the page asks for: a rows file of the project, rendered with a composition. */
export interface RowsRequest {
  composition: string;
  rowsFile: string;
  format: OutputFormat;
  quality: Quality;
}

/** The rows of a rows file, waiting to render with a composition: what the queue shows before the job starts. */
export async function queuedRows(projectDir: string, rowsFile: string, composition: string): Promise<RowProgress[]> {
  const { rows, problems } = await readRowsFile(projectDir, rowsFile, composition);
  if (rows.length + problems.length === 0) throw badInput(`${rowsFile} has no rows: add one first`);
  return rows.map((r) => ({ line: r.line, outputKey: r.outputKey, state: 'queued', ...emptyProgress() }));
}

/**
 * Renders every row of the file as `vidkit render --batch` does (the warm pool, its manifest,
 * rows an earlier run completed with the same settings skipped), into `out/<rows file name>/`.
 */
export async function renderRows(projectDir: string, request: RowsRequest, run: JobRun, onWarning: (message: string) => void): Promise<void> {
  const batchFile = projectFile(projectDir, request.rowsFile, STUDIO_LINKS);
  if (batchFile === undefined) throw badInput(`${request.rowsFile}: no such file in the project`);
  const outputDir = path.join(projectDir, OUTPUT_FOLDER, path.parse(request.rowsFile).name);
  const rows = run.job.rows ?? [];
  const meters = new Map(rows.map((r) => [r.line, new FrameMeter(r)]));
  const rowAt = (line: number) => rows.find((r) => r.line === line);
  const relative = (file: string) => path.relative(projectDir, file).split(path.sep).join('/');
  // The page's choices read as render() reads its options; the rest are vidkit render's defaults.
  const settings = resolveRenderSettings('api', { format: request.format, quality: request.quality });
  await renderBatch({
    projectDir,
    composition: request.composition,
    format: settings.format,
    ...settings.encode,
    capture: settings.capture,
    allowGpu: settings.allowGpu,
    batchFile,
    outputDir,
    concurrency: 'auto',
    strictVariables: false,
    inputLimits: inputLimitsFromEnv(process.env),
    failFast: false,
    force: false,
    signal: run.signal,
    onWarning,
    onRowStart: (line, totalFrames) => {
      const row = rowAt(line);
      if (row) row.state = 'rendering';
      meters.get(line)?.start(totalFrames);
      if (run.job.progress.totalFrames === null) run.meter.start(totalFrames * rows.length);
      run.changed();
    },
    onFrame: (line) => {
      meters.get(line)?.frame();
      run.meter.frame();
      run.changed();
    },
    onRow: (decided) => {
      // A line the parser refused, or one added to the file since the job was queued.
      let row = rowAt(decided.line);
      if (!row) {
        row = { line: decided.line, outputKey: decided.outputKey, state: 'queued', ...emptyProgress() };
        rows.push(row);
        rows.sort((a, b) => a.line - b.line);
      }
      row.state = decided.status;
      if (decided.output !== null && decided.status !== 'failed') row.output = relative(decided.output);
      if (decided.error !== undefined) row.error = decided.error;
      run.changed();
    },
  });
}
