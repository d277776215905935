import * as path from 'node:path';
import { badInput } from '../errors';

/**
 * The output formats of `vidkit render --format` and the SDK's `config.format`.
 * - mp4: H.264 yuv420p BT.709 (the default)
 * - webm: VP9 yuva420p with alpha
 * - mov: ProRes 4444 yuva444p10le with alpha
 * - hdr-pq / hdr-hlg: 10-bit HEVC (Main 10) BT.2020 with PQ (HDR10 metadata) or HLG, in MP4
 */
export const OUTPUT_FORMATS = ['mp4', 'webm', 'mov', 'hdr-pq', 'hdr-hlg'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** HDR is encoded in-process only (SPEC 4.1 rule 6); the others join by stream copy anywhere. */
export const DISTRIBUTED_FORMATS: readonly OutputFormat[] = ['mp4', 'webm', 'mov'];

const EXTENSIONS: Record<OutputFormat, string> = { mp4: '.mp4', webm: '.webm', mov: '.mov', 'hdr-pq': '.mp4', 'hdr-hlg': '.mp4' };
const CONTENT_TYPES: Record<OutputFormat, string> = { mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime', 'hdr-pq': 'video/mp4', 'hdr-hlg': 'video/mp4' };

export function parseOutputFormat(value: string | undefined, option = '--format'): OutputFormat {
  const name = value ?? 'mp4';
  if (!(OUTPUT_FORMATS as readonly string[]).includes(name)) {
    throw badInput(`${option} must be one of ${OUTPUT_FORMATS.join(', ')}, got "${name}"`);
  }
  return name as OutputFormat;
}

export function formatExtension(format: OutputFormat): string {
  return EXTENSIONS[format];
}

/** The media type an uploaded file of the format is stored with. */
export function formatContentType(format: OutputFormat): string {
  return CONTENT_TYPES[format];
}

/** Whether the page is captured with its transparency (PNG frames, no default background). */
export function hasAlpha(format: OutputFormat): boolean {
  return format === 'webm' || format === 'mov';
}

/** An output path must carry its format's extension, so a player reads it as what it is. */
export function assertOutputExtension(output: string, format: OutputFormat): void {
  const want = formatExtension(format);
  const got = path.extname(output).toLowerCase();
  if (got !== want) {
    throw badInput(`--output ${output} does not match --format ${format}: name a ${want} file`);
  }
}

/** Called by the distributed path before any cloud request. */
export function assertDistributedFormat(format: string): asserts format is OutputFormat {
  const parsed = parseOutputFormat(format, 'format');
  if (!DISTRIBUTED_FORMATS.includes(parsed)) {
    throw badInput(
      `format ${parsed}: the HDR mp4 output format is rejected in distributed mode; it is supported in-process only (vidkit render --format ${parsed})`,
    );
  }
}
