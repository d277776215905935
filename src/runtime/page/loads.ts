// --- what the page is still loading -----------------------------------------------------------------
// A frame is drawn only once what the page has asked for so far has arrived: the fonts its text
// needs loaded (or failed), its images decoded. Chromium starts a web font's load when layout
// first needs the face; under begin-frame control that layout would run inside the capture
// itself, drawing the text invisible (the font's block period), and the font's arrival changes no
// DOM, so nothing marked a later frame changed either. So every frame lays the page out here,
// before the capture, and waits for the loads that started.
// The same happens after a frame a seek steps through on its way that may have asked for a load
// (stepMayLoad), so a page that reaches a frame by stepping (a later worker's first frame) has
// seen its images, and the fonts of the elements it added, arrive where a page drawing every frame
// did: a canvas draws the same image, text a script measures has the same size.

// What failed to load (an image, a stylesheet, a web font) is drawn as the browser draws the page
// without it and named in a warning: the renderer drains `__failedLoads()` once the page is ready
import { watchAnimatedImage } from './animated-images';
import { mutations } from './changes';
import { applyFontRewrites } from './fonts';

const failedLoads: string[] = [];
let reportedLoads = 0;
export function noteFailedLoad(what: string): void {
  if (failedLoads.indexOf(what) < 0) failedLoads.push(what);
}
// A data: URL is named by its start: it may be kilobytes long.
function shortUrl(url: string): string { return /^data:/i.test(url) && url.length > 80 ? url.slice(0, 77) + '...' : url; }
function noteFailedStyles(): void {
  if (document.fonts) document.fonts.forEach(function (face) {
    if (face.status === 'error') noteFailedLoad('font ' + face.family);
  });
}
// What failed since the last call.
export function takeFailedLoads(): string[] {
  noteFailedStyles();
  const fresh = failedLoads.slice(reportedLoads);
  reportedLoads = failedLoads.length;
  return fresh;
}

// <img> → the source it was decoded for (src and srcset: currentSrc is only chosen later).
const decodedImages = new WeakMap<HTMLImageElement, string>();
// Images a script loads without putting them in the document (`new Image()` to draw on a canvas):
// each frame waits for them as for the document's, from the frame their source was set.
const scriptImages = new Set<HTMLImageElement>();
// CSS image URLs already decoded.
const cssImages = new Set<string>();
// A face that arrives lays its text out anew, which may call for another (the next unicode-range
// subset, the next family of the list): a few rounds cover any real page.
const MAX_LOAD_ROUNDS = 8;

function imageKey(img: HTMLImageElement): string { return img.src + ' ' + img.srcset; }
export function decodeImages(imgs: HTMLImageElement[]): Promise<unknown> {
  return Promise.all(imgs.map(function (img) {
    const key = imageKey(img);
    const settled = function () {
      decodedImages.set(img, key);
      scriptImages.delete(img);
    };
    return img.decode().then(function () {
      settled();
      // One in the document may be animated: its pictures then follow the clock.
      return img.isConnected ? watchAnimatedImage(img) : undefined;
    }, function () {
      // One the page keeps to itself may fail: the page's own error handler decides what then.
      // One in the document is drawn as the browser draws it, broken, and named (failedLoads).
      if (img.isConnected) noteFailedLoad('image ' + shortUrl(img.currentSrc || img.src));
      settled();
    });
  }));
}
// The page's <img> elements, in the document or a script's, with a source not decoded yet. A lazy
// one is loaded at once: one out of view would otherwise never load, and its decode never settle.
export function undecodedImages(): HTMLImageElement[] {
  const list: HTMLImageElement[] = [];
  const consider = function (img: HTMLImageElement) {
    if (!(img.src || img.srcset) || decodedImages.get(img) === imageKey(img)) return scriptImages.delete(img);
    if (img.loading === 'lazy') img.loading = 'eager';
    list.push(img);
  };
  for (let i = 0; i < document.images.length; i++) consider(document.images[i]);
  scriptImages.forEach(function (img) { if (!img.isConnected) consider(img); });
  return list;
}

// CSS background images (the load event does not wait for those of elements styled later).
export function cssImageUrls(elements: ArrayLike<Element>, urls: Set<string>): Set<string> {
  for (let i = 0; i < elements.length; i++) {
    const bg = getComputedStyle(elements[i]).backgroundImage;
    if (!bg || bg === 'none') continue;
    bg.replace(/url\(\s*(['"]?)(.*?)\1\s*\)/g, function (_, q, url) { if (!cssImages.has(url)) urls.add(url); return ''; });
  }
  return urls;
}
export function decodeCssImages(urls: Set<string>): Promise<unknown> {
  return Promise.all(Array.from(urls).map(function (url) {
    const img = new Image();
    img.src = url;
    scriptImages.delete(img);
    const settled = function () { cssImages.add(url); };
    return img.decode().then(settled, function () {
      noteFailedLoad('image ' + shortUrl(url));
      settled();
    });
  }));
}
// The elements DOM changes may have given a new CSS image: each one added (with what it holds)
// and each whose attributes changed, once.
function touchedElements(records: MutationRecord[]): Element[] {
  const elements = new Set<Element>();
  records.forEach(function (record) {
    if (record.type === 'attributes') return elements.add(record.target as Element);
    record.addedNodes.forEach(function (node) {
      if (node.nodeType !== 1 || elements.has(node as Element)) return;
      elements.add(node as Element);
      const inside = (node as Element).querySelectorAll('*');
      for (let i = 0; i < inside.length; i++) elements.add(inside[i]);
    });
  });
  return Array.from(elements);
}

// Whether a frame stepped through on the way to another may have asked for a load: elements were
// added or had attributes other than style changed (a class can bring a font or an image), a font
// is loading (a script measured text, a canvas drew some), or a script gave an image a source.
// Text and inline style changes, what most pages make on every frame, are left to the frame
// itself: laying the page out after each of them cost about ten times the stepping.
export function stepMayLoad(records: MutationRecord[]): boolean {
  if ((document.fonts && document.fonts.status === 'loading') || scriptImages.size > 0) return true;
  return records.some(function (record) {
    if (record.type === 'attributes') return record.attributeName !== 'style';
    for (let i = 0; i < record.addedNodes.length; i++) if (record.addedNodes[i].nodeType === 1) return true;
    return false;
  });
}

// Lays the page out and returns a promise of the loads that started, or null when none is pending.
// `records`: the DOM changes since the last call, whose CSS images are looked at; `round`: how
// many times this frame has waited already.
export function pendingLoads(records: MutationRecord[], round?: number): Promise<unknown> | null {
  // Font families are rewritten by an observer of their own; its pending changes go first, so the
  // layout below asks for the faces the page will draw with.
  applyFontRewrites();
  // Reading a layout value brings style and layout up to date, starting the loads they need.
  if (document.documentElement) document.documentElement.getBoundingClientRect();
  const waits: Promise<unknown>[] = [];
  if (document.fonts && document.fonts.status === 'loading') waits.push(document.fonts.ready);
  const imgs = undecodedImages();
  if (imgs.length > 0) waits.push(decodeImages(imgs));
  const urls = cssImageUrls(touchedElements(records), new Set());
  if (urls.size > 0) waits.push(decodeCssImages(urls));
  if (waits.length === 0) return null;
  const next = (round || 0) + 1;
  return Promise.all(waits).then(function () { return next < MAX_LOAD_ROUNDS ? pendingLoads(mutations.takeRecords(), next) : null; });
}

export function installLoads(): void {
  // Stylesheets that did not load tell it by an error event (a 404 still gets an empty sheet).
  document.addEventListener('error', function (event) {
    const el = event.target as HTMLLinkElement | null;
    if (el && el.tagName === 'LINK' && /(^|\s)stylesheet(\s|$)/i.test(el.rel || '')) noteFailedLoad('stylesheet ' + el.href);
  }, true);
  const imageSrc = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, 'src') as PropertyDescriptor;
  Object.defineProperty(HTMLImageElement.prototype, 'src', {
    configurable: true,
    enumerable: imageSrc.enumerable,
    get: imageSrc.get,
    set: function (this: HTMLImageElement, value: string) {
      imageSrc.set!.call(this, value);
      if (!this.isConnected) scriptImages.add(this);
    },
  });
}
