import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { VidkitError, errorMessage } from '../../errors';
import { EgressPolicy } from './egress-policy';
import { download } from './remote-fetch';
import { DEFAULT_MAX_ASSET_BYTES } from '../../values/constants';

/** A 1×1 transparent PNG: what a failed image becomes with `--allow-missing-media`. */
export const TRANSPARENT_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * A tenth of a second of silence, 8 kHz mono 16-bit WAV: what a media element gets for a failed
 * URL with `--allow-missing-media`, which it loads and plays as nothing (an image would be an error).
 */
export const SILENT_WAV = silentWav(800);
/** {@link SILENT_WAV}'s name among the copies, which cannot be a copy's (a hash and an extension). */
const SILENT_MEDIA = 'missing-media.wav';

function silentWav(samples: number): Buffer {
  const wav = Buffer.alloc(44 + 2 * samples);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36 + 2 * samples, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(16_000, 28); // bytes a second
  wav.writeUInt16LE(2, 32); // bytes a sample
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36);
  wav.writeUInt32LE(2 * samples, 40);
  return wav;
}


/**
 * The response headers that say who may read a remote asset. The project server passes on those
 * the origin sent with it and adds none, so a page reads a copy only where it could read the original.
 */
const CORS_HEADERS = ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-expose-headers', 'timing-allow-origin'];

export interface RemoteAssetsOptions {
  /** Where fetched files are kept for the render. */
  dir: string;
  /** A failed fetch becomes a warning and a transparent placeholder instead of an error. */
  allowMissing: boolean;
  /** What the page may reach, its downloads included; by default public addresses only. */
  policy?: EgressPolicy;
  /** Bytes one asset may have; default {@link DEFAULT_MAX_ASSET_BYTES}. */
  maxBytes?: number;
  /** The page's origin, sent as `Origin` with each fetch (see remote-fetch.ts). */
  origin?: string;
  onWarning?: (message: string) => void;
  /** Milliseconds one fetch may take. */
  timeoutMs?: number;
}

/**
 * Media referenced by URL (docs/reference/formats.md), fetched once per render however many
 * workers ask: every browser's request for it is answered from the same local copy, and the audio
 * mixer reads it too. What may be fetched is docs/explanation/security-model.md.
 */
export class RemoteAssets {
  private readonly files = new Map<string, Promise<string>>();
  private readonly missing = new Set<string>();
  /** Names that differ from the one the URL gives (see {@link fetchOnce}). */
  private readonly names = new Map<string, string>();

  /** The policy every download for the page follows, as the browser's own connections do. */
  readonly policy: EgressPolicy;

  constructor(private readonly opts: RemoteAssetsOptions) {
    fs.mkdirSync(opts.dir, { recursive: true });
    this.policy = opts.policy ?? new EgressPolicy();
  }

  /** The local file holding `url` (fetched on first use). Throws a VidkitError naming the URL. */
  file(url: string): Promise<string> {
    let file = this.files.get(url);
    if (!file) {
      file = this.fetchOnce(url);
      this.files.set(url, file);
    }
    return file;
  }

  /** Whether `url` failed and was replaced by the placeholder. */
  isMissing(url: string): boolean {
    return this.missing.has(url);
  }

  /** The name under `dir` of {@link SILENT_WAV}, the placeholder of a failed media URL (written on first use). */
  silentMedia(): string {
    const file = path.join(this.opts.dir, SILENT_MEDIA);
    if (!fs.existsSync(file)) {
      fs.writeFileSync(file, SILENT_WAV);
      fs.writeFileSync(corsFile(file), JSON.stringify({ 'access-control-allow-origin': '*' }));
    }
    return SILENT_MEDIA;
  }

  /** The file name under `dir` that `file(url)` resolves to (once it has). */
  nameOf(url: string): string {
    return this.names.get(url) ?? this.nameFromUrl(url);
  }

  private nameFromUrl(url: string): string {
    const extension = path.extname(new URL(url).pathname).slice(0, 8);
    return createHash('sha256').update(url).digest('hex').slice(0, 32) + extension;
  }

  /** Serves the file `name` beside the copies, made from the copy of `url` (an audio proxy), with the CORS headers `url` came with. */
  shareCors(url: string, name: string): void {
    const from = corsFile(path.join(this.opts.dir, this.nameOf(url)));
    if (fs.existsSync(from)) fs.copyFileSync(from, corsFile(path.join(this.opts.dir, name)));
  }

  private async fetchOnce(url: string): Promise<string> {
    let target = path.join(this.opts.dir, this.nameFromUrl(url));
    try {
      const headers = await download(url, target, {
        refuseAddress: this.policy.refuseAddress,
        maxBytes: this.opts.maxBytes ?? DEFAULT_MAX_ASSET_BYTES,
        timeoutMs: this.opts.timeoutMs ?? 60_000,
        origin: this.opts.origin,
      });
      const cors = Object.fromEntries(CORS_HEADERS.filter((name) => headers[name] !== undefined).map((name) => [name, String(headers[name])]));
      // A stylesheet at a URL without an extension (Google Fonts' css2?family=…) is kept as .css:
      // the project server serves it by its name, and Chromium applies only a text/css stylesheet.
      if (path.extname(target) === '' && /^text\/css\b/i.test(String(headers['content-type'] ?? ''))) {
        fs.renameSync(target, `${target}.css`);
        target = `${target}.css`;
        this.names.set(url, path.basename(target));
      }
      fs.writeFileSync(corsFile(target), JSON.stringify(cors));
    } catch (err) {
      const message = `media ${url} could not be fetched: ${errorMessage(err)}`;
      if (!this.opts.allowMissing) throw new VidkitError(message);
      this.opts.onWarning?.(`${message}; using a transparent placeholder (--allow-missing-media)`);
      fs.writeFileSync(target, TRANSPARENT_PNG);
      // vidkit's own placeholder hides nothing from the page.
      fs.writeFileSync(corsFile(target), JSON.stringify({ 'access-control-allow-origin': '*' }));
      this.missing.add(url);
    }
    return target;
  }
}

/** Where the CORS headers of a file in a RemoteAssets dir are kept: a dotfile beside it, which the project server never serves. */
function corsFile(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.cors.json`);
}

/** The CORS headers to serve `file` of a RemoteAssets dir with: those its origin sent, none for any other file. */
export function storedCorsHeaders(file: string): Record<string, string> {
  const stored = corsFile(file);
  return fs.existsSync(stored) ? (JSON.parse(fs.readFileSync(stored, 'utf8')) as Record<string, string>) : {};
}
