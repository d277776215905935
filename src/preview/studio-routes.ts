import * as fs from 'node:fs';
import type * as http from 'node:http';
import { clipLinesOfPage } from '../composition/clip-lines';
import { ENTRY_FILE, loadComposition } from '../composition/composition';
import { lintHtml } from '../composition/lint';
import { listCompositions } from '../composition/list-compositions';
import { VidkitError, badInput, cliErrorText, errorMessage } from '../errors';
import { projectReader } from '../composition/project-page';
import { BodyTooLarge, readJsonBody, sendJson } from '../render/serve/http-json';
import { createRowsFile, listRowsFiles, parseRows, readRowsFile, writeRowsFile } from './rows-file';
import { fromOwnPage } from './same-origin';
import { parseTarget } from './edit-target';
import { EditConflict, StudioEdits, parseEditRequest } from './studio-edits';
import { studioFile } from './studio-file';
import { glyphChecker } from './studio-glyphs';
import { StudioJobs } from './studio-jobs';
import { RenderQueueFullError } from '../template-server/render-errors';
import { parseOutputRequest, parseVideoRequest, renderVideo } from './studio-render';
import { queuedRows, renderRows } from './studio-rows-render';

/** Where the preview's own routes live; everything else is the project. */
export const STUDIO_PREFIX = '/__vidkit/studio/';

type Query = URLSearchParams;
type Reader = (query: Query) => unknown;
type Writer = (body: unknown, query: Query) => Promise<unknown>;

/**
 * The preview's routes under {@link STUDIO_PREFIX} (docs/guide/authoring.md): the project's
 * compositions, a page's lint findings and clip lines, a file's text, the render queue (at most
 * `maxWaiting` waiting: 429 past it), rows files, the text the variables panel's values give that
 * no font can draw, and the edits of the timeline and the canvas with their undo and redo
 * (studio-edits.ts): an edit made on a file changed on disk since the studio read it answers 409
 * and writes nothing. Reads answer GET; what renders or writes answers POST from the preview's own
 * page only ({@link fromOwnPage}). Every file is a project file as the project server allows it.
 */
export function studioRoutes(projectDir: string, jobs: StudioJobs, onWarning: (message: string) => void) {
  const edits = new StudioEdits(projectDir);
  const reads: Record<string, Reader> = {
    compositions: () => listCompositions(projectDir),
    composition: (q) => compositionInfo(projectDir, pageOf(q)),
    lint: (q) => ({ findings: lintHtml(readText(projectDir, pageOf(q)), projectDir, pageOf(q)) }),
    'clip-lines': (q) => clipLinesOfPage(pageOf(q), projectReader(projectDir)),
    source: (q) => ({ file: required(q, 'file'), text: readText(projectDir, required(q, 'file')) }),
    jobs: () => jobs.list(),
    queue: () => ({ maxWaiting: jobs.maxWaiting }),
    'rows-files': () => listRowsFiles(projectDir),
    rows: (q) => readRowsFile(projectDir, required(q, 'file'), required(q, 'composition')),
    edits: (q) => edits.state(q.getAll('file')),
    element: (q) => edits.locate(required(q, 'file'), parseTarget(jsonParam(q, 'target'))),
  };
  const writes: Record<string, Writer> = {
    edit: async (body) => edits.edit(parseEditRequest(body)),
    undo: async () => edits.undo(),
    redo: async () => edits.redo(),
    jobs: async (body) => {
      const b = (body ?? {}) as Record<string, unknown>;
      if (b.kind === 'rows') {
        const request = { ...parseOutputRequest(b), rowsFile: String(b.rowsFile ?? '') };
        const rows = await queuedRows(projectDir, request.rowsFile, request.composition);
        return jobs.add({ kind: 'rows', ...request, rows }, (run) => renderRows(projectDir, request, run, onWarning));
      }
      const request = parseVideoRequest(b);
      return jobs.add({ kind: 'video', composition: request.composition, format: request.format, quality: request.quality }, (run) => renderVideo(projectDir, request, run, onWarning));
    },
    glyphs: glyphChecker(projectDir),
    'rows/save': async (body) => {
      const b = (body ?? {}) as Record<string, unknown>;
      return writeRowsFile(projectDir, String(b.file ?? ''), parseRows(b.rows), rowsComposition(b));
    },
    'rows/new': async (body) => {
      const b = (body ?? {}) as Record<string, unknown>;
      return createRowsFile(projectDir, String(b.file ?? ''), rowsComposition(b));
    },
  };

  return (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    const url = new URL(req.url ?? '/', 'http://preview');
    if (!url.pathname.startsWith(STUDIO_PREFIX)) return false;
    const route = url.pathname.slice(STUDIO_PREFIX.length);
    const cancel = /^jobs\/(\d+)\/cancel$/.exec(route);
    if (req.method === 'GET' && route in reads) {
      void answer(res, async () => reads[route](url.searchParams));
    } else if (req.method === 'POST' && (route in writes || cancel)) {
      if (!fromOwnPage(req)) {
        return sendJson(res, 403, { error: 'refused: this route answers the preview page only (its own Origin, a JSON body)' });
      }
      void answer(res, async () => {
        const body = await readJsonBody(req);
        if (!cancel) return writes[route](body, url.searchParams);
        if (!jobs.cancel(Number(cancel[1]))) throw new VidkitError(`no render ${cancel[1]} waiting or running`);
        return { cancelled: Number(cancel[1]) };
      });
    } else if (route in reads || route in writes || cancel) {
      sendJson(res, 405, { error: `${req.method} is not accepted here` });
    } else {
      sendJson(res, 404, { error: `no route ${url.pathname}` });
    }
    return true;
  };
}

/** The declarations and root of a page, or why it does not parse (normal while an author edits). */
export function compositionInfo(projectDir: string, file: string): unknown {
  try {
    const c = loadComposition(projectDir, file);
    return { file, id: c.id, width: c.width, height: c.height, durationSeconds: c.durationSeconds, fps: c.fps, declarations: c.variables.declarations };
  } catch (err) {
    return { file, error: errorMessage(err) };
  }
}

async function answer(res: http.ServerResponse, work: () => Promise<unknown>): Promise<void> {
  try {
    sendJson(res, 200, await work());
  } catch (err) {
    // Bad input names what is wrong; anything else is ours, and the page shows it as the CLI would.
    if (err instanceof RenderQueueFullError) sendJson(res, 429, { error: err.message }, { 'retry-after': String(err.retryAfterSeconds) });
    else if (err instanceof EditConflict) sendJson(res, 409, { error: err.message, conflict: true });
    else if (err instanceof VidkitError) sendJson(res, err instanceof BodyTooLarge ? 413 : err.exitCode === 2 ? 400 : 422, { error: err.message });
    else sendJson(res, 500, { error: cliErrorText(err) });
  }
}

/** The page a rows file renders with, whose declarations type a table's cells. */
function rowsComposition(body: Record<string, unknown>): string {
  if (typeof body.composition !== 'string' || body.composition === '') throw badInput('"composition" must name the page the rows render with, e.g. index.html');
  return body.composition;
}

function pageOf(query: Query): string {
  return query.get('file') || ENTRY_FILE;
}

function required(query: Query, name: string): string {
  const value = query.get(name);
  if (!value) throw new VidkitError(`the "${name}" parameter is missing`, { exitCode: 2 });
  return value;
}

function jsonParam(query: Query, name: string): unknown {
  try {
    return JSON.parse(required(query, name));
  } catch (err) {
    if (err instanceof VidkitError) throw err;
    throw badInput(`the "${name}" parameter is not JSON: ${errorMessage(err)}`);
  }
}

/** A project file's text, as the project server would serve it (no dotfiles, nothing outside). */
function readText(projectDir: string, file: string): string {
  return fs.readFileSync(studioFile(projectDir, file), 'utf8');
}
