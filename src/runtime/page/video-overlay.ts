// --- the picture over the element --------------------------------------------------------------
// Each decoded video (video-frames.ts) in the document gets its canvas drawn over its content box
// by a positioned next sibling (selectors see one element more there: `video + x` and :nth-child
// after it). The anchor gives the video's box as laid out after its own transform, so the sibling
// is placed at the untransformed box (found from the transformed corners) and given the same
// transform.
import { decodedVideos } from './video-frames';

const FRAME_TAG = 'vidkit-video-frame';
const FRAME_EFFECTS = ['opacity', 'filter', 'mix-blend-mode', 'transform', 'translate', 'rotate', 'scale', 'visibility', 'backface-visibility', 'image-rendering'];
const FRAME_CLIPS = ['clip-path', 'mask-image', 'mask-size', 'mask-position', 'mask-repeat', 'mask-origin', 'mask-clip', 'mask-mode'];
export function syncVideoFrames(): void {
  decodedVideos.forEach(function (s, el) {
    const canvas = s.canvas;
    if (!canvas) return;
    if (!el.isConnected || !el.parentNode) {
      if (s.host && s.host.isConnected) s.host.remove();
      return;
    }
    if (!s.host) {
      s.host = document.createElement(FRAME_TAG);
      // Out of the flow before it enters the document: the video's box is measured below with the
      // host beside it, where a host in the flow (a flex item, a line box) would move or shrink it.
      s.host.style.cssText = 'position:absolute!important';
      const root = s.host.attachShadow({ mode: 'closed' });
      canvas.style.cssText = 'display:block;width:100%;height:100%';
      root.appendChild(canvas);
    }
    if (el.nextSibling !== s.host) el.parentNode.insertBefore(s.host, el.nextSibling);
    const anchor = '--vidkit-video-' + s.id;
    if (el.style.getPropertyValue('anchor-name') !== anchor) el.style.setProperty('anchor-name', anchor);
    const style = frameStyle(getComputedStyle(el), anchor);
    if (style.host !== s.hostStyle) {
      s.hostStyle = style.host;
      s.host.style.cssText = style.host;
    }
    if (canvas.style.objectFit !== style.fit) canvas.style.objectFit = style.fit;
    if (canvas.style.objectPosition !== style.position) canvas.style.objectPosition = style.position;
  });
}
function frameStyle(cs: CSSStyleDeclaration, anchor: string): { host: string; fit: string; position: string } {
  const px = function (name: string) { return parseFloat(cs.getPropertyValue(name)) || 0; };
  const left = px('border-left-width') + px('padding-left');
  const top = px('border-top-width') + px('padding-top');
  const right = px('border-right-width') + px('padding-right');
  const bottom = px('border-bottom-width') + px('padding-bottom');
  let width = px('width');
  let height = px('height');
  if (cs.boxSizing !== 'border-box') {
    width += left + right;
    height += top + bottom;
  }
  const origin = cs.transformOrigin.split(' ').map(parseFloat);
  const corners = [[0, 0], [width, 0], [0, height], [width, height]].map(function (c) {
    return transformOf(cs, origin).transformPoint(new DOMPoint(c[0], c[1]));
  });
  const minX = Math.min.apply(null, corners.map(function (p) { return p.x; }));
  const minY = Math.min.apply(null, corners.map(function (p) { return p.y; }));
  const shown = cs.display !== 'none';
  const parts = [
    'position:' + (cs.position === 'fixed' ? 'fixed' : 'absolute') + '!important',
    'display:' + (shown ? 'block' : 'none') + '!important',
    'left:calc(anchor(' + anchor + ' left) + ' + (left - minX) + 'px)!important',
    'top:calc(anchor(' + anchor + ' top) + ' + (top - minY) + 'px)!important',
    'right:auto!important', 'bottom:auto!important',
    'width:' + Math.max(0, width - left - right) + 'px!important',
    'height:' + Math.max(0, height - top - bottom) + 'px!important',
    'margin:0!important', 'padding:0!important', 'border:0!important', 'box-sizing:content-box!important',
    'overflow:hidden!important', 'pointer-events:none!important', 'transition:none!important', 'animation:none!important',
    'z-index:' + (cs.position === 'static' ? 'auto' : cs.zIndex) + '!important',
    'transform-origin:' + (origin[0] - left) + 'px ' + (origin[1] - top) + 'px ' + (origin[2] || 0) + 'px!important',
  ];
  FRAME_EFFECTS.forEach(function (name) { parts.push(name + ':' + cs.getPropertyValue(name) + '!important'); });
  // The content box's corners: the outer radii less border and padding; its clip and mask are the
  // element's own, exact when it has no border or padding.
  ([['top-left', left, top], ['top-right', right, top], ['bottom-right', right, bottom], ['bottom-left', left, bottom]] as Array<[string, number, number]>).forEach(function (c) {
    const r = cs.getPropertyValue('border-' + c[0] + '-radius').split(' ');
    const rx = radius(r[0], width) - c[1];
    const ry = radius(r[1] || r[0], height) - c[2];
    parts.push('border-' + c[0] + '-radius:' + Math.max(0, rx) + 'px ' + Math.max(0, ry) + 'px!important');
  });
  FRAME_CLIPS.forEach(function (name) { parts.push(name + ':' + cs.getPropertyValue(name) + '!important'); });
  return { host: parts.join(';'), fit: cs.objectFit, position: cs.objectPosition };
}
function radius(value: string, size: number): number { return /%$/.test(value) ? (parseFloat(value) / 100) * size : parseFloat(value) || 0; }
// The element's own transform about its origin: translate, rotate, scale, then transform.
function transformOf(cs: CSSStyleDeclaration, origin: number[]): DOMMatrix {
  let m = new DOMMatrix().translate(origin[0], origin[1], origin[2] || 0);
  if (cs.translate !== 'none') {
    const t = cs.translate.split(' ');
    m = m.translate(parseFloat(t[0]), parseFloat(t[1] || '0'), parseFloat(t[2] || '0'));
  }
  if (cs.rotate !== 'none') {
    const r = cs.rotate.split(' ');
    const angle = parseFloat(r[r.length - 1]) * (/rad$/.test(cs.rotate) ? 180 / Math.PI : /turn$/.test(cs.rotate) ? 360 : 1);
    const axes: Record<string, number[]> = { x: [1, 0, 0], y: [0, 1, 0], z: [0, 0, 1] };
    const axis = r.length === 4 ? r.slice(0, 3).map(Number) : r.length === 2 ? axes[r[0]] : [0, 0, 1];
    m = m.rotateAxisAngle(axis[0], axis[1], axis[2], angle);
  }
  if (cs.scale !== 'none') {
    const s = cs.scale.split(' ');
    m = m.scale(parseFloat(s[0]), parseFloat(s[1] || s[0]), parseFloat(s[2] || '1'));
  }
  if (cs.transform !== 'none') m = m.multiply(new DOMMatrix(cs.transform));
  return m.translate(-origin[0], -origin[1], -(origin[2] || 0));
}

// HyperFrames' shader transitions draw clones of their two scenes (cloneNode into a
// `canvas[layoutsubtree]`, then drawElementImage). A clone of a video's picture host has neither
// the host's closed shadow root nor its canvas's pixels, so a video scene would be drawn black:
// each cloned host is given the picture its original shows at this frame, as a decoded image (a
// canvas nested there is drawn at its bitmap's size, whatever its box).
export function pictureSceneClones(): Promise<unknown> {
  const pictures = new Map<Element, HTMLCanvasElement>();
  decodedVideos.forEach(function (s) { if (s.host && s.canvas) pictures.set(s.host, s.canvas); });
  const decoded: Promise<void>[] = [];
  document.querySelectorAll('canvas[layoutsubtree]').forEach(function (box) {
    const clone = box.firstElementChild;
    // The clone keeps its scene's id; the original comes first in the document.
    const original = clone && clone.id ? document.getElementById(clone.id) : null;
    if (!clone || !original || box.contains(original)) return;
    const copies = clone.querySelectorAll(FRAME_TAG);
    original.querySelectorAll(FRAME_TAG).forEach(function (host, i) {
      const source = pictures.get(host);
      const copy = copies[i];
      if (!source || !copy || copy.shadowRoot) return;
      const picture = document.createElement('img');
      picture.style.cssText = source.style.cssText;
      picture.src = source.toDataURL('image/png');
      copy.attachShadow({ mode: 'open' }).appendChild(picture);
      // The host is placed by anchor() on its video, which in a clone may resolve to another
      // element: the copy goes where its original's layout box is, in the same containing block.
      const placed = host as HTMLElement;
      (copy as HTMLElement).style.cssText = placed.style.cssText + ';left:' + placed.offsetLeft + 'px!important;top:' + placed.offsetTop + 'px!important;width:' + placed.offsetWidth + 'px!important;height:' + placed.offsetHeight + 'px!important';
      decoded.push(picture.decode());
    });
  });
  return Promise.all(decoded);
}
