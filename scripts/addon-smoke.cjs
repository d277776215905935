// Loads the native addon at argv[2], encodes a picture in each output format and reads each file
// back with the addon's own probe. scripts/check-addon-portable.sh runs it inside a root
// filesystem without FFmpeg. Prints the addon's libavcodec, then "<format> <codec> <pix_fmt> <frames>".
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// A 64x64 PNG, every pixel #3366cc.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAEAAAABACAIAAAAlC+aJAAAACXBIWXMAAAABAAAAAQBPJcTWAAAAeklEQVR4nO3PUQkAIBTAwFfJTpa1lSH8OITBAtxm7fN1wwUNaEEDWtCAFjSgBQ1oQQNa0IAWNKAFDWhBA1rQgBY0oAUNaEEDWtCAFjSgBQ1oQQNa0IAWNKAFDWhBA1rQgBY0oAUNaEEDWtCAFjSgBQ1oQQNa0IAWPHYBnX/hPDq0HjsAAAAASUVORK5CYII=',
  'base64',
);
const EXTENSIONS = { mp4: 'mp4', webm: 'webm', mov: 'mov', 'hdr-pq': 'mp4', 'hdr-hlg': 'mp4' };
// The picture, then repeats of it: x265 3.5 leaves the timestamps of a segment shorter than its
// B-frame delay (2 frames here) undefined, and the MP4 muxer then refuses it.
const FRAMES = 3;

async function main() {
  const addon = require(path.resolve(process.argv[2]));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vidkit-addon-smoke-'));
  console.log(`libavcodec ${addon.nativeInfo().libavcodec}`);
  for (const [format, extension] of Object.entries(EXTENSIONS)) {
    const output = path.join(dir, `${format}.${extension}`);
    const encoder = new addon.NativeEncoder({
      output, format, width: 64, height: 64, fpsNum: 30, fpsDen: 1, crf: 23, preset: 'ultrafast', input: 'png',
    });
    await encoder.push(PNG);
    for (let repeat = 1; repeat < FRAMES; repeat++) await encoder.pushRepeat();
    await encoder.finish();
    const video = (await addon.probe(output)).streams.find((stream) => stream.kind === 'video');
    console.log(`${format} ${video.codec} ${video.pixFmt} ${video.frameCount}`);
  }
  fs.rmSync(dir, { recursive: true });
}

main().catch((error) => {
  console.error(`addon-smoke: ${error.message}`);
  process.exit(1);
});
