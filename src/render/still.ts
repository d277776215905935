import * as fs from 'node:fs';
import * as path from 'node:path';
import { VidkitError, badInput } from '../errors';
import type { CaptureMode } from '../values/capture-mode';
import { CaptureSession } from './capture/capture-session';
import { trackPath, untrackPath } from './browser/leftovers';
import { partialPathFor, prepareOutput, renderWriteError } from './output/output-path';
import { RenderSettings, createRenderContext, framesOfPage } from './render-context';
import { checkTempSpace, makeRunDir } from './browser/run-dir';
import { AssetPolicy, serveComposition } from './serve/served-composition';
import { encodedImage } from './capture/frame-image';

/** JPEG quality of a `.jpg` still, as `--quality standard` captures video frames. */
const JPEG_QUALITY = 90;

export interface StillOptions extends Omit<RenderSettings, 'crf' | 'preset' | 'x264Params' | 'x264ParamsWithVideo' | 'frameFormat'>, AssetPolicy {
  /** A .png (with the page's transparency) or .jpg/.jpeg file. */
  output: string;
  /** The frame to draw, from 0; or `timeSeconds`. Default frame 0. */
  frame?: number;
  /** The time to draw: the frame showing it, floor(time × fps). */
  timeSeconds?: number;
}

export interface StillResult {
  output: string;
  compositionId: string;
  frame: number;
  /** The time the frame shows: frame / fps. */
  timeSeconds: number;
  width: number;
  height: number;
  format: 'png' | 'jpeg';
  bytes: number;
  capture: CaptureMode;
  gl: string;
}

/**
 * `vidkit still`: one frame of a composition as an image, drawn exactly as a render draws that
 * frame (same render context and capture session), taken from the browser's own PNG or JPEG with
 * no video encoder in between. Written under a partial name beside the output and renamed.
 */
export async function renderStill(opts: StillOptions): Promise<StillResult> {
  const format = imageFormatOf(opts.output);
  if (opts.frame !== undefined && opts.timeSeconds !== undefined) throw badInput('give --frame or --time, not both');
  if (opts.frame !== undefined && !(Number.isInteger(opts.frame) && opts.frame >= 0)) {
    throw badInput(`--frame must be a whole number from 0, got ${opts.frame}`);
  }
  if (opts.timeSeconds !== undefined && !(Number.isFinite(opts.timeSeconds) && opts.timeSeconds >= 0)) {
    throw badInput(`--time must be a number of seconds from 0, got ${opts.timeSeconds}`);
  }
  const output = path.resolve(opts.output);
  // A PNG still is captured as a png-sequence frame is (with its transparency), a JPEG as an mp4 frame.
  const context = await createRenderContext({
    ...opts,
    format: format === 'png' ? 'png-sequence' : 'mp4',
    frameFormat: format === 'png' ? { type: 'png' } : { type: 'jpeg', quality: JPEG_QUALITY },
    crf: 0,
    preset: 'ultrafast',
    beforeBrowser: ({ composition }) => {
      prepareOutput(output, { projectDir: composition.projectDir });
      checkTempSpace();
    },
  });
  for (const w of context.warnings) opts.onWarning?.(w);
  // Floored with a margin, so a time written in decimals (0.1 s at 30 fps) is the frame it names.
  const frame = opts.frame ?? Math.floor((opts.timeSeconds ?? 0) * context.fps + 1e-6);
  if (context.totalFrames !== undefined) assertInside(frame, context.totalFrames, context.fps);

  const tmpDir = makeRunDir('still');
  const extension = path.extname(output);
  const partial = partialPathFor(output, extension);
  trackPath(tmpDir);
  trackPath(partial);
  const server = await serveComposition(context.composition, tmpDir, opts);
  let session: CaptureSession | undefined;
  try {
    // The still is the browser's own image file, not a picture for an encoder.
    session = await CaptureSession.open({
      ...context.sessionOptions(server.url, server.assets, path.join(tmpDir, 'profile')),
      rawFrames: false,
      onWarning: opts.onWarning,
    });
    if (context.totalFrames === undefined) assertInside(frame, await framesOfPage(context, session), context.fps);
    const captured = await session.capture(frame, true);
    if (!captured) throw new VidkitError(`frame ${frame}: the browser returned no image`);
    const image = encodedImage(captured);
    await session.settleRequests();
    await session.reportFailedLoads();
    fs.writeFileSync(partial, image);
    fs.renameSync(partial, output);
    return {
      output,
      compositionId: context.composition.id,
      frame,
      timeSeconds: frame / context.fps,
      width: context.size.width,
      height: context.size.height,
      format,
      bytes: image.length,
      capture: context.profile.capture,
      gl: context.profile.gl,
    };
  } catch (err) {
    // A profile or the image that could not be written: its disk's fault, not the render's.
    throw renderWriteError(err, output);
  } finally {
    await session?.close();
    await server.close();
    fs.rmSync(tmpDir, { recursive: true, force: true, maxRetries: 3 });
    fs.rmSync(partial, { force: true });
    untrackPath(tmpDir);
    untrackPath(partial);
  }
}

function imageFormatOf(output: string): 'png' | 'jpeg' {
  const extension = path.extname(output).toLowerCase();
  if (extension === '.png') return 'png';
  if (extension === '.jpg' || extension === '.jpeg') return 'jpeg';
  throw badInput(`--output ${output}: a still is a .png or .jpg (.jpeg) file`);
}

function assertInside(frame: number, totalFrames: number, fps: number): void {
  if (frame >= totalFrames) {
    throw badInput(`frame ${frame} is past the end: the composition has ${totalFrames} frames at ${fps} fps (0 to ${totalFrames - 1})`);
  }
}
