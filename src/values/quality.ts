import { Static, Type } from '@sinclair/typebox';
import { QUALITIES } from './constants';

export type Quality = (typeof QUALITIES)[number];

/** How a frame leaves the browser; also part of the cloud payload (sdk/render-input.ts). */
export const FrameFormatSchema = Type.Union([Type.Object({ type: Type.Literal('jpeg'), quality: Type.Number() }), Type.Object({ type: Type.Literal('png') })]);
export type FrameFormat = Static<typeof FrameFormatSchema>;

export const QualitySettingsSchema = Type.Object({
  crf: Type.Number(),
  preset: Type.String(),
  /** x264 options after the preset (mp4 only). */
  x264Params: Type.Optional(Type.String()),
  /** x264 options instead of `x264Params` for a page with a `<video>` (mp4 only). */
  x264ParamsWithVideo: Type.Optional(Type.String()),
  frameFormat: FrameFormatSchema,
});
export type QualitySettings = Static<typeof QualitySettingsSchema>;

/**
 * The standard motion search: diamond search with one refinement step instead of veryfast's
 * hexagon and two. On lossless 1080p bench frames at CRF 18 it cut x264's CPU by 28-42% (canvas
 * 13.3 -> 8.7 s for 300 frames, css keyframes 8.2 -> 4.8 s), files -11% to +7%, PSNR -0.3 to
 * +0.15 dB. On two cores the encoder shares the CPU with the browsers, so this is render time.
 */
const FAST_MOTION_SEARCH = 'me=dia:subme=1';

/**
 * Graphics: inter prediction of whole macroblocks only (x264 superfast's partitions: no 8x8 or
 * smaller inter blocks; the intra 8x8 and 4x4 stay). On the ten-card GSAP page (300 1080p frames,
 * 4 alternating runs) the machine's CPU time fell from 47.2 to 45.0 s (median) and the render
 * 26.1 -> 25.7 s, files 1.2% larger, PSNR 30.862 against 30.861 dB; css-keyframes 45.6 -> 42.6 s of
 * CPU, files 2.9% larger; gsap-text and ui-3d-reveal within their noise, files 0.9% and 0.5% larger.
 */
const WHOLE_BLOCK_INTER = 'partitions=i8x8,i4x4';

/**
 * Pages with video: one B-frame between references, placed without veryfast's per-frame B-frame
 * decision (b-adapt). On the picture-in-picture bench page (two camera-like videos, 300 1080p
 * frames) files came out 3.6% smaller and renders 2-5% faster (A/Bs of 3-4 runs), PSNR 26.756
 * against 26.759 dB. Graphics keep the adaptive choice: there it made ui-3d-reveal 21% larger.
 */
const VIDEO_B_FRAMES = 'bframes=1:b-adapt=0';

/** What `--quality` means; `--crf` overrides the CRF of any of them. */
export const QUALITY_SETTINGS: Record<Quality, QualitySettings> = {
  draft: { crf: 28, preset: 'ultrafast', frameFormat: { type: 'jpeg', quality: 75 } },
  standard: {
    crf: 18,
    preset: 'veryfast',
    x264Params: `${FAST_MOTION_SEARCH}:${WHOLE_BLOCK_INTER}`,
    x264ParamsWithVideo: `${FAST_MOTION_SEARCH}:${VIDEO_B_FRAMES}`,
    frameFormat: { type: 'jpeg', quality: 90 },
  },
  high: { crf: 12, preset: 'medium', frameFormat: { type: 'png' } },
};

/** What `quality` (default standard) means, its CRF replaced by `crf` when given; both checked where the options are read. */
export function encodeSettings(quality: Quality = 'standard', crf?: number): QualitySettings {
  const base = QUALITY_SETTINGS[quality];
  return crf === undefined ? base : { ...base, crf };
}
