// Every render option, declared once: its flag, its name in render() and the cloud SDK's config,
// the type a caller passes, its default, what it does, where it is documented and which paths
// take it. The commands' clipanion options, render()'s option type, the Docker argv, the checks
// shared by the CLI, render() and the SDK, and docs/reference/render-options.md are all made
// from this table.
import type { CaptureMode } from '../values/capture-mode';
import { CHECKS, OptionCheck } from './checks';
import type { OutputFormat } from '../values/formats';
import type { Quality } from '../values/quality';
import {
  DEFAULT_CHUNK_SIZE,
  DEFAULT_MAX_ASSET_BYTES,
  DEFAULT_MAX_BATCH_BYTES,
  DEFAULT_MAX_VARIABLES_BYTES,
  DEFAULT_MAX_VARIABLE_BYTES,
  DEFAULT_MAX_PARALLEL_CHUNKS,
  DEFAULT_SEED,
  DEFAULT_STACK_NAME,
  DEFAULT_TIMEOUTS,
  FPS_CEILING,
  HLS_SEGMENT_SECONDS,
  MAX_TIMEOUT_SECONDS,
  OUTPUT_FORMATS,
  QUALITIES,
} from '../values/constants';

/**
 * Where an option applies: `vidkit render` and render(), `vidkit still`, `vidkit render --batch`,
 * `vidkit cloudfn render`, `vidkit cloudfn render-batch`, the cloud SDK's `config` (which the
 * render function's event carries). A command takes every option of its surfaces (cli-options.ts).
 */
export type Surface = 'render' | 'still' | 'batch' | 'cloudfn' | 'cloudfn-batch' | 'sdk';

/** What a caller of render() or the SDK passes for an option; the CLI always reads text. */
export interface ApiValueTypes {
  string: string;
  number: number;
  boolean: boolean;
  workers: number | 'auto';
  epoch: string | number;
  format: OutputFormat;
  quality: Quality;
  capture: CaptureMode | 'auto';
  /** Variable overrides by name (composition/variables.ts reads them). */
  variables: Record<string, unknown>;
}

export interface RenderOptionSpec {
  /** The long flag; the option's property on the commands is its key in {@link RENDER_OPTIONS}. */
  flag: `--${string}`;
  /** A one-letter alias. */
  short?: `-${string}`;
  /** Text (a value follows the flag) or a switch; a switch defaulting to true is turned off by `--no-<flag>`. */
  kind: 'string' | 'boolean';
  /** Reads the value, a flag's text or an API value, and checks it: the only place its rule is applied (resolve.ts runs it). */
  check?: OptionCheck<unknown>;
  /** The value clipanion fills in when the flag is absent. */
  cliDefault?: string | boolean;
  /** The type render() and the SDK take, or absent where the option is the command line's only. */
  api?: keyof ApiValueTypes;
  /** The value a reader sees in the docs when the option is absent. */
  default?: string;
  /** The placeholder of the value in the docs, e.g. `<s>`. */
  value?: string;
  description: string;
  /** The docs page (path from the repository root, with its heading anchor) that explains the option. */
  doc: string;
  appliesTo: readonly Surface[];
  /** `render --docker` hands the value to the render inside the image as given. */
  docker?: boolean;
}

const RENDER_DOC = 'docs/guide/render.md';
const BATCH_DOC = 'docs/guide/batch.md';
const SECURITY_DOC = 'docs/explanation/security-model.md';
const CLOUD_DOC = 'docs/guide/cloud.md';
const LIMITS_DOC = 'docs/reference/limits.md';
const LOCAL = ['render', 'still', 'batch'] as const satisfies readonly Surface[];
const LOCAL_AND_SDK = ['render', 'still', 'batch', 'sdk'] as const satisfies readonly Surface[];
const EVERYWHERE = ['render', 'still', 'batch', 'cloudfn', 'cloudfn-batch', 'sdk'] as const satisfies readonly Surface[];
/** How a cloud render is cut into chunks: a batch's renders take the plan's defaults. */
const CLOUD = ['cloudfn', 'sdk'] as const satisfies readonly Surface[];
/** The cloud commands' own: where the render runs and how its end is told, not how it is drawn. */
const CLOUDFN = ['cloudfn', 'cloudfn-batch'] as const satisfies readonly Surface[];

export const RENDER_OPTIONS = {
  composition: {
    flag: '--composition',
    kind: 'string',
    api: 'string',
    value: '<path>',
    default: 'index.html',
    description: 'The page to render, a path in the project: a host page or a sub-composition file rendered on its own (default index.html; `vidkit compositions` lists them)',
    doc: RENDER_DOC,
    appliesTo: LOCAL,
    docker: true,
  },
  output: {
    flag: '--output',
    short: '-o',
    kind: 'string',
    api: 'string',
    value: '<file>',
    default: 'out/<composition id>.<ext>',
    description: 'Output file, with the extension of --format (a directory for png-sequence and hls); default out/<composition id>.<ext>',
    doc: RENDER_DOC,
    appliesTo: ['render', 'still'],
  },
  format: {
    flag: '--format',
    kind: 'string',
    check: CHECKS.format,
    api: 'format',
    value: '<name>',
    default: 'mp4',
    description: `Output format: ${OUTPUT_FORMATS.join(', ')} (default mp4)`,
    doc: 'docs/reference/formats.md',
    appliesTo: ['render', 'batch', 'cloudfn', 'cloudfn-batch', 'sdk'],
  },
  variables: {
    flag: '--variables',
    kind: 'string',
    api: 'variables',
    value: '<json>',
    description: 'JSON object of variable overrides',
    doc: RENDER_DOC,
    appliesTo: ['render', 'still', 'cloudfn', 'sdk'],
  },
  variablesFile: {
    flag: '--variables-file',
    kind: 'string',
    value: '<path>',
    description: 'File holding a JSON object of variable overrides; - reads it from stdin',
    doc: RENDER_DOC,
    appliesTo: ['render', 'still', 'cloudfn'],
  },
  strictVariables: {
    flag: '--strict-variables',
    kind: 'boolean',
    cliDefault: false,
    api: 'boolean',
    default: 'false',
    description: 'Fail on undeclared or mistyped variables',
    doc: RENDER_DOC,
    appliesTo: ['render', 'still', 'batch', 'cloudfn-batch'],
    docker: true,
  },
  workers: {
    flag: '--workers',
    kind: 'string',
    check: CHECKS.workers,
    cliDefault: 'auto',
    api: 'workers',
    value: '<n|auto>',
    default: 'auto',
    description: 'Parallel browser sessions: a number, or "auto" (up to one per core, each started only where it pays for its start, one more while the cores sit idle; limited by memory and frames)',
    doc: RENDER_DOC,
    appliesTo: ['render'],
    docker: true,
  },
  fps: {
    flag: '--fps',
    kind: 'string',
    check: CHECKS.fps,
    api: 'number',
    value: '<n>',
    default: "the composition's data-fps, else 30",
    description: `Frames per second, above 0 and at most ${FPS_CEILING}; default the composition's data-fps, else 30`,
    doc: RENDER_DOC,
    appliesTo: LOCAL_AND_SDK,
    docker: true,
  },
  width: {
    flag: '--width',
    kind: 'string',
    check: CHECKS.side,
    api: 'number',
    value: '<px>',
    default: 'data-width',
    description: 'Output width in pixels (keeps the aspect ratio; default data-width)',
    doc: RENDER_DOC,
    appliesTo: EVERYWHERE,
    docker: true,
  },
  height: {
    flag: '--height',
    kind: 'string',
    check: CHECKS.side,
    api: 'number',
    value: '<px>',
    default: 'data-height',
    description: 'Output height in pixels (keeps the aspect ratio; default data-height)',
    doc: RENDER_DOC,
    appliesTo: EVERYWHERE,
    docker: true,
  },
  resolution: {
    flag: '--resolution',
    kind: 'string',
    api: 'string',
    value: '<preset>',
    description: "Output size preset instead of --width/--height: 1080p, 720p, 480p, 4k (following the composition's orientation), or landscape, portrait, square with -4k, -720p, -480p",
    doc: 'docs/reference/resolution-presets.md',
    appliesTo: LOCAL,
    docker: true,
  },
  gifLoop: {
    flag: '--gif-loop',
    kind: 'string',
    check: CHECKS.gifLoop,
    api: 'number',
    value: '<n>',
    default: '0 (for ever)',
    description: 'With --format gif: times the animation repeats after its first play, 0 to 65535 (default 0, for ever)',
    doc: 'docs/reference/formats.md',
    appliesTo: ['render', 'batch'],
    docker: true,
  },
  hlsSegmentSeconds: {
    flag: '--hls-segment-seconds',
    kind: 'string',
    check: CHECKS.hlsSegmentSeconds,
    api: 'number',
    value: '<s>',
    default: String(HLS_SEGMENT_SECONDS),
    description: `With --format hls: whole seconds a segment lasts, 1 to 60 (default ${HLS_SEGMENT_SECONDS}); a keyframe starts each`,
    doc: 'docs/reference/formats.md',
    appliesTo: ['render'],
    docker: true,
  },
  quality: {
    flag: '--quality',
    kind: 'string',
    check: CHECKS.quality,
    api: 'quality',
    value: `<${QUALITIES.join('|')}>`,
    default: 'standard',
    description: 'draft, standard (default) or high',
    doc: RENDER_DOC,
    appliesTo: ['render', 'batch'],
    docker: true,
  },
  crf: {
    flag: '--crf',
    kind: 'string',
    check: CHECKS.crf,
    api: 'number',
    value: '<0-51>',
    default: "the quality's",
    description: 'x264 CRF 0-51, overriding --quality (lower is better)',
    doc: RENDER_DOC,
    appliesTo: ['render', 'batch'],
    docker: true,
  },
  browserGpu: {
    flag: '--browser-gpu',
    kind: 'boolean',
    cliDefault: true,
    api: 'boolean',
    default: 'true',
    description: 'Use the GPU when the probe finds one; --no-browser-gpu forces software GL',
    doc: RENDER_DOC,
    appliesTo: LOCAL,
    docker: true,
  },
  capture: {
    flag: '--capture',
    kind: 'string',
    check: CHECKS.capture,
    cliDefault: 'auto',
    api: 'capture',
    value: '<auto|beginframe|screenshot>',
    default: 'auto',
    description: 'auto (a probe: beginframe where the browser has it, else screenshot), beginframe (headless shell) or screenshot',
    doc: 'docs/explanation/how-a-render-runs.md',
    appliesTo: LOCAL,
    docker: true,
  },
  allowMissingMedia: {
    flag: '--allow-missing-media',
    kind: 'boolean',
    cliDefault: false,
    api: 'boolean',
    default: 'false',
    description: 'A remote image or media file that cannot be fetched is a warning and a transparent placeholder instead of an error',
    doc: SECURITY_DOC,
    appliesTo: LOCAL,
    docker: true,
  },
  allowPrivateNetwork: {
    flag: '--allow-private-network',
    kind: 'boolean',
    cliDefault: false,
    api: 'boolean',
    default: 'false',
    description: 'The page and its remote assets may reach loopback, link-local and private addresses (refused by default)',
    doc: SECURITY_DOC,
    appliesTo: LOCAL,
    docker: true,
  },
  allowServiceWorkers: {
    flag: '--allow-service-workers',
    kind: 'boolean',
    cliDefault: false,
    api: 'boolean',
    default: 'false',
    description: 'The page may register service workers (refused by default: the render fails naming the worker)',
    doc: SECURITY_DOC,
    appliesTo: LOCAL,
    docker: true,
  },
  maxAssetBytes: {
    flag: '--max-asset-bytes',
    kind: 'string',
    check: CHECKS.maxAssetBytes,
    api: 'number',
    value: '<n>',
    default: `${DEFAULT_MAX_ASSET_BYTES} (512 MiB)`,
    description: `Bytes one remote asset may have (default ${DEFAULT_MAX_ASSET_BYTES}, 512 MiB)`,
    doc: SECURITY_DOC,
    appliesTo: LOCAL,
    docker: true,
  },
  maxVariableBytes: {
    flag: '--max-variable-bytes',
    kind: 'string',
    check: CHECKS.limit,
    api: 'number',
    value: '<n>',
    default: `${DEFAULT_MAX_VARIABLE_BYTES} (8 MiB)`,
    description: `Bytes one variable's value may have, as JSON (default ${DEFAULT_MAX_VARIABLE_BYTES}, 8 MiB); a larger one is refused before any browser starts`,
    doc: LIMITS_DOC,
    appliesTo: EVERYWHERE,
    docker: true,
  },
  maxVariablesBytes: {
    flag: '--max-variables-bytes',
    kind: 'string',
    check: CHECKS.limit,
    api: 'number',
    value: '<n>',
    default: `${DEFAULT_MAX_VARIABLES_BYTES} (16 MiB)`,
    description: `Bytes all of a render's variables may have together, as a JSON object (default ${DEFAULT_MAX_VARIABLES_BYTES}, 16 MiB); also bounds a variables file and a batch line's variables`,
    doc: LIMITS_DOC,
    appliesTo: EVERYWHERE,
    docker: true,
  },
  seed: {
    flag: '--seed',
    kind: 'string',
    check: CHECKS.string,
    api: 'string',
    value: '<string>',
    default: `"${DEFAULT_SEED}"`,
    description: `Seeds Math.random, crypto.getRandomValues and crypto.randomUUID in the page (default "${DEFAULT_SEED}")`,
    doc: 'docs/explanation/determinism.md',
    appliesTo: LOCAL_AND_SDK,
    docker: true,
  },
  epoch: {
    flag: '--epoch',
    kind: 'string',
    check: CHECKS.epoch,
    api: 'epoch',
    value: '<date|ms>',
    default: '2024-01-01T00:00:00Z',
    description: 'What Date reads at time 0: an ISO date (2024-01-01, 2024-01-01T12:00:00Z) or ms since 1970 (default 2024-01-01T00:00:00Z)',
    doc: 'docs/explanation/determinism.md',
    appliesTo: LOCAL_AND_SDK,
    docker: true,
  },
  loadTimeout: {
    flag: '--load-timeout',
    kind: 'string',
    check: CHECKS.seconds,
    value: '<s>',
    default: String(DEFAULT_TIMEOUTS.loadMs / 1000),
    description: `Seconds the page (in the cloud, each chunk's) may take to load and become ready, at most ${MAX_TIMEOUT_SECONDS} (default ${DEFAULT_TIMEOUTS.loadMs / 1000}); render() and the SDK config take timeouts.loadMs`,
    doc: RENDER_DOC,
    appliesTo: ['render', 'still', 'batch', 'cloudfn'],
    docker: true,
  },
  frameTimeout: {
    flag: '--frame-timeout',
    kind: 'string',
    check: CHECKS.seconds,
    value: '<s>',
    default: String(DEFAULT_TIMEOUTS.frameMs / 1000),
    description: `Seconds one frame may take to seek and draw before the render fails, at most ${MAX_TIMEOUT_SECONDS} (default ${DEFAULT_TIMEOUTS.frameMs / 1000}); render() and the SDK config take timeouts.frameMs`,
    doc: RENDER_DOC,
    appliesTo: ['render', 'still', 'batch', 'cloudfn'],
    docker: true,
  },
  strict: {
    flag: '--strict',
    kind: 'boolean',
    cliDefault: false,
    default: 'false',
    description: 'Run vidkit lint first and fail (exit 2) on its errors; text no font can draw fails the render (exit 2) instead of a warning',
    doc: RENDER_DOC,
    appliesTo: ['render', 'batch'],
    docker: true,
  },
  docker: {
    flag: '--docker',
    kind: 'boolean',
    cliDefault: false,
    default: 'false',
    description: "Render inside the vidkit render image (cloud/image; built from Debian's archive when the engine lacks it)",
    doc: RENDER_DOC,
    appliesTo: ['render'],
  },
  batch: {
    flag: '--batch',
    kind: 'string',
    value: '<file>',
    description:
      'Batch file: JSONL (one {"outputKey", "variables"} a line), a JSON array of those, or a CSV/TSV table whose header names the variables: one video per entry on browsers kept warm (docs/guide/batch.md)',
    doc: BATCH_DOC,
    appliesTo: ['batch', 'cloudfn-batch'],
  },
  estimate: {
    flag: '--estimate',
    kind: 'boolean',
    cliDefault: false,
    default: 'false',
    description:
      "With --batch: print the frames each line would draw and take from the segments shared between lines, and how its sound would be mixed; renders nothing (the first line's page is stepped through its frames once, none drawn)",
    doc: 'docs/reference/batch-estimate.md',
    // `cloudfn render --estimate` words it as one cloud render's usage and cost (docs/guide/cloud.md).
    appliesTo: ['batch', 'cloudfn'],
  },
  maxBatchBytes: {
    flag: '--max-batch-bytes',
    kind: 'string',
    check: CHECKS.limit,
    value: '<n>',
    default: `${DEFAULT_MAX_BATCH_BYTES} (1 GiB)`,
    description: `With --batch: bytes the batch file may have (default ${DEFAULT_MAX_BATCH_BYTES}, 1 GiB); a larger one is refused before any line is read`,
    doc: LIMITS_DOC,
    appliesTo: ['batch', 'cloudfn-batch'],
  },
  outputKey: {
    flag: '--output-key',
    kind: 'string',
    value: '<pattern>',
    description: "With a CSV/TSV --batch without an outputKey column: each row's output named from its cells, e.g. '{id}.mp4'",
    doc: BATCH_DOC,
    appliesTo: ['batch', 'cloudfn', 'cloudfn-batch'],
  },
  outputDir: {
    flag: '--output-dir',
    kind: 'string',
    cliDefault: 'out',
    value: '<dir>',
    default: 'out',
    description: 'With --batch: the folder outputKeys are relative to, and where the manifest is kept (default out)',
    doc: BATCH_DOC,
    appliesTo: ['batch'],
  },
  batchConcurrency: {
    flag: '--batch-concurrency',
    kind: 'string',
    check: CHECKS.workers,
    cliDefault: 'auto',
    value: '<n|auto>',
    default: 'auto',
    description: 'With --batch: videos rendered at once, each on its own browser: a number, or "auto" (one per core, limited by memory)',
    doc: BATCH_DOC,
    appliesTo: ['batch'],
  },
  failFast: {
    flag: '--fail-fast',
    kind: 'boolean',
    cliDefault: false,
    default: 'false',
    description: 'With --batch: stop at the first failed line',
    doc: BATCH_DOC,
    appliesTo: ['batch'],
  },
  force: {
    flag: '--force',
    kind: 'boolean',
    cliDefault: false,
    default: 'false',
    description: 'With --batch: render lines again that an earlier run completed',
    doc: BATCH_DOC,
    appliesTo: ['batch', 'cloudfn-batch'],
  },
  chunkSize: {
    flag: '--chunk-size',
    kind: 'string',
    check: CHECKS.positive,
    api: 'number',
    value: '<n>',
    default: String(DEFAULT_CHUNK_SIZE),
    description: `Frames per chunk (default ${DEFAULT_CHUNK_SIZE})`,
    doc: CLOUD_DOC,
    appliesTo: CLOUD,
  },
  maxParallelChunks: {
    flag: '--max-parallel-chunks',
    kind: 'string',
    check: CHECKS.positive,
    api: 'number',
    value: '<n>',
    default: String(DEFAULT_MAX_PARALLEL_CHUNKS),
    description: `Chunks rendered at once (default ${DEFAULT_MAX_PARALLEL_CHUNKS})`,
    doc: CLOUD_DOC,
    appliesTo: CLOUD,
  },
  targetChunkFrames: {
    flag: '--target-chunk-frames',
    kind: 'string',
    check: CHECKS.positive,
    api: 'number',
    value: '<n>',
    description: 'Ceiling on frames per chunk (ignored with --chunk-size)',
    doc: CLOUD_DOC,
    appliesTo: CLOUD,
  },
  siteId: {
    flag: '--site-id',
    kind: 'string',
    value: '<id>',
    description: 'A site uploaded before by `cloudfn sites create`: not uploaded again',
    doc: CLOUD_DOC,
    appliesTo: CLOUDFN,
  },
  wait: {
    flag: '--wait',
    kind: 'boolean',
    cliDefault: false,
    default: 'false',
    description: 'Stream progress until the output exists, then print its location',
    doc: CLOUD_DOC,
    appliesTo: CLOUDFN,
  },
  bucket: {
    flag: '--bucket',
    kind: 'string',
    value: '<name>',
    description: "Render bucket (default: VIDKIT_BUCKET, else the stack's RenderBucketName)",
    doc: CLOUD_DOC,
    appliesTo: CLOUDFN,
  },
  stateMachineArn: {
    flag: '--state-machine-arn',
    kind: 'string',
    value: '<arn>',
    description: "Render state machine ARN (default: VIDKIT_SFN_ARN, else the stack's RenderStateMachineArn)",
    doc: CLOUD_DOC,
    appliesTo: CLOUDFN,
  },
  stackName: {
    flag: '--stack-name',
    kind: 'string',
    value: '<name>',
    default: DEFAULT_STACK_NAME,
    description: `Deployed stack to read the bucket and state machine from when they are not given (default ${DEFAULT_STACK_NAME})`,
    doc: CLOUD_DOC,
    appliesTo: CLOUDFN,
  },
  webhook: {
    flag: '--webhook',
    kind: 'string',
    value: '<url>',
    description: 'URL the render function POSTs the outcome to, success or failure, signed',
    doc: CLOUD_DOC,
    appliesTo: CLOUDFN,
  },
  webhookSecret: {
    flag: '--webhook-secret',
    kind: 'string',
    value: '<key>',
    default: 'VIDKIT_WEBHOOK_SECRET',
    description: 'Key of the webhook signature, HMAC-SHA256 (default: VIDKIT_WEBHOOK_SECRET)',
    doc: CLOUD_DOC,
    appliesTo: CLOUDFN,
  },
  webhookAllowPrivate: {
    flag: '--webhook-allow-private',
    kind: 'boolean',
    cliDefault: false,
    default: 'false',
    description: 'Let the webhook URL be a loopback, private or link-local address',
    doc: CLOUD_DOC,
    appliesTo: CLOUDFN,
  },
  hostLargeVariables: {
    flag: '--host-large-variables',
    kind: 'boolean',
    cliDefault: false,
    default: 'false',
    description: 'Put the variables of a render whose execution input would exceed 256 KiB in the render bucket, and pass their key',
    doc: CLOUD_DOC,
    appliesTo: CLOUDFN,
  },
  direct: {
    flag: '--direct',
    kind: 'boolean',
    cliDefault: false,
    default: 'false',
    description: 'Run a render that plans to one chunk as one function invocation, without the state machine',
    doc: CLOUD_DOC,
    appliesTo: CLOUDFN,
  },
} as const satisfies Record<string, RenderOptionSpec>;

export type RenderOptionName = keyof typeof RENDER_OPTIONS;
type Registry = typeof RENDER_OPTIONS;

/**
 * The options a caller of render() (`render`) or the SDK's config (`sdk`) passes, typed from the
 * table: every option of that surface with an `api` type, each optional.
 */
export type ApiOptions<S extends Surface> = {
  -readonly [K in RenderOptionName as Registry[K] extends { api: keyof ApiValueTypes; appliesTo: readonly (infer A)[] }
    ? S extends A
      ? K
      : never
    : never]?: Registry[K] extends { api: infer T extends keyof ApiValueTypes } ? ApiValueTypes[T] : never;
};

/** The options of the table in declaration order, with their names. */
export function renderOptionEntries(): [RenderOptionName, RenderOptionSpec][] {
  return Object.entries(RENDER_OPTIONS) as [RenderOptionName, RenderOptionSpec][];
}

/** The flag of `name`, for messages and argv that name it. */
export function flagOf(name: RenderOptionName): string {
  return RENDER_OPTIONS[name].flag;
}

/** The two flags that carry variable overrides, as {@link parseOverrides} names them in messages. */
export const OVERRIDE_FLAGS = { json: RENDER_OPTIONS.variables.flag, file: RENDER_OPTIONS.variablesFile.flag };
