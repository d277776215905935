// The glyph check's script (glyph-check.ts): page-bundle.ts bundles it with the system faces the
// renderer's browser reaches (src/fonts/fontconfig.ts) written in as VIDKIT_SYSTEM_FACES.
import { installGlyphCheck } from './glyph-check';

declare const VIDKIT_SYSTEM_FACES: string[];

installGlyphCheck(VIDKIT_SYSTEM_FACES);
