import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRenderContext } from '../../dist/render/render-context';
import { serveComposition } from '../../dist/render/serve/served-composition';
import { CaptureSession } from '../../dist/render/capture/capture-session';
import { encodedImage } from '../../dist/render/capture/frame-image';

/**
 * The lossless reference of a composition: every frame as the browser draws it (PNG from one
 * session, frame i at time i/fps), stored losslessly as FFV1 RGB. The page is loaded exactly as a
 * render loads it (the same render context, page server, boot options and fonts), so the
 * reference differs from a render only by the encoder's loss. With `browserVideo`, the browser
 * plays the page's videos itself (the session gets no asset router, so its videos are not the
 * native decoder's) and each seeked frame is taken by screenshot, which waits until the video
 * presents it: the browser's own picture of each source frame.
 */
export async function renderReference(projectDir: string, output: string, width: number, opts: { browserVideo?: boolean } = {}): Promise<void> {
  const context = await createRenderContext({
    projectDir,
    overrides: {},
    strictVariables: false,
    width,
    format: 'png-sequence',
    frameFormat: { type: 'png' },
    crf: 0,
    preset: 'ultrafast',
    allowGpu: true,
    capture: opts.browserVideo ? 'screenshot' : 'auto',
  });
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-bench-ref-'));
  const server = await serveComposition(context.composition, tmpDir, {});
  const ffmpeg = spawn('ffmpeg', ['-v', 'error', '-y', '-f', 'image2pipe', '-framerate', String(context.fps), '-c:v', 'png', '-i', '-', '-c:v', 'ffv1', '-pix_fmt', 'bgr0', output], {
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  const done = new Promise<void>((resolve, reject) => ffmpeg.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`)))));
  const options = context.sessionOptions(server.url, opts.browserVideo ? undefined : server.assets, path.join(tmpDir, 'profile'));
  // Without the asset router the browser still goes out under the router's policy, which lets it reach the page's own server, as in a render.
  const session = await CaptureSession.open(opts.browserVideo ? { ...options, egress: server.assets.egress } : options);
  try {
    const frames = context.totalFrames ?? Math.round((await session.durationSeconds()) * context.fps);
    let last: Buffer | undefined;
    for (let f = 0; f < frames; f++) {
      const image = await session.capture(f);
      last = image ? encodedImage(image) : last;
      if (!last) throw new Error(`no image for frame ${f}`);
      if (!ffmpeg.stdin.write(last)) await new Promise((r) => ffmpeg.stdin.once('drain', r));
    }
  } finally {
    ffmpeg.stdin.end();
    await session.close();
    await server.close();
    fs.rmSync(tmpDir, { recursive: true, force: true });
  }
  await done;
}
