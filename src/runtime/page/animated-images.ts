// --- animated images ------------------------------------------------------------------------------
// Chromium advances an animated GIF, WebP, PNG or AVIF with the frames it draws, from the first one
// that paints it: a worker whose range starts later, having drawn none of the frames before, would
// show it from its first picture. So each animated <img> of the document is decoded here, with
// Chromium's own decoders (ImageDecoder), and shows at every drawn frame the picture of its own
// time: the frame's time less when it started (the frame at which its source was decoded, or its
// clip's start when that is later), over its pictures' durations (one
// of 10 ms or less lasts 100 ms, as browsers play it), repeated as often as the file says, then
// holding the last. The picture goes in as `content: url(…)` of the element, so its src, layout and
// styles stay as the page set them. An image whose bytes the page may not read (another origin
// without CORS) is left to Chromium, and such a page never skips a draw (changes.ts).
import { state } from './state';
import { timing } from './timing';

interface Animated {
  /** Virtual ms at which its first picture shows. */
  startMs: number;
  /** When each picture ends, in ms from the start of a play. */
  ends: number[];
  /** How many times it plays; Infinity for ever. */
  plays: number;
  decoder: ImageDecoder;
  /** The pictures asked for, in the order they were last shown. */
  pictures: Map<number, Picture>;
  /** Bytes of the pictures made. */
  bytes: number;
  shown: number;
}

interface Picture {
  /** Settles once the picture is made and decoded. */
  ready: Promise<void>;
  /** Its object URL; empty until it is made. */
  url: string;
  bytes: number;
  /**
   * An image of the picture, held while it is kept: a loaded image nothing holds may leave
   * Chromium's memory cache, and the element's `content` would then load it again while the
   * frame is drawn, showing nothing.
   */
  holder: HTMLImageElement | null;
}

/**
 * The PNG bytes kept for one image's pictures. A long GIF at 1080p is hundreds of pictures of a few
 * megabytes each: past this, the pictures shown longest ago are dropped, to be made again if shown
 * again (a short GIF keeps all of its pictures and encodes each once).
 */
const KEPT_BYTES = 96 * 1024 * 1024;

const animated = new Map<HTMLImageElement, Animated>();
/** Sources no browser animates, by their name: not read again to find out. */
const STILL = /^data:image\/(jpeg|svg)|\.(jpe?g|svg|bmp|ico)([?#]|$)/i;
/** The source each <img> was looked at for, animated or not. */
const examined = new WeakMap<HTMLImageElement, string>();

/** Whether the runtime draws this image's pictures itself. */
export function isControlledImage(img: Element): boolean {
  return animated.has(img as HTMLImageElement);
}

function imageType(bytes: Uint8Array): string | null {
  const text = String.fromCharCode.apply(null, Array.from(bytes.subarray(0, 16)));
  if (text.indexOf('GIF8') === 0) return 'image/gif';
  if (text.indexOf('RIFF') === 0 && text.slice(8, 12) === 'WEBP') return 'image/webp';
  if (text.slice(1, 4) === 'PNG') return 'image/png';
  if (text.slice(4, 8) === 'ftyp') return 'image/avif';
  return null;
}

// When its first picture shows: when it appeared (the frame that decoded it), or its clip's start
// when that is later, as a browser shows it from the first frame that paints it.
function startOf(img: HTMLImageElement): number {
  const clip = img.closest('[data-start]');
  return Math.max(state.nowMs, clip ? timing().startOf(clip) * 1000 : 0);
}

// Reads a decoded <img>'s file and, when it has more than one picture, takes its pictures over.
// Settles once it knows (never rejects): the frame that decoded it waits for that.
export function watchAnimatedImage(img: HTMLImageElement): Promise<void> {
  const src = img.currentSrc || img.src;
  if (examined.get(img) === src) return Promise.resolve();
  examined.set(img, src);
  const earlier = animated.get(img);
  if (earlier) {
    // A new source: the pictures of the old one go.
    animated.delete(img);
    earlier.decoder.close();
    earlier.pictures.forEach(function (picture) {
      picture.ready.then(function () { URL.revokeObjectURL(picture.url); }, function () { return undefined; });
    });
    img.style.removeProperty('content');
  }
  if (!src || STILL.test(src) || typeof ImageDecoder !== 'function') return Promise.resolve();
  const startMs = startOf(img);
  return fetch(src)
    .then(function (response) { return response.arrayBuffer(); })
    .then(function (buffer) {
      const type = imageType(new Uint8Array(buffer));
      if (!type) return;
      const decoder = new ImageDecoder({ data: buffer, type: type });
      return decoder.tracks.ready
        .then(function () {
          const track = decoder.tracks.selectedTrack;
          if (!track || !track.animated || track.frameCount < 2) return decoder.close();
          return pictureEnds(decoder, track.frameCount).then(function (ends) {
            if (examined.get(img) !== src) return decoder.close();
            animated.set(img, { startMs: startMs, ends: ends, plays: track.repetitionCount + 1, decoder: decoder, pictures: new Map(), bytes: 0, shown: -1 });
          });
        });
    })
    .catch(function () { return undefined; });
}

// When each picture ends, from its decoded duration.
function pictureEnds(decoder: ImageDecoder, count: number): Promise<number[]> {
  const ends: number[] = [];
  let at = 0;
  let chain: Promise<unknown> = Promise.resolve();
  for (let i = 0; i < count; i++) {
    chain = chain.then(function () {
      return decoder.decode({ frameIndex: i }).then(function (result) {
        const ms = (result.image.duration || 0) / 1000;
        result.image.close();
        at += ms <= 10 ? 100 : ms;
        ends.push(at);
      });
    });
  }
  return chain.then(function () { return ends; });
}

// The picture shown `elapsed` ms after the start.
function pictureAt(a: Animated, elapsed: number): number {
  const length = a.ends[a.ends.length - 1];
  if (elapsed >= length * a.plays) return a.ends.length - 1;
  const into = elapsed % length;
  for (let i = 0; i < a.ends.length; i++) if (into < a.ends[i]) return i;
  return a.ends.length - 1;
}

function pngBlob(dataUrl: string): Blob {
  const text = atob(dataUrl.slice(dataUrl.indexOf(',') + 1));
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return new Blob([bytes], { type: 'image/png' });
}

// Picture `index` as a PNG: its object URL is there, decoded, once `ready` settles, so the frame
// that shows it draws it. The PNG is encoded synchronously (toDataURL): Chromium encodes a canvas's blob
// (toBlob, convertToBlob) in the renderer's idle time, which under begin-frame control only comes
// after a drawn frame, so each new picture waited out the encoder's 1 s fallback. The object URL
// keeps a picture's megabytes out of the style sheet.
function pictureOf(a: Animated, index: number): Picture {
  let picture = a.pictures.get(index);
  if (picture) {
    a.pictures.delete(index);
  } else {
    const made: Picture = { ready: Promise.resolve(), url: '', bytes: 0, holder: null };
    made.ready = a.decoder.decode({ frameIndex: index }).then(function (result) {
      const frame = result.image;
      const canvas = document.createElement('canvas');
      canvas.width = frame.displayWidth;
      canvas.height = frame.displayHeight;
      (canvas.getContext('2d') as CanvasRenderingContext2D).drawImage(frame, 0, 0);
      frame.close();
      const png = pngBlob(canvas.toDataURL('image/png'));
      const url = URL.createObjectURL(png);
      const holder = document.createElement('img');
      holder.setAttribute('src', url);
      return holder.decode().then(function () {
        made.url = url;
        made.bytes = png.size;
        made.holder = holder;
        a.bytes += png.size;
        dropOldPictures(a);
      });
    });
    picture = made;
  }
  a.pictures.set(index, picture);
  return picture;
}

// Drops the pictures shown longest ago, among those made, while the image keeps more than
// KEPT_BYTES; never the one shown now.
function dropOldPictures(a: Animated): void {
  a.pictures.forEach(function (picture, index) {
    if (a.bytes <= KEPT_BYTES || index === a.shown || !picture.url) return;
    a.pictures.delete(index);
    a.bytes -= picture.bytes;
    URL.revokeObjectURL(picture.url);
  });
}

// Shows each animated image's picture of the frame's time; the frame waits for those not made yet.
export function syncAnimatedImages(waits: Promise<unknown>[]): void {
  animated.forEach(function (a, img) {
    if (!img.isConnected) return;
    const index = pictureAt(a, Math.max(0, state.nowMs - a.startMs));
    if (index === a.shown) return;
    a.shown = index;
    state.changed = true;
    const picture = pictureOf(a, index);
    waits.push(picture.ready.then(function () {
      if (a.shown === index) img.style.setProperty('content', 'url("' + picture.url + '")', 'important');
    }));
  });
}
