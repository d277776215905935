// HyperFrames' families as data alone, with no Node import: the page runtime bundles it too
// (src/runtime/page/fonts.ts), to tell the names those faces answer to.

/** One family of static faces from an `@fontsource` package (SIL Open Font License 1.1), a devDependency of vidkit. */
export interface StaticFamily {
  family: string;
  pkg: string;
  /** The weights served; every one in each unicode subset the package has (numbered CJK slices aside). */
  weights: number[];
  /** Whether its italic faces are served too. */
  italic?: true;
  /** Other names (lower case) drawn with this family. */
  aliases: string[];
}

/**
 * HyperFrames' deterministic faces: the families it renders with, the same files (the static
 * `@fontsource` faces, byte for byte), the same weights and only upright styles, and the system
 * names it maps to each. A weight in between (Montserrat 500) is drawn by the nearest face the
 * browser picks among these (400), as in HyperFrames: advance widths, and so line breaks, match.
 * Served in every unicode subset of those weights, so accented and Cyrillic text keeps the face.
 */
export const PEER_FAMILIES: readonly StaticFamily[] = [
  {
    family: 'Inter',
    pkg: '@fontsource/inter',
    weights: [400, 700, 900],
    aliases: [
      'helvetica neue', 'helvetica', 'arial', 'helvetica bold', 'sf pro', 'sf pro display', 'sf pro text', 'sf pro rounded', 'avenir',
      'avenir next', 'lucida grande', 'geneva', 'optima', 'verdana', 'tahoma', 'trebuchet ms', 'calibri', 'candara', 'corbel',
      'lucida sans', 'lucida sans unicode', 'noto sans', 'dejavu sans', 'liberation sans',
    ],
  },
  { family: 'Montserrat', pkg: '@fontsource/montserrat', weights: [400, 700, 900], aliases: ['futura', 'din alternate', 'arial black'] },
  { family: 'Outfit', pkg: '@fontsource/outfit', weights: [400, 700, 900], aliases: [] },
  { family: 'Nunito', pkg: '@fontsource/nunito', weights: [400, 700, 900], aliases: [] },
  { family: 'Oswald', pkg: '@fontsource/oswald', weights: [400, 700], aliases: [] },
  { family: 'League Gothic', pkg: '@fontsource/league-gothic', weights: [400], aliases: ['bebas neue'] },
  { family: 'Archivo Black', pkg: '@fontsource/archivo-black', weights: [400], aliases: [] },
  { family: 'Space Mono', pkg: '@fontsource/space-mono', weights: [400, 700], aliases: [] },
  { family: 'IBM Plex Mono', pkg: '@fontsource/ibm-plex-mono', weights: [400, 700], aliases: [] },
  {
    family: 'JetBrains Mono',
    pkg: '@fontsource/jetbrains-mono',
    weights: [400, 700],
    aliases: [
      'courier new', 'courier', 'sf mono', 'menlo', 'monaco', 'consolas', 'lucida console', 'lucida sans typewriter', 'andale mono',
      'dejavu sans mono', 'liberation mono',
    ],
  },
  {
    family: 'EB Garamond',
    pkg: '@fontsource/eb-garamond',
    weights: [400, 700],
    aliases: [
      'garamond', 'georgia', 'palatino', 'palatino linotype', 'book antiqua', 'cambria', 'times', 'times new roman', 'dejavu serif',
      'liberation serif',
    ],
  },
  { family: 'Playfair Display', pkg: '@fontsource/playfair-display', weights: [400, 700, 900], aliases: [] },
  { family: 'Source Code Pro', pkg: '@fontsource/source-code-pro', weights: [400, 700], aliases: [] },
  { family: 'Noto Sans JP', pkg: '@fontsource/noto-sans-jp', weights: [400, 700], aliases: ['noto sans japanese'] },
  { family: 'Roboto', pkg: '@fontsource/roboto', weights: [400, 700, 900], aliases: ['segoe ui'] },
  { family: 'Open Sans', pkg: '@fontsource/open-sans', weights: [400, 700], aliases: [] },
  { family: 'Lato', pkg: '@fontsource/lato', weights: [400, 700, 900], aliases: [] },
  { family: 'Poppins', pkg: '@fontsource/poppins', weights: [400, 700, 900], aliases: [] },
];
