import { badInput } from '../errors';

/**
 * `--resolution` presets, named as HyperFrames names them: an output size the composition is drawn
 * at (by device scale factor, never stretched). The aliases without an orientation (1080p, hd,
 * 4k, uhd, 720p, 480p) follow the composition's orientation: `720p` on a portrait composition is
 * portrait-720p.
 */
const PRESETS: Record<string, { width: number; height: number }> = {
  landscape: { width: 1920, height: 1080 },
  portrait: { width: 1080, height: 1920 },
  square: { width: 1080, height: 1080 },
  'landscape-4k': { width: 3840, height: 2160 },
  'portrait-4k': { width: 2160, height: 3840 },
  'square-4k': { width: 2160, height: 2160 },
  'landscape-720p': { width: 1280, height: 720 },
  'portrait-720p': { width: 720, height: 1280 },
  'square-720p': { width: 720, height: 720 },
  // 480 tall at 16:9 is 853.3 wide: 854 keeps both sides even.
  'landscape-480p': { width: 854, height: 480 },
  'portrait-480p': { width: 480, height: 854 },
  'square-480p': { width: 480, height: 480 },
};

const ALIASES: Record<string, string> = {
  '1080p': 'landscape',
  hd: 'landscape',
  '1080p-portrait': 'portrait',
  'portrait-1080p': 'portrait',
  '1080p-square': 'square',
  'square-1080p': 'square',
  '4k': 'landscape-4k',
  uhd: 'landscape-4k',
  '4k-portrait': 'portrait-4k',
  '4k-square': 'square-4k',
  '720p': 'landscape-720p',
  '720p-portrait': 'portrait-720p',
  '720p-square': 'square-720p',
  '480p': 'landscape-480p',
  '480p-portrait': 'portrait-480p',
  '480p-square': 'square-480p',
};

const ORIENTATION_FREE = new Set(['1080p', 'hd', '4k', 'uhd', '720p', '480p']);

export const RESOLUTION_NAMES = [...Object.keys(PRESETS), ...Object.keys(ALIASES)];

/** The presets' tier: '' (1080), '-4k', '-720p' or '-480p'. */
const tierOf = (preset: string) => (preset.includes('-') ? preset.slice(preset.indexOf('-')) : '');

/** A preset fits a composition whose aspect ratio it keeps to within a pixel of rounding. */
function fits(target: { width: number; height: number }, comp: { width: number; height: number }): boolean {
  const drift = Math.abs(target.width * comp.height - target.height * comp.width);
  return drift === 0 || (target.width < comp.width && drift < Math.min(comp.width, comp.height));
}

/** The preset of `chosen`'s tier that fits the composition, if one does. */
function matchingPreset(comp: { width: number; height: number }, chosen: string): string | undefined {
  return Object.keys(PRESETS).find((p) => fits(PRESETS[p], comp) && tierOf(p) === tierOf(chosen));
}

/**
 * The output size of `--resolution <name>` for a composition of `comp`'s size: the preset's
 * size, the composition drawn at the scale that fills it. Bad input names the option and what
 * would fit; `option` is what it calls the setting.
 */
export function resolutionSize(name: string, comp: { width: number; height: number }, option: string): { width: number; height: number } {
  const lowered = name.toLowerCase();
  let preset = lowered in PRESETS ? lowered : ALIASES[lowered];
  if (preset === undefined) {
    throw badInput(`${option} must be one of ${RESOLUTION_NAMES.join(', ')}, got "${name}"`);
  }
  if (ORIENTATION_FREE.has(lowered)) preset = matchingPreset(comp, preset) ?? preset;
  const target = PRESETS[preset];
  if (!fits(target, comp)) {
    const suggestion = matchingPreset(comp, preset);
    throw badInput(
      `${option} ${name} (${target.width}x${target.height}) does not keep the composition's ${comp.width}x${comp.height} aspect ratio: ` +
        (suggestion ? `use ${option} ${suggestion}` : 'use --width or --height instead'),
    );
  }
  const scale = Math.max(target.width / comp.width, target.height / comp.height);
  return { width: Math.round(comp.width * scale), height: Math.round(comp.height * scale) };
}
