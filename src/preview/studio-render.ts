import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadComposition } from '../composition/composition';
import type { Overrides } from '../composition/variables';
import { badInput } from '../errors';
import { render } from '../index';
import { OUTPUT_FORMATS } from '../values/constants';
import { checkVariables, inputLimitsFromEnv } from '../options/input-limits';
import { resolveRenderSettings } from '../options/resolve';
import { OutputFormat, formatExtension, isDirectoryFormat } from '../values/formats';
import type { Quality } from '../values/quality';
import type { JobRun } from './studio-jobs';

/** Where the preview's renders go: `out/` of the project, which the watcher ignores and the server serves. */
export const OUTPUT_FOLDER = 'out';

/** What every render the page asks for names: the composition, the format and the quality. */
export interface OutputRequest {
  composition: string;
  format: OutputFormat;
  quality: Quality;
}

/** A render of one video: with its variables. */
export interface VideoRequest extends OutputRequest {
  variables: Overrides;
}

/** Reads the composition, format and quality the page sent; bad input naming the field that is wrong. */
export function parseOutputRequest(body: Record<string, unknown>): OutputRequest {
  if (typeof body.composition !== 'string' || body.composition === '') throw badInput('"composition" must name the page to render, e.g. index.html');
  const { format, values } = resolveRenderSettings('studio', { format: typeof body.format === 'string' ? body.format : undefined, quality: body.quality ?? undefined });
  if (isDirectoryFormat(format)) {
    throw badInput(`"format" ${format} writes a folder: the preview renders one file a video (${OUTPUT_FORMATS.filter((f) => !isDirectoryFormat(f)).join(', ')})`);
  }
  return { composition: body.composition, format, quality: values.quality ?? 'standard' };
}

export function parseVideoRequest(body: Record<string, unknown>): VideoRequest {
  const { variables } = body;
  if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) throw badInput('"variables" must be a JSON object');
  checkVariables(variables as Overrides, '"variables"', inputLimitsFromEnv(process.env));
  return { ...parseOutputRequest(body), variables: variables as Overrides };
}

/**
 * Renders one video with `vidkit render`'s own code (the render API of src/index.ts) into
 * `out/<composition id>-<date and time>.<ext>` of the project, a name no earlier render has.
 */
export async function renderVideo(projectDir: string, request: VideoRequest, run: JobRun, onWarning: (message: string) => void): Promise<void> {
  const { id } = loadComposition(projectDir, request.composition);
  const output = freshOutput(projectDir, id, formatExtension(request.format));
  const result = await render({
    projectDir,
    composition: request.composition,
    output,
    format: request.format,
    quality: request.quality,
    variables: request.variables,
    ...serverLimits(),
    signal: run.signal,
    onWarning,
    onStart: ({ totalFrames }) => {
      run.meter.start(totalFrames);
      run.changed();
    },
    onFrame: () => {
      run.meter.frame();
      run.changed();
    },
  });
  run.job.output = path.relative(projectDir, result.output).split(path.sep).join('/');
  run.job.bytes = result.bytes;
}

/** The input limits of the preview's renders, as render() takes them: the environment's, else the defaults. */
function serverLimits(): { maxVariableBytes: number; maxVariablesBytes: number } {
  const limits = inputLimitsFromEnv(process.env);
  return { maxVariableBytes: limits.variableBytes, maxVariablesBytes: limits.variablesBytes };
}

function freshOutput(projectDir: string, id: string, extension: string): string {
  const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
  const base = path.join(projectDir, OUTPUT_FOLDER, `${id}-${stamp}`);
  for (let n = 1; ; n++) {
    const file = `${base}${n === 1 ? '' : `-${n}`}${extension}`;
    if (!fs.existsSync(file)) return file;
  }
}
