// Loader for vidkit's native addon (crates/vidkit-napi).
//
// The addon comes either from the per-platform npm package (@vidkit/native-<platform>, the
// napi-rs layout under npm/), resolved from the installed vidkit, or from a local
// `npm run build:native` into <packageRoot>/native/.
// Its types are native-addon.d.ts, which `npm run build:native` generates from the #[napi] items
// and which is committed, so the TypeScript compiles without a Rust toolchain; the test suite
// fails when the committed file differs from a fresh build's. Its errors carry a stable `code`
// (`VIDKIT_DISK_FULL`, ...; read it with errorCode from ./errors).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { ExitCode, VidkitError, errorMessage } from './errors';
import { NATIVE_PACKAGES, PACKAGE_ROOT, VERSION } from './package-info';

/** The addon's exports, as `napi build` declares them from the #[napi] items. */
export type NativeBinding = typeof import('./native-addon');

export type { EncodedSoundtrack, PackedBatchParse, SoundtrackOptions, VideoFrameInfo, VideoFrames } from './native-addon';

/** Output formats of the encoder and concat; see src/values/formats.ts. */
export type NativeOutputFormat = NonNullable<import('./native-addon').NativeEncoderOptions['format']>;

/** The napi-rs platform suffixes an addon can be built for, keyed by `${process.platform}-${process.arch}`. */
const PLATFORM_SUFFIXES: Readonly<Record<string, string>> = {
  'linux-x64': 'linux-x64-gnu',
  'linux-arm64': 'linux-arm64-gnu',
};

let cached: NativeBinding | undefined;

/** Loads the addon once: the platform package first, then a local build in <packageRoot>/native/. */
export function loadNative(): NativeBinding {
  cached ??= loadUncached();
  return cached;
}

/** The addon package for this platform (`@vidkit/native-linux-x64-gnu`), or undefined where none is built. */
export function nativePackage(): string | undefined {
  const suffix = PLATFORM_SUFFIXES[`${process.platform}-${process.arch}`];
  return suffix === undefined ? undefined : `@vidkit/native-${suffix}`;
}

function loadUncached(): NativeBinding {
  const pkg = nativePackage();
  if (pkg === undefined) {
    const published = Object.keys(NATIVE_PACKAGES).map((name) => name.replace('@vidkit/native-', ''));
    throw new VidkitError(
      `vidkit's native addon is not available for ${process.platform}-${process.arch}: prebuilt packages exist for ${published.join(' and ')}`,
      { exitCode: ExitCode.MissingDependency },
    );
  }
  const suffix = pkg.replace('@vidkit/native-', '');
  return loadFirst([pkg, path.join(PACKAGE_ROOT, 'native', `vidkit.${suffix}.node`)], missingAddonHint(pkg));
}

/**
 * What to do when no candidate loads: install the platform package at this version, and in a
 * source checkout (crates/ present; an installed vidkit has none) build the addon.
 */
export function missingAddonHint(pkg: string, root = PACKAGE_ROOT, packages: Readonly<Record<string, string>> = NATIVE_PACKAGES): string {
  const version = packages[pkg];
  const install =
    version === undefined
      ? `No ${pkg} is published for vidkit ${VERSION}.`
      : `Install it: \`npm install ${pkg}@${version}\` (an optional dependency of vidkit, left out by --omit=optional).`;
  const build = fs.existsSync(path.join(root, 'crates', 'vidkit-napi'))
    ? ' In this source checkout, `npm run build:native` builds it instead.'
    : '';
  return install + build;
}

/** The first candidate (package name or file) that loads, or one error naming each, why, and `hint`. */
export function loadFirst(candidates: string[], hint: string): NativeBinding {
  const failures: string[] = [];
  for (const candidate of candidates) {
    try {
      return require(candidate) as NativeBinding;
    } catch (error) {
      // Keep the reason: "not installed" and "installed but cannot load here" need different fixes.
      const reason = (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' ? 'not found' : errorMessage(error).split('\n')[0];
      failures.push(`${candidate}: ${reason}`);
    }
  }
  throw new VidkitError(`vidkit's native addon could not be loaded (tried ${failures.join('; ')}). ${hint}`, {
    exitCode: ExitCode.MissingDependency,
  });
}
