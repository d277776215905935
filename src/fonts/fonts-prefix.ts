/** Where the project server serves the bundled fonts (docs/explanation/fonts.md); no imports, as the player bundles it. */
export const FONTS_PREFIX = '/__vidkit-fonts/';
