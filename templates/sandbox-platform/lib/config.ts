import path from 'node:path';

/**
 * The composition the preview shows and `/api/render` renders, relative to public/.
 * Swap it by copying a project into public/compositions/<name>/ and changing this constant
 * (or setting PREVIEW_COMPOSITION_DIR at build time).
 */
export const PREVIEW_COMPOSITION_DIR = process.env.PREVIEW_COMPOSITION_DIR ?? 'compositions/ui-3d-reveal';

/** The composition's project directory on disk. */
export function compositionProjectDir(): string {
  return path.join(process.cwd(), 'public', PREVIEW_COMPOSITION_DIR);
}

/**
 * `VIDKIT_ADAPTERS=local` runs without a platform account: renders in a local `vidkit` process
 * instead of a sandbox, and stores MP4s in a directory instead of the blob store.
 */
export const useLocalAdapters = process.env.VIDKIT_ADAPTERS === 'local';
