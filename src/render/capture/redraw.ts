import { setTimeout as delay } from 'node:timers/promises';
import { VidkitError } from '../../errors';

/**
 * How long to wait before each new begin-frame when one came back without an image. The compositor
 * does that now and then; asking again at once is usually enough, but a renderer slowed by a busy
 * machine needs longer: a render beside a heavy test got no image for its first frame in three
 * immediate tries. 1.55 s in all, well within the default frame timeout (30 s, --frame-timeout),
 * which still bounds the whole draw.
 */
export const REDRAW_DELAYS_MS = [0, 50, 100, 200, 400, 800];

/**
 * The image of `frame` from `beginFrame`, asked again after each of {@link REDRAW_DELAYS_MS} while
 * it returns none. `wait` is for the tests.
 */
export async function drawUntilImage(
  frame: number,
  beginFrame: () => Promise<{ screenshotData?: string }>,
  wait: (ms: number) => Promise<unknown> = (ms) => delay(ms),
): Promise<Buffer> {
  for (const ms of REDRAW_DELAYS_MS) {
    if (ms > 0) await wait(ms);
    const result = await beginFrame();
    if (result.screenshotData) return Buffer.from(result.screenshotData, 'base64');
  }
  const waited = REDRAW_DELAYS_MS.reduce((a, b) => a + b, 0) / 1000;
  throw new VidkitError(`the browser drew nothing for frame ${frame} in ${REDRAW_DELAYS_MS.length} begin-frames over ${waited} s`);
}
