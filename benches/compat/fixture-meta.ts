// HyperFrames' producer regression fixtures (packages/producer/tests of a checkout of
// heygen-com/hyperframes): where they are, what each one's meta.json asks, and how that maps to
// both tools' render flags.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** What a fixture's meta.json asks of a render and of the comparison, validated. */
export interface FixtureMeta {
  /** A frame fails below this PSNR, dB. */
  minPsnr: number;
  /** The most frames that may fail. */
  maxFrameFailures: number;
  /** The envelope correlation the soundtracks must reach, with the lag searched; absent when the meta asks for none. */
  audio?: { minCorrelation: number; maxLagWindows: number };
  /** Frames per second, as a rational. */
  fps: { num: number; den: number };
  format: 'mp4' | 'webm' | 'mov' | 'png-sequence';
  workers?: number;
  hdr: boolean;
  variables?: Record<string, unknown>;
  /** The peer's experimental drawElementImage capture. */
  experimentalFastCapture: boolean;
  captureMode?: 'screenshot' | 'beginframe';
  /** Settings of the meta that change nothing here, each with why. */
  ignored: string[];
}

export interface Fixture {
  /** The fixture's folder name (a `distributed/<name>` fixture is `<name>`, as the peer's harness names it). */
  id: string;
  dir: string;
  tags: string[];
  /** Its meta, or why it is not valid. */
  meta: FixtureMeta | { invalid: string };
  /** Bytes of its golden output as stored (a Git LFS pointer names the real size): the order a run takes, smallest first. */
  size: number;
}

/** Every fixture under `<checkout>/packages/producer/tests`: a folder with meta.json and src/index.html, `distributed/*` included. */
export function discoverFixtures(checkout: string): Fixture[] {
  const tests = path.join(checkout, 'packages', 'producer', 'tests');
  if (!fs.existsSync(tests)) throw new Error(`--hyperframes: no packages/producer/tests in ${checkout}: give a checkout of heygen-com/hyperframes`);
  const fixtures: Fixture[] = [];
  const consider = (id: string, dir: string) => {
    if (!fs.existsSync(path.join(dir, 'meta.json')) || !fs.existsSync(path.join(dir, 'src', 'index.html'))) return;
    let raw: unknown;
    let meta: Fixture['meta'];
    try {
      raw = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
      meta = validateMeta(raw);
    } catch (err) {
      meta = { invalid: err instanceof Error ? err.message : String(err) };
    }
    const tags = Array.isArray((raw as { tags?: unknown })?.tags) ? ((raw as { tags: unknown[] }).tags.filter((t) => typeof t === 'string') as string[]) : [];
    fixtures.push({ id, dir, tags, meta, size: goldenSize(dir) });
  };
  for (const entry of fs.readdirSync(tests).sort()) {
    const dir = path.join(tests, entry);
    if (!fs.statSync(dir).isDirectory()) continue;
    if (entry === 'distributed') {
      for (const sub of fs.readdirSync(dir).sort()) if (fs.statSync(path.join(dir, sub)).isDirectory()) consider(sub, path.join(dir, sub));
    } else {
      consider(entry, dir);
    }
  }
  const ids = new Set<string>();
  for (const f of fixtures) {
    if (ids.has(f.id)) throw new Error(`--hyperframes: two fixtures named ${f.id}`);
    ids.add(f.id);
  }
  return fixtures.sort((a, b) => a.size - b.size || a.id.localeCompare(b.id));
}

const LFS_SIZE = /^size (\d+)$/m;

/** The golden output's size: the file's own, or the one its Git LFS pointer names; else the size of src/. */
function goldenSize(dir: string): number {
  const output = path.join(dir, 'output');
  const golden = fs.existsSync(output) ? fs.readdirSync(output).find((f) => /^output\.(mp4|webm|mov)$/.test(f)) : undefined;
  if (golden) {
    const file = path.join(output, golden);
    const head = fs.readFileSync(file).subarray(0, 200).toString('latin1');
    const lfs = LFS_SIZE.exec(head);
    return lfs ? Number(lfs[1]) : fs.statSync(file).size;
  }
  return fs.readdirSync(path.join(dir, 'src'), { recursive: true, encoding: 'utf8' }).reduce((sum, f) => sum + fs.statSync(path.join(dir, 'src', f)).size, 0);
}

const FORMATS = ['mp4', 'webm', 'mov', 'png-sequence'] as const;
const CAPTURE_MODES = ['screenshot', 'beginframe'] as const;

/**
 * A meta.json read with the rules of the peer's own harness for the fields that gate the picture
 * (minPsnr, maxFrameFailures, renderConfig.fps as an integer or a rational string, format, workers,
 * hdr, variables, captureMode). The audio gate applies when minAudioCorrelation is above 0 and
 * maxAudioLagWindows at least 1; a meta without them, or with a lag of 0 (which the peer's harness
 * refuses, though its fixtures carry it), asks for no audio comparison.
 */
export function validateMeta(raw: unknown): FixtureMeta {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('meta.json is not a JSON object');
  const m = raw as Record<string, unknown>;
  const nonNegative = (key: string): number => {
    const value = m[key];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new Error(`meta.json: ${key} must be a number of at least 0 (got ${JSON.stringify(value)})`);
    return value;
  };
  const minPsnr = nonNegative('minPsnr');
  const maxFrameFailures = nonNegative('maxFrameFailures');
  if (!Number.isInteger(maxFrameFailures)) throw new Error(`meta.json: maxFrameFailures must be a whole number (got ${maxFrameFailures})`);
  const rc = m.renderConfig;
  if (typeof rc !== 'object' || rc === null || Array.isArray(rc)) throw new Error('meta.json: renderConfig must be an object');
  const config = rc as Record<string, unknown>;
  const ignored: string[] = [];

  const fps = parseFps(config.fps);
  const format = config.format ?? 'mp4';
  if (!FORMATS.includes(format as (typeof FORMATS)[number])) throw new Error(`meta.json: renderConfig.format must be one of ${FORMATS.join(', ')} (got ${JSON.stringify(format)})`);
  const workers = config.workers;
  if (workers !== undefined && (typeof workers !== 'number' || !Number.isInteger(workers) || workers < 1)) throw new Error(`meta.json: renderConfig.workers must be a whole number of at least 1 (got ${JSON.stringify(workers)})`);
  const hdr = config.hdr ?? false;
  if (typeof hdr !== 'boolean') throw new Error(`meta.json: renderConfig.hdr must be true or false (got ${JSON.stringify(hdr)})`);
  const variables = config.variables;
  if (variables !== undefined && (typeof variables !== 'object' || variables === null || Array.isArray(variables))) throw new Error('meta.json: renderConfig.variables must be a JSON object');
  const fast = config.experimentalFastCapture ?? false;
  if (typeof fast !== 'boolean') throw new Error(`meta.json: renderConfig.experimentalFastCapture must be true or false (got ${JSON.stringify(fast)})`);
  const captureMode = config.captureMode;
  if (captureMode !== undefined && !CAPTURE_MODES.includes(captureMode as (typeof CAPTURE_MODES)[number])) throw new Error(`meta.json: renderConfig.captureMode must be screenshot or beginframe (got ${JSON.stringify(captureMode)})`);
  const codec = config.codec;
  if (codec !== undefined) {
    if (codec !== 'h264' && codec !== 'h265') throw new Error(`meta.json: renderConfig.codec must be h264 or h265 (got ${JSON.stringify(codec)})`);
    if (format !== 'mp4') throw new Error('meta.json: renderConfig.codec is only for format mp4');
    // The peer's in-process render, which its harness and CLI use, always encodes H.264.
    if (codec === 'h265') ignored.push('codec h265 (the peer uses it in distributed renders only)');
  }
  for (const key of ['chunkSize', 'maxParallelChunks']) {
    const value = config[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new Error(`meta.json: renderConfig.${key} must be a whole number of at least 1`);
    ignored.push(`${key} (distributed renders only)`);
  }
  const known = new Set(['fps', 'format', 'workers', 'hdr', 'variables', 'experimentalFastCapture', 'captureMode', 'codec', 'chunkSize', 'maxParallelChunks']);
  for (const key of Object.keys(config)) if (!known.has(key)) ignored.push(`${key} (unknown)`);

  const correlation = m.minAudioCorrelation;
  const lag = m.maxAudioLagWindows;
  if (correlation !== undefined && (typeof correlation !== 'number' || correlation < 0 || correlation > 1)) throw new Error('meta.json: minAudioCorrelation must be between 0 and 1');
  if (lag !== undefined && (typeof lag !== 'number' || !Number.isInteger(lag) || lag < 0)) throw new Error('meta.json: maxAudioLagWindows must be a whole number');
  const audio = typeof correlation === 'number' && correlation > 0 && typeof lag === 'number' && lag >= 1 ? { minCorrelation: correlation, maxLagWindows: lag } : undefined;
  if (m.maxAudioResidualRmsDb !== undefined) ignored.push('maxAudioResidualRmsDb (not checked)');

  return {
    minPsnr,
    maxFrameFailures,
    audio,
    fps,
    format: format as FixtureMeta['format'],
    workers: workers as number | undefined,
    hdr,
    variables: variables as Record<string, unknown> | undefined,
    experimentalFastCapture: fast,
    captureMode: captureMode as FixtureMeta['captureMode'],
    ignored,
  };
}

/** An integer (30) or a rational string ("30000/1001"), above 0. */
function parseFps(value: unknown): { num: number; den: number } {
  const bad = () => new Error(`meta.json: renderConfig.fps must be a whole number or a rational string like "30000/1001" (got ${JSON.stringify(value)})`);
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value <= 0) throw bad();
    return { num: value, den: 1 };
  }
  if (typeof value !== 'string') throw bad();
  const match = /^\s*(\d+)\s*(?:\/\s*(\d+)\s*)?$/.exec(value);
  if (!match) throw bad();
  const num = Number(match[1]);
  const den = match[2] === undefined ? 1 : Number(match[2]);
  if (num <= 0 || den <= 0) throw bad();
  return { num, den };
}

/**
 * Why a fixture cannot be rendered by both tools here, or undefined when it can. HDR output needs
 * HDR sources: the fixtures' are Git LFS objects, absent from a checkout, and an SDR stand-in would
 * leave nothing HDR to compare.
 */
export function notRunnable(meta: FixtureMeta): string | undefined {
  if (meta.hdr) return 'hdr: its HDR sources are Git LFS objects, absent from a checkout; an SDR stand-in leaves nothing HDR to compare';
  return undefined;
}

/** The flags both tools take for the fixture's settings, and the environment the peer reads its capture mode from. */
export function renderFlags(meta: FixtureMeta): { peer: string[]; vidkit: string[]; peerEnv: NodeJS.ProcessEnv } {
  const fps = meta.fps.den === 1 ? String(meta.fps.num) : `${meta.fps.num}/${meta.fps.den}`;
  // vidkit takes a decimal rate; the peer, the rational as written.
  const vidkitFps = meta.fps.den === 1 ? fps : String(meta.fps.num / meta.fps.den);
  // Both at their highest quality, as the peer's harness renders its fixtures.
  const peer = ['--fps', fps, '--quality', 'high', '--format', meta.format];
  const vidkit = ['--fps', vidkitFps, '--quality', 'high', '--format', meta.format];
  if (meta.workers !== undefined) {
    peer.push('--workers', String(meta.workers));
    vidkit.push('--workers', String(meta.workers));
  }
  if (meta.variables) {
    peer.push('--variables', JSON.stringify(meta.variables));
    vidkit.push('--variables', JSON.stringify(meta.variables));
  }
  if (meta.experimentalFastCapture) peer.push('--experimental-fast-capture');
  const peerEnv: NodeJS.ProcessEnv = {};
  if (meta.captureMode) {
    peerEnv.PRODUCER_FORCE_SCREENSHOT = meta.captureMode === 'screenshot' ? 'true' : 'false';
    vidkit.push('--capture', meta.captureMode);
  }
  return { peer, vidkit, peerEnv };
}
