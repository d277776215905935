/**
 * What the page scripts (the runtime, src/runtime/page/, and the glyph check, src/runtime/glyph-page/)
 * and the code that drives them agree on: the configuration the runtime reads from
 * `window.__vidkitBoot`, the object it installs as `window.__vidkit`, and the glyph check's
 * `window.__vidkitGlyphs`. The page scripts implement these types, the renderer (capture-session.ts,
 * page-video-frames.ts) and `<vidkit-player>` call through them, and tsc checks each side against
 * this file. Types only, no imports: the page's own tsconfig and the Node one both read it.
 */

/** What the page runtime reads from `window.__vidkitBoot` before any page script runs. */
export interface RuntimeBoot {
  /** Declared defaults merged with overrides: what `getVariables()` returns. */
  variables: Record<string, unknown>;
  /** The overrides alone, as the render or the player was given them: `window.__hfVariables`. */
  overrides: Record<string, unknown>;
  fps: number;
  /** Seeds `Math.random`, `crypto.getRandomValues` and `crypto.randomUUID`. */
  seed: string;
  /** What `Date` reads at virtual time 0, in ms since 1970-01-01 UTC: the same in every chunk. */
  epochMs: number;
  /** An output with alpha: html and body are made transparent. */
  transparent?: boolean;
  /** The bundled fonts' stylesheet (boot.ts, fontsStylesheetUrl), linked in every frame the runtime runs in. */
  fontsUrl?: string;
  /**
   * Videos show the renderer's decoded pictures, asked for through the DevTools binding
   * `__vidkitVideoFrames` (src/runtime/page/video-frames.ts); set by the capture session that
   * serves them. Without it (the player) videos play in the browser.
   */
  videoFrames?: boolean;
}

/**
 * What a seek answers: whether the page may look different from the previous frame; 'video' when
 * a seeked video's new picture must also reach the compositor before the capture; 'composite'
 * when a shader transition's scenes must be painted before it is drawn (seek.ts).
 */
export type SeekOutcome = boolean | 'video' | 'composite';

/** A media element on the composition's timeline, as the page runtime reports it (seconds). */
export interface MediaElementTiming {
  kind: 'audio' | 'video';
  /** The resolved URL of what it plays. */
  src: string;
  start: number;
  offset: number;
  playbackRate: number;
  loop: boolean;
  /** 0 to 3.98 (data-volume boosts up to +12 dB). */
  volume: number;
  muted: boolean;
  /** Composition time at which it stops (trimmed by data-duration); absent: its source's end. */
  end?: number;
  /** Its volume at each frame time when a timeline moves it; absent: `volume` throughout. */
  volumes?: Array<{ time: number; volume: number }>;
}

/**
 * A clip or nested composition of the page, as the runtime times it for a frame (docs/guide/authoring.md,
 * `<vidkit-player>`, clips()): seconds on the root timeline.
 */
export interface PageClip {
  tag: string;
  id: string | null;
  /** Index in the list of the nested composition it plays in; null for the root composition. */
  composition: number | null;
  /** Its data-composition-id when it is a nested composition. */
  compositionId: string | null;
  /** The composition file it was mounted from; null for the page itself. */
  source: string | null;
  start: number;
  /** Null when it stays until the composition around it ends. */
  end: number | null;
  /** data-track-index, when given. */
  track: number | null;
  /** A medium's or image's URL. */
  src: string | null;
  /** Seconds of the source (medium or nested timeline) skipped at its start: data-playback-start. */
  playbackStart: number;
  playbackRate: number;
  /** A medium's own length in seconds, once known. */
  sourceDuration: number | null;
}

/** What the page asks the renderer about a video: a source to open, or the picture at a media time. */
export interface VideoRequest {
  id: number;
  src?: string;
  time?: number;
}

/** A decoded source as the page uses it (the native reader's VideoFrameInfo has these and more). */
export interface VideoInfo {
  /** The picture's size as a browser shows it. */
  width: number;
  height: number;
  /** The container's duration: the element's `duration`. */
  durationSeconds: number;
  /** Where the video stream ends: the length a looping clip repeats at. */
  videoDurationSeconds: number;
  /** A WebCodecs VideoPixelFormat of tightly packed planes, or 'RGBA'. */
  format: string;
  codedWidth: number;
  codedHeight: number;
  /** WebCodecs VideoMatrixCoefficients of planar pictures. */
  matrix: string;
  fullRange: boolean;
}

/** The answer for one video: its metadata once opened (none: missing or without video), whether a new picture was handed over. */
export interface VideoAnswer {
  id: number;
  info?: VideoInfo;
  written?: boolean;
}

/** The renderer's answer to one call of the `__vidkitVideoFrames` binding. */
export type VideoReply = { items: VideoAnswer[] } | { error: string };

/** `window.__vidkit`: what the page runtime gives page scripts and the code that drives it. */
export interface VidkitRuntime {
  /** The variables' values: declared defaults merged with the render's overrides. */
  getVariables(): Record<string, unknown>;
  /** Holds the first frame until `promise` settles, e.g. data a script fetches. */
  waitFor(promise: unknown): void;
  readonly fps: number;
  readonly frame: number;
  /** The virtual time in seconds. */
  readonly time: number;
  /** Moves forward to `frame`; a promise when the frame waits for loads, videos or the page. */
  __seekFrame(frame: number): SeekOutcome | Promise<SeekOutcome>;
  /** Settles once the page, its fonts, images, media, timelines and iframes are ready for frame 0. */
  __ready(): Promise<void>;
  /** Two real animation frames, more while a seeked video's picture is not presented yet. */
  __afterPaint(): Promise<void>;
  __videosPresented(): boolean;
  /** The renderer's answer to the video call `call`; settles once the page has read the files handed over. */
  __videoReply(call: number, reply: VideoReply): Promise<unknown> | null;
  /** The hidden file input through which video `id`'s pictures arrive. */
  __videoInput(id: number): HTMLInputElement | null;
  __mediaTimeline(): MediaElementTiming[];
  /** What failed to load since the last call ("image <url>"…). */
  __failedLoads(): string[];
  /** The composition's length in seconds (declared, or inferred); 0 when unknown. */
  __duration(): number;
  /** The clips and nested compositions with their windows. */
  __clips(): PageClip[];
  /** What the variables reach in a render of `totalFrames` frames, as recorded so far. */
  __reach(totalFrames: number): PageReach;
}

/** One element a binding (data-var-text, data-var-src) writes a variable into. */
export interface ReachBinding {
  /** The variable. */
  id: string;
  /** The element, as `<tag#id.class>`. */
  element: string;
  /** The frames at which it may be seen, as [start, end) runs; null when they cannot be bounded. */
  frames: Array<[number, number]> | null;
  /** Why the frames cannot be bounded. */
  why?: string;
}

/** What the variables reach in a page (src/runtime/page/reach.ts, docs/explanation/batch-reuse.md). */
export interface PageReach {
  /** Variables page scripts read; `*` every one (the boot object), `*overrides` which ones were overridden. */
  reads: string[];
  bindings: ReachBinding[];
  /** Variables whose custom property (--id, --slug) a style sheet or inline style uses; `*` when a sheet cannot be read. */
  css: string[];
  /** Why no binding's frames can be trusted (page scripts, an iframe, a selector that sees bound content); null when they can. */
  unbounded: string | null;
  /** Why no variable's frames can be bounded at all (an iframe); null when they can. */
  whole: string | null;
}

/** Text no available face can draw, as the glyph check reports it. */
export interface MissingGlyphs {
  /** The element drawing it, as `tag#id` or up to three `tag.class` steps from the nearest id. */
  element: string;
  /** Its text (the first 80 characters). */
  text: string;
  /** The characters no face has, each once, in order of appearance. */
  characters: string[];
  /** The variables whose string value the text holds: where the text came from. */
  variables: string[];
}

/** `window.__vidkitGlyphs`: the glyph check (src/runtime/glyph-page/) a render injects into the top frame. */
export interface VidkitGlyphs {
  /**
   * Checks the page as it is once ready, and from then on the text that changes; `variables` are
   * the render's, to name the ones a text holds.
   */
  start(variables?: Record<string, unknown>): void;
  /** Findings not reported before, once the faces the checked text needs have loaded (bounded). */
  report(): Promise<MissingGlyphs[]>;
}

declare global {
  interface Window {
    /** Set by the runtime once; absent before it has run. */
    __vidkit?: VidkitRuntime;
    __vidkitBoot?: Partial<RuntimeBoot>;
    /** Set by the glyph check in a render's top frame; absent elsewhere. */
    __vidkitGlyphs?: VidkitGlyphs;
  }
}
