// Loads the native addon at argv[2], encodes a picture in each output format and reads each file
// back with the addon's own probe. scripts/check-addon-portable.sh runs it inside a root
// filesystem without FFmpeg. Prints the addon's libavcodec, then "<format> <codec> <pix_fmt> <frames>",
// then the gif (libavfilter's palette) and hls (mpegts segments) made from the picture and the mp4.
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
  const png = path.join(dir, 'frame.png');
  fs.writeFileSync(png, PNG);
  const gif = path.join(dir, 'out.gif');
  // The addon reads no GIF (no gif demuxer): its header and the encoder's count tell.
  const encoded = await addon.encodeGif([png, png, png], gif, { fpsNum: 30, fpsDen: 1 });
  console.log(`gif ${fs.readFileSync(gif).subarray(0, 6).toString('latin1')} ${encoded.frames}`);
  const hls = path.join(dir, 'hls');
  fs.mkdirSync(hls);
  const packaged = await addon.packageHls(path.join(dir, 'mp4.mp4'), hls, 1);
  console.log(`hls ${packaged.segments} ${packaged.frames}`);
  fs.rmSync(dir, { recursive: true });
}

main().catch((error) => {
  console.error(`addon-smoke: ${error.message}`);
  process.exit(1);
});
