import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { VidkitError, errorMessage } from '../errors';

/** A 1×1 transparent PNG: what a failed image becomes with `--allow-missing-media`. */
export const TRANSPARENT_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

export interface RemoteAssetsOptions {
  /** Where fetched files are kept for the render. */
  dir: string;
  /** A failed fetch becomes a warning and a transparent placeholder instead of an error. */
  allowMissing: boolean;
  onWarning?: (message: string) => void;
  /** Milliseconds one fetch may take. */
  timeoutMs?: number;
}

/**
 * Media referenced by URL (SPEC 2.1), fetched once per render however many workers ask: every
 * browser's request for it is answered from the same local copy, and the audio mixer reads it too.
 */
export class RemoteAssets {
  private readonly files = new Map<string, Promise<string>>();
  private readonly missing = new Set<string>();

  constructor(private readonly opts: RemoteAssetsOptions) {
    fs.mkdirSync(opts.dir, { recursive: true });
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

  /** The file name under `dir` that `file(url)` resolves to. */
  nameOf(url: string): string {
    const extension = path.extname(new URL(url).pathname).slice(0, 8);
    return createHash('sha256').update(url).digest('hex').slice(0, 32) + extension;
  }

  private async fetchOnce(url: string): Promise<string> {
    const target = path.join(this.opts.dir, this.nameOf(url));
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(this.opts.timeoutMs ?? 60_000) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const partial = `${target}.partial`;
      fs.writeFileSync(partial, Buffer.from(await response.arrayBuffer()));
      fs.renameSync(partial, target);
    } catch (err) {
      const reason = err instanceof Error && err.cause instanceof Error ? err.cause.message : errorMessage(err);
      const message = `media ${url} could not be fetched: ${reason}`;
      if (!this.opts.allowMissing) throw new VidkitError(message);
      this.opts.onWarning?.(`${message}; using a transparent placeholder (--allow-missing-media)`);
      fs.writeFileSync(target, TRANSPARENT_PNG);
      this.missing.add(url);
    }
    return target;
  }
}
