import * as path from 'node:path';
import type { FrameChannel } from '../../native-addon';
import { loadNative } from '../../native';
import { browserPreload } from '../browser/browser-preload';
import { trackPath, untrackPath } from '../browser/leftovers';
import { runFileName } from '../browser/run-dir';
import { SHARED_MEMORY_DIR, hasSharedMemory } from '../browser/shared-memory';

/**
 * A browser's screenshots taken raw (crates/vidkit-preload/src/frames.rs): the preloaded library
 * copies each begin-frame screenshot's pixels into a file in shared memory instead of having
 * Chromium encode them as JPEG, and {@link FrameChannel.take} converts them to the encoder's
 * yuv420p once the draw's answer arrives. That saves the JPEG encode in the browser and its decode
 * here (about 16 ms of CPU a 1080p frame), and the encoder gets the picture the browser drew
 * rather than a JPEG of it. Undefined where it cannot work: no preloaded library (not Linux,
 * `VIDKIT_BROWSER_PRELOAD=0`), no writable /dev/shm (Lambda), or a size that is not even; a
 * browser whose libjpeg the library does not hook then simply sends its JPEGs.
 */
export function openFrameChannel(width: number, height: number): FrameChannel | undefined {
  if (width % 2 !== 0 || height % 2 !== 0 || browserPreload() === undefined || !hasSharedMemory()) return undefined;
  const { FrameChannel } = loadNative();
  let channel: FrameChannel;
  try {
    // Named for this process, so that the next render removes it should this one be killed (run-dir.ts).
    channel = new FrameChannel(path.join(SHARED_MEMORY_DIR, runFileName('frames')), width, height);
  } catch {
    // Shared memory that cannot take the file (full, or not ours): the JPEG way still works.
    return undefined;
  }
  trackPath(channel.path);
  return channel;
}

/** Unmaps and removes the channel's file. */
export function closeFrameChannel(channel: FrameChannel): void {
  channel.close();
  untrackPath(channel.path);
}
