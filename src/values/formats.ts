import * as path from 'node:path';
import { badInput } from '../errors';
import type { NativeEncoderOptions } from '../native-addon';
import { OUTPUT_FORMATS } from './constants';

/**
 * The output formats of `vidkit render --format` and the SDK's `config.format`.
 * - mp4: H.264 yuv420p BT.709 (the default)
 * - webm: VP9 yuva420p with alpha
 * - mov: ProRes 4444 yuva444p10le with alpha
 * - hdr-pq / hdr-hlg: 10-bit HEVC (Main 10) BT.2020 with PQ (HDR10 metadata) or HLG, in MP4
 * - gif: an animated GIF with one palette for the whole render
 * - png-sequence: a directory of RGBA PNG frames, frame_000001.png for frame 0
 * - hls: a directory of HLS playlists (master.m3u8, stream.m3u8) and H.264/AAC MPEG-TS segments
 */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * The formats the cloud renders: their chunks join by stream copy in the assemble step. HDR is
 * encoded in-process only; gif, png-sequence and hls are made on this machine only (docs/reference/formats.md).
 */
export const DISTRIBUTED_FORMATS: readonly OutputFormat[] = ['mp4', 'webm', 'mov'];

/** The formats written as a directory rather than one file. */
const DIRECTORY_FORMATS: readonly OutputFormat[] = ['png-sequence', 'hls'];

const EXTENSIONS: Record<OutputFormat, string> = {
  mp4: '.mp4',
  webm: '.webm',
  mov: '.mov',
  'hdr-pq': '.mp4',
  'hdr-hlg': '.mp4',
  gif: '.gif',
  'png-sequence': '',
  hls: '',
};
const CONTENT_TYPES: Record<OutputFormat, string> = {
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  'hdr-pq': 'video/mp4',
  'hdr-hlg': 'video/mp4',
  gif: 'image/gif',
  'png-sequence': 'image/png',
  hls: 'application/vnd.apple.mpegurl',
};

/** The output file's extension; empty for the directory formats. */
export function formatExtension(format: OutputFormat): string {
  return EXTENSIONS[format];
}

/** Whether the output is a directory (png-sequence, hls) rather than one file. */
export function isDirectoryFormat(format: OutputFormat): boolean {
  return DIRECTORY_FORMATS.includes(format);
}

/** The media type an uploaded file of the format is stored with. */
export function formatContentType(format: OutputFormat): string {
  return CONTENT_TYPES[format];
}

/** Whether the page is captured with its transparency (PNG frames, no default background). */
export function hasAlpha(format: OutputFormat): boolean {
  return format === 'webm' || format === 'mov' || format === 'png-sequence';
}

/** Whether frames are captured as PNG whatever the quality: alpha, or kept as pictures (gif palette). */
export function capturesPng(format: OutputFormat): boolean {
  return hasAlpha(format) || format === 'gif';
}

/**
 * The formats whose encoder takes 8-bit yuv420p (BT.709, limited range): a screenshot may reach it
 * already converted from the browser's raw pixels (render/capture/frame-channel.ts).
 */
export function takesConvertedFrames(format: OutputFormat): boolean {
  return format === 'mp4' || format === 'hls';
}

/** The native encoder's format of a render's segments: hls segments are H.264 MP4 before they are cut. */
export function encoderFormat(format: OutputFormat): NonNullable<NativeEncoderOptions['format']> {
  if (format === 'hls') return 'mp4';
  if (format === 'gif' || format === 'png-sequence') throw new Error(`format ${format} keeps frames as PNG files; it has no segment encoder`);
  return format;
}

/** An output path must carry its format's extension, so a player reads it as what it is. */
export function assertOutputExtension(output: string, format: OutputFormat): void {
  const want = formatExtension(format);
  const got = path.extname(output).toLowerCase();
  if (isDirectoryFormat(format)) {
    if (/^\.(mp4|webm|mov|gif|png|m3u8)$/.test(got)) {
      throw badInput(`--output ${output} names a ${got} file, but --format ${format} writes a directory: name a directory`);
    }
    return;
  }
  if (got !== want) {
    throw badInput(`--output ${output} does not match --format ${format}: name a ${want} file`);
  }
}

/** Called by the distributed path before any cloud request, on a format the options check has read. */
export function assertDistributedFormat(parsed: OutputFormat): void {
  if (parsed === 'hdr-pq' || parsed === 'hdr-hlg') {
    throw badInput(
      `format ${parsed}: the HDR mp4 output format is rejected in distributed mode; it is supported in-process only (vidkit render --format ${parsed})`,
    );
  }
  if (!DISTRIBUTED_FORMATS.includes(parsed)) {
    throw badInput(
      `format ${parsed} is rendered on this machine only (vidkit render --format ${parsed}); the cloud renders ${DISTRIBUTED_FORMATS.join(', ')}`,
    );
  }
}
