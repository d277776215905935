import * as fs from 'node:fs';
import * as path from 'node:path';
import { projectHtml, stageComposition, stageMedia } from '../lib/stage';
import { PRODUCTION_SPECS, productionMedia, writeProductionProject } from './production';

/**
 * Files a composition may reference by name, copied in when its index.html names them: the
 * animation libraries from the root's and the suite's own npm dependencies (benches/compat/
 * package.json), so no copy of a library is kept in the repository.
 */
const LIBRARIES: Record<string, string[]> = {
  'gsap.min.js': ['node_modules/gsap/dist/gsap.min.js'],
  // @hyperframes/shader-transitions' script build (global HyperShader), a devDependency of the root.
  'index.global.js': ['node_modules/@hyperframes/shader-transitions/dist/index.global.js'],
  'anime.umd.min.js': ['benches/compat/node_modules/animejs/dist/bundles/anime.umd.min.js'],
  'lottie.min.js': ['benches/compat/node_modules/lottie-web/build/player/lottie.min.js'],
  // The module imports its core from the same folder.
  'three.module.js': ['benches/compat/node_modules/three/build/three.module.js', 'benches/compat/node_modules/three/build/three.core.js'],
  // Web fonts from the root's @fontsource devDependencies: a static face and two variation axes.
  'oswald-latin-400-normal.woff2': ['node_modules/@fontsource/oswald/files/oswald-latin-400-normal.woff2'],
  'open-sans-latin-wdth-normal.woff2': ['node_modules/@fontsource-variable/open-sans/files/open-sans-latin-wdth-normal.woff2'],
  'montserrat-latin-wght-normal.woff2': ['node_modules/@fontsource-variable/montserrat/files/montserrat-latin-wght-normal.woff2'],
};

/**
 * Media made when a composition names them, with ffmpeg's own test sources, so every run has the
 * same bytes without keeping binaries in the repository: a 4 s 320x180 video whose picture changes
 * every frame (test pattern, rotating hue) and a 4 s 440 Hz tone rising linearly from silence, so
 * that where in the source a clip starts shows in its level.
 */
const MEDIA: Record<string, string[]> = {
  'clip.mp4': ['-f', 'lavfi', '-i', 'testsrc2=s=320x180:r=30:d=4,hue=H=2*PI*t/4', '-c:v', 'libx264', '-crf', '12', '-g', '15', '-pix_fmt', 'yuv420p', '-an'],
  // A still picture (the test pattern's first frame) for <img>.
  'still.png': ['-f', 'lavfi', '-i', 'testsrc2=s=320x180:d=1', '-frames:v', '1'],
  // An animated GIF of 15 pictures, 10 a second (each picture's change falls on a 30 fps frame), looping.
  'spin.gif': ['-f', 'lavfi', '-i', 'testsrc2=s=160x90:r=10:d=1.5', '-loop', '0'],
  'tone.wav': ['-f', 'lavfi', '-i', 'aevalsrc=0.8*sin(2*PI*440*t)*t/4:s=48000:d=4', '-c:a', 'pcm_s16le'],
  // The production rows' a-roll: 15 s of moving picture with a voice-like sound (a 220 Hz tone
  // whose level rises and falls three times a second), and two sound effects.
  'aroll-portrait.mp4': [
    '-f', 'lavfi', '-i', 'testsrc2=s=540x960:r=30:d=15,hue=H=2*PI*t/15',
    '-f', 'lavfi', '-i', 'aevalsrc=0.3*sin(2*PI*220*t)*(0.6+0.4*sin(2*PI*3*t)):s=48000:d=15',
    '-c:v', 'libx264', '-crf', '18', '-g', '30', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '128k', '-shortest',
  ],
  // A small a-roll for the mixing rows: 4 s of picture with the same voice-like sound.
  'aroll-small.mp4': [
    '-f', 'lavfi', '-i', 'testsrc2=s=320x180:r=30:d=4',
    '-f', 'lavfi', '-i', 'aevalsrc=0.3*sin(2*PI*220*t)*(0.6+0.4*sin(2*PI*3*t)):s=48000:d=4',
    '-c:v', 'libx264', '-crf', '18', '-g', '30', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '128k', '-shortest',
  ],
  // Sources tagged in part, for the colour row: the matrix alone, the primaries alone, nothing,
  // full range; at 1280x720 and 640x360 (a browser guesses an untagged matrix from the height).
  ...colourSources(),
  'sfx-whoosh.wav': ['-f', 'lavfi', '-i', 'aevalsrc=0.5*sin(2*PI*(300+900*t)*t)*exp(-6*t):s=48000:d=0.5', '-c:a', 'pcm_s16le'],
  'sfx-ding.wav': ['-f', 'lavfi', '-i', 'aevalsrc=0.6*sin(2*PI*1320*t)*exp(-5*t):s=48000:d=0.8', '-c:a', 'pcm_s16le'],
};

/** 1 s of every hue at every lightness (a smooth picture, so only colour differs) with the given x264 colour tags, named `colour-<name>.mp4`. */
function colourSources(): Record<string, string[]> {
  const variants: Record<string, { size: string; tags: string[] }> = {
    'untagged-720': { size: '1280x720', tags: [] },
    'untagged-360': { size: '640x360', tags: [] },
    'bt709-matrix-720': { size: '1280x720', tags: ['-colorspace', 'bt709'] },
    'bt709-matrix-360': { size: '640x360', tags: ['-colorspace', 'bt709'] },
    'bt601-matrix-720': { size: '1280x720', tags: ['-colorspace', 'smpte170m'] },
    'bt709-primaries-360': { size: '640x360', tags: ['-color_primaries', 'bt709'] },
    'bt709-primaries-720': { size: '1280x720', tags: ['-color_primaries', 'bt709', '-color_trc', 'bt709'] },
    'bt709-full-360': { size: '640x360', tags: ['-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709', '-color_range', 'pc'] },
  };
  return Object.fromEntries(
    Object.entries(variants).map(([name, { size, tags }]) => [
      `colour-${name}.mp4`,
      [
        '-f', 'lavfi', '-i', `colorspectrum=s=${size}:r=30:d=1:type=all`,
        '-c:v', 'libx264', '-crf', '12', '-g', '30', '-pix_fmt', name.includes('full') ? 'yuvj420p' : 'yuv420p', ...tags, '-an',
      ],
    ]),
  );
}

/**
 * Stages one suite composition under `dir` with the shared fonts and what its pages name; the
 * libraries and media land at the project root, where a sub-composition names them as `../<file>`.
 * `compositions` is the folder holding it (the fuzzer stages its generated cases from its own).
 */
export function stageCompatComposition(root: string, name: string, dir: string, compositions = path.join(root, 'benches', 'compat', 'compositions')): string {
  const spec = PRODUCTION_SPECS.find((p) => p.name === name);
  let staged: string;
  if (spec) {
    staged = path.join(dir, name);
    fs.rmSync(staged, { recursive: true, force: true });
    writeProductionProject(spec, staged);
    fs.cpSync(path.join(root, 'benches', 'compositions', 'fonts'), staged, { recursive: true });
  } else {
    staged = stageComposition(root, name, dir, compositions);
  }
  const html = projectHtml(staged);
  for (const [file, sources] of Object.entries(LIBRARIES)) {
    if (!html.includes(`"${file}"`) && !html.includes(`'./${file}'`)) continue;
    for (const source of sources) {
      const from = path.join(root, source);
      if (!fs.existsSync(from)) throw new Error(`${name} needs ${source}: run bash benches/compat/install.sh (and npm install at the root)`);
      fs.copyFileSync(from, path.join(staged, path.basename(source)));
    }
  }
  stageMedia(staged, { ...MEDIA, ...(spec ? productionMedia(spec) : {}) });
  return staged;
}
