// The configuration every part of the page runtime reads, from `window.__vidkitBoot` (boot.ts
// builds it), and the state several parts change: the virtual clock and whether the frame may
// look different. Read when the bundle starts, after its guard against a second install.
import type { RuntimeBoot } from '../protocol';

export const boot: Partial<RuntimeBoot> = window.__vidkitBoot || {};
export const fps = boot.fps || 30;
// Every chunk of one render shares the same epoch, so Date agrees across chunk seams.
export const epochMs = typeof boot.epochMs === 'number' ? boot.epochMs : 0;
export const seed = String(boot.seed);
export const variables: Record<string, unknown> = boot.variables || {};
// Videos the renderer decodes (video-frames.ts); the binding itself arrives after this script has run.
export const videoChannel = boot.videoFrames === true;

export const state = {
  /** The virtual time in ms: what Date, performance.now and timers read. */
  nowMs: 0,
  /** The frame the page shows; -1 before the first seek. */
  frame: -1,
  /**
   * Whether the page may look different from the previous frame (changes.ts): a callback of the
   * clock ran, an animation, timeline, adapter or video moved, the DOM or a style sheet changed, a
   * load arrived, or a canvas was painted.
   */
  changed: true,
  /** The protocol's own `window.__hf.seek` (seek.ts), to tell a library's wrapper of it apart. */
  protocolSeek: null as ((seconds: unknown) => unknown) | null,
  /** Set while the renderer calls a seek a library wrapped around the protocol's own (seek.ts). */
  wrappedSeeking: false,
};
