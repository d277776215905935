/**
 * The compatibility suite: compositions in HyperFrames' format, written for it, each measuring one
 * feature of the format (docs/guide/hyperframes.md). Every one is rendered by the peer and by
 * vidkit in the same run and compared frame by frame.
 */
import FUZZ_ROWS from './fuzz/rows.json';
import { PRODUCTION_SPECS, ProductionSpec } from './production';

/** Every frame of a row (and every cell of a fuzzer's row) must reach this against the peer's frame. */
export const PASS_DB = 30;

export interface CompatCase {
  /** The row's name; also its folder under benches/compat/compositions unless `folder` is given. */
  name: string;
  /** Folder under benches/compat/compositions, for rows that render one composition another way. */
  folder?: string;
  /** What the composition measures. */
  feature: string;
  /**
   * Draws text. Feature rows are kept text-free; a text row can differ by font rasterisation
   * alone (the two tools draw the same font files with different settings), and is named so.
   */
  text?: true;
  /**
   * A fuzzer's row (640x360, a part in each cell of a 3x2 grid): each cell must pass on its own
   * too, as in the fuzzer's oracle, or a row kept for one small part could pass on whole frames.
   */
  cells?: true;
  /** Output format, mp4 unless given. */
  format?: 'webm';
  /** Given to both tools with `--variables`. */
  variables?: Record<string, unknown>;
  /** Seconds each tool may take to render it, for the production rows; 120 unless given. */
  timeoutSeconds?: number;
  /** Given to both tools with `--workers`; each tool's `auto` unless given. */
  workers?: number;
  /**
   * Stretches of the soundtrack where vidkit deliberately sounds different from the peer, each
   * with the reason (docs/guide/hyperframes.md lists them): their 50 ms levels are left out of the
   * level comparison and named in the row's note. Integrated loudness still covers them.
   */
  audioDifferences?: Array<{ from: number; to: number; why: string }>;
}

/** Why a stretch with sound two sub-compositions deep sounds different (docs/guide/hyperframes.md). */
const NESTED_SOUND = 'the peer does not mix the sound of a sub-composition two levels deep, which it draws';

export const SUITE: CompatCase[] = [
  { name: 'variables-script', feature: 'variables: __hyperframes.getVariables() at top level, with overrides', variables: { count: 5, outline: true } },
  { name: 'variables-hf-overrides', feature: 'variables: the keys of window.__hfVariables', variables: { count: 5, outline: true } },
  { name: 'variables-bindings', feature: 'variables: [data-composition-variables] on the root, image type, data-var-src, --<id> bindings', variables: { accent: '#457b9d', logo: 'logo-b.svg' } },
  { name: 'clips-window', feature: 'clips: data-start with data-duration, data-end, none' },
  { name: 'clips-relative', feature: 'clips: relative starts (id, id + s, id - s, forward reference)' },
  { name: 'clips-hidden-ancestor', feature: 'clips: a hidden timed ancestor hides its timed descendants' },
  { name: 'clips-tracks', feature: 'clips: data-track-index lanes overlap; z-index orders' },
  { name: 'root-data-root', feature: 'root: data-root="true" over the first data-composition-id, which becomes a clip' },
  { name: 'root-inferred-duration', feature: 'root: no data-duration, inferred from the timeline (1.5 s)' },
  { name: 'timelines-gsap', feature: 'timelines: paused GSAP timeline under the root id' },
  { name: 'timelines-array', feature: 'timelines: window.__timelines as an array, endless repeat inside' },
  { name: 'timelines-other-key', feature: 'timelines: the single timeline under another key' },
  { name: 'timelines-nested', feature: 'timelines: a child composition timeline in its local time' },
  { name: 'timelines-raf-read', feature: 'timelines: a requestAnimationFrame loop drawing a paused timeline\'s state; a tween a timeline callback starts on GSAP\'s own clock' },
  { name: 'images-animated', feature: 'media: animated GIFs, one shown from the start and one in a clip from 0.7 s, looping' },
  { name: 'timelines-from-timers', feature: 'timelines: scenes whose timelines the page registers from timers (0 ms to 1.6 s), there on the first frame' },
  { name: 'timelines-hf-protocol', feature: 'timelines: window.__hf {duration, seek} as the page sees it' },
  { name: 'adapter-hf-seek', feature: 'adapters: hf-seek event, waitUntil holds the frame' },
  { name: 'adapter-anime', feature: 'adapters: anime.js instances in __hfAnime' },
  { name: 'adapter-lottie', feature: 'adapters: Lottie (lottie-web) in __hfLottie' },
  { name: 'adapter-three-seek', feature: 'adapters: three.js drawn from hf-seek' },
  { name: 'adapter-three-time', feature: 'adapters: three.js loop reading __hfThreeTime' },
  { name: 'waapi-paused', feature: 'adapters: WAAPI animations paused by the page still seeked' },
  { name: 'css-clip-offset', feature: 'adapters: CSS animations offset by their clip start' },
  { name: 'iframe-same-origin', feature: 'adapters: same-origin iframe (rAF-driven canvas and element)' },
  { name: 'media-video-window', feature: 'media: video window, trim, data-media-start / data-playback-start, relative start' },
  { name: 'media-video-rate', feature: 'media: data-playback-rate 2 and 0.5' },
  { name: 'media-audio', feature: 'media: audio data-volume, data-media-start, trim, relative start (levels compared)' },
  { name: 'media-audio-volume', feature: 'media: volume animated by a GSAP timeline (levels compared)' },
  { name: 'media-video-colour', feature: 'media: sources tagged in part (matrix alone, primaries alone, none, full range) at 720 and 360 lines' },
  { name: 'alpha-webm', feature: 'alpha: html and body backgrounds left out in webm', format: 'webm' },
  { name: 'alpha-root-background', feature: "alpha: the root's own half-transparent background in webm", format: 'webm' },
  { name: 'sub-nested', feature: 'sub-compositions: files nested 3 deep, a host without an id, an inline template; GSAP timelines in host time' },
  { name: 'sub-scoped', feature: 'sub-compositions: one file twice, per-instance variables, #rootId and class selectors scoped, scoped document and gsap' },
  { name: 'sub-audio', feature: 'sub-compositions: a sub-composition with its own audio, path from its folder (levels compared)' },
  { name: 'text-plain', feature: 'text: static text and a GSAP fade, nothing else of the format', text: true },
  { name: 'text-variables', feature: 'text: data-var-text, font variable type', text: true, variables: { title: 'Launch day' } },
  { name: 'text-captions', feature: 'text: captions in relative clips, GSAP', text: true },
  { name: 'transitions-shader', feature: '@hyperframes/shader-transitions: an sdf-iris transition between two GSAP-animated scenes' },
  {
    name: 'prod-portrait-promo',
    feature: 'production: 15 s 1080x1920, a-roll with sound, word-by-word captions, overlays nesting a badge (3 levels), 7 font families (Fraunces not bundled), 3 sound effects, CTA end card',
    text: true,
    timeoutSeconds: 1200,
  },
  { name: 'clips-hidden-descendants', feature: "clips: a hidden clip hides what it holds, even descendants whose CSS or GSAP made them visible (a CTA's buttons)" },
  { name: 'sub-unnamed-root', feature: 'sub-compositions: a host without an id whose composition root has its own data-start and data-duration' },
  { name: 'sub-media-offsets', feature: 'sub-compositions: data-playback-start on a host with and without an id, or on its root; the timeline, a clip and a video inside each' },
  { name: 'root-layers', feature: 'layout: the root\'s clips in the page\'s flow laid over each other and sized; a video in a flex row from its first frame' },
  { name: 'sub-at-zero', feature: 'sub-compositions at t=0: from() and fromTo() tweens at 0, a host with and without a length, the root timeline beside them' },
  { name: 'iframe-spinner', feature: 'same-origin iframe: spinners from a self-playing GSAP tween and requestAnimationFrame' },
  { name: 'gsap-chunks-1', folder: 'gsap-chunks', workers: 1, feature: 'GSAP cross-fades straddling 1 s and 2 s, one worker each' },
  { name: 'gsap-chunks-3', folder: 'gsap-chunks', workers: 3, feature: 'GSAP cross-fades straddling 1 s and 2 s, three workers each (chunks start inside the fades)' },
  { name: 'audio-mix', feature: "mix: an a-roll's sound under overlapping effects, a video's sound beside an <audio> of it, effects two sub-compositions deep, a loop, a trim, data-volume above 1 (levels and integrated loudness compared)",
    audioDifferences: [
      { from: 6.5, to: 7.5, why: `the ding at 6.7 s: ${NESTED_SOUND}` },
      { from: 8.3, to: 8.5, why: 'the peer plays an <audio loop> once; vidkit loops it to the end of its window' },
    ],
  },
  ...PRODUCTION_SPECS.map((spec) => ({
    name: spec.name,
    feature: productionFeature(spec),
    text: true as const,
    timeoutSeconds: 1800,
    // The badge (overlays > badge) starts at 1.2 s and dings 0.1 s later, for 0.8 s.
    audioDifferences: [{ from: 1.3, to: 2.1, why: `the badge's ding: ${NESTED_SOUND}` }],
  })),
  { name: 'fonts-faces', feature: "fonts: HyperFrames' static faces and aliases, a weight between them, generic fallbacks after an unknown family, the default font", text: true },
  // Mismatches the fuzzer found (npm run compat -- --fuzz), reduced, each named by its seed and case.
  ...(FUZZ_ROWS as Array<{ name: string; feature: string; text?: true }>).map((row) => ({ ...row, cells: true as const })),
];

function productionFeature(spec: ProductionSpec): string {
  const transition = typeof spec.transition === 'object' ? `shader-transitions ${spec.transition.shader}` : spec.transition === 'css' ? 'CSS wipe' : 'GSAP cross-fade';
  const fonts = [spec.fonts.caption, spec.fonts.title, spec.fonts.lower, spec.fonts.button];
  return `production: ${spec.seconds} s ${spec.width}x${spec.height}, a-roll with sound, word-by-word captions every ${spec.wordSeconds} s, ${spec.levels} levels of sub-compositions, ${transition}, ${fonts.join(', ')} (${spec.fonts.notBundled} not bundled), 3 sound effects and one in a sub-composition, CTA end card then outro`;
}
