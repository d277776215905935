import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CaptureSession } from './capture/capture-session';
import { trackPath, untrackPath } from './browser/leftovers';
import type { Overrides } from '../composition/variables';
import type { MissingGlyphs } from './capture/missing-glyphs';
import { createRenderContext, framesOfPage } from './render-context';
import { AssetPolicy, serveComposition } from './serve/served-composition';

/** Which page of the project is surveyed, and with which variable values. */
export interface SurveyedPage {
  /** A path in the project; default index.html. */
  composition?: string;
  /** Values over the declared defaults, checked as a render checks them without --strict-variables. */
  overrides?: Overrides;
}

/**
 * The text of a composition that no font can draw, with its default variables or `page`'s
 * overrides: the page is opened as a render opens it and stepped through every frame without
 * drawing any (its timers, scripts and clips run as in a render), then its glyph check reports.
 * `vidkit lint`'s glyph rule, and the studio's warning on a value typed in its variables panel.
 */
export async function surveyGlyphs(projectDir: string, policy: AssetPolicy = {}, page: SurveyedPage = {}): Promise<MissingGlyphs[]> {
  const context = await createRenderContext({
    projectDir,
    composition: page.composition,
    overrides: page.overrides ?? {},
    strictVariables: false,
    format: 'mp4',
    frameFormat: { type: 'jpeg', quality: 50 },
    crf: 0,
    preset: 'ultrafast',
    // Nothing is drawn, so no begin-frame control is needed.
    capture: 'screenshot',
    allowGpu: false,
  });
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-glyphs-'));
  trackPath(tmpDir);
  const server = await serveComposition(context.composition, tmpDir, policy);
  let session: CaptureSession | undefined;
  try {
    session = await CaptureSession.open(context.sessionOptions(server.url, server.assets, path.join(tmpDir, 'profile')));
    const frames = context.totalFrames ?? (await framesOfPage(context, session));
    for (let frame = 0; frame < frames; frame++) await session.step(frame);
    return await session.missingGlyphs();
  } finally {
    await session?.close();
    await server.close();
    fs.rmSync(tmpDir, { recursive: true, force: true, maxRetries: 3 });
    untrackPath(tmpDir);
  }
}
