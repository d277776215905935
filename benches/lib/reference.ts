import { spawn } from 'node:child_process';
import { loadComposition } from '../../dist/composition/composition';
import { findBrowser, resolveProfile } from '../../dist/render/browser/browser';
import { CaptureSession } from '../../dist/render/capture/capture-session';
import { EgressPolicy } from '../../dist/render/serve/egress-policy';
import { serveProject } from '../../dist/render/serve/project-server';
import { DEFAULT_TIMEOUTS } from '../../dist/values/constants';
import { runtimeBoot } from '../../dist/runtime/boot';

/**
 * The lossless reference of a composition: every frame as the browser draws it (PNG from one
 * begin-frame session, frame i at time i/fps), stored losslessly as FFV1 RGB. With
 * `browserVideo`, the browser plays the page's videos itself (this session has no asset router,
 * so its videos are not the native decoder's) and each seeked frame is taken by screenshot, which
 * waits until the video presents it: the browser's own picture of each source frame.
 */
export async function renderReference(projectDir: string, output: string, scale = 1, opts: { browserVideo?: boolean } = {}): Promise<void> {
  const comp = loadComposition(projectDir);
  const profile = await resolveProfile({ executablePath: findBrowser(), capture: opts.browserVideo ? 'screenshot' : 'auto', allowGpu: true });
  const server = await serveProject(comp.projectDir);
  const ffmpeg = spawn('ffmpeg', ['-v', 'error', '-y', '-f', 'image2pipe', '-framerate', String(comp.fps), '-c:v', 'png', '-i', '-', '-c:v', 'ffv1', '-pix_fmt', 'bgr0', output], {
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  const done = new Promise<void>((resolve, reject) => ffmpeg.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`)))));
  const session = await CaptureSession.open({
    profile,
    url: new URL('index.html', server.url).href,
    width: comp.width,
    height: comp.height,
    scale,
    boot: runtimeBoot({}, {}, comp.fps, {}),
    format: { type: 'png' },
    timeouts: DEFAULT_TIMEOUTS,
    // The page's own server; nothing else private, as in a render.
    egress: new EgressPolicy({ projectServer: server.url }),
  });
  try {
    // Without data-duration the page tells its length.
    const frames = Math.round((comp.durationSeconds ?? (await session.durationSeconds())) * comp.fps);
    let last: Buffer | undefined;
    for (let f = 0; f < frames; f++) {
      last = (await session.capture(f)) ?? last;
      if (!last) throw new Error(`no image for frame ${f}`);
      if (!ffmpeg.stdin.write(last)) await new Promise((r) => ffmpeg.stdin.once('drain', r));
    }
  } finally {
    ffmpeg.stdin.end();
    await session.close();
    await server.close();
  }
  await done;
}
