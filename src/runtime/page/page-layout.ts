// --- the page around the root, and the root's clips -----------------------------------------------
// As in HyperFrames: html and body without margin, padding or scrollbars, the root a box of
// data-width × data-height that clips what overflows it; in an output with alpha (webm, mov),
// html and body are transparent whatever the page's CSS says, while a background the root paints
// itself stays, as in HyperFrames' webm renders.
import { boot } from './state';
import { compositionRoot, positiveNumber } from './timing';

export function preparePage(): void {
  const root = compositionRoot();
  if (!root) return;
  [document.documentElement, document.body].forEach(function (el) {
    if (!el) return;
    el.style.margin = '0';
    el.style.padding = '0';
    el.style.overflow = 'hidden';
  });
  const width = positiveNumber(root.getAttribute('data-width'));
  const height = positiveNumber(root.getAttribute('data-height'));
  if (!root.style.position) root.style.position = 'relative';
  root.style.overflow = 'hidden';
  if (width !== null) root.style.width = width + 'px';
  if (height !== null) root.style.height = height + 'px';
  if (boot.transparent) {
    const style = document.createElement('style');
    style.textContent = 'html,body{background:transparent!important;background-color:transparent!important;background-image:none!important}';
    document.head.appendChild(style);
  }
  layoutRootClips();
}

// The root's own clips (its children with data-start) are layers stacked in the root's box, not
// blocks in its flow: one the page's CSS leaves in the flow is taken out of it (position absolute,
// where the flow would have put it), so a full-frame scene never pushes the scenes after it below
// the frame. A layer that would then have no width or height takes its data-width / data-height,
// else the root's. Applied when the page is parsed and again once it has loaded (hosts a script
// mounted, styles a script set), as HyperFrames lays out these clips whenever its runtime reads
// the page's timelines.
const NOT_LAID_OUT: Record<string, number> = { SCRIPT: 1, STYLE: 1, LINK: 1, META: 1 };
export function layoutRootClips(): void {
  const root = compositionRoot();
  if (!root) return;
  for (let i = 0; i < root.children.length; i++) {
    const el = root.children[i] as HTMLElement;
    if (NOT_LAID_OUT[el.tagName] || !el.style || !el.hasAttribute('data-start')) continue;
    // A clip the page hides with display: none is measured as shown, then hidden again.
    const hidden = el.style.getPropertyValue('display') === 'none' ? el.style.getPropertyPriority('display') : null;
    if (hidden !== null) el.style.removeProperty('display');
    const computed = getComputedStyle(el);
    if (computed.position !== 'absolute' && computed.position !== 'fixed') el.style.position = 'absolute';
    if (el.tagName !== 'AUDIO') {
      // Both read out of the flow, before either is set (a computed style is live).
      const width = computed.width;
      const height = computed.height;
      sizeLayer(el, 'width', width);
      sizeLayer(el, 'height', height);
    }
    if (hidden !== null) el.style.setProperty('display', 'none', hidden);
  }
}

function sizeLayer(el: HTMLElement, side: 'width' | 'height', used: string): void {
  if (el.style[side]) return;
  // In px, with or without the unit, as HyperFrames reads it.
  const declared = parseFloat(el.getAttribute('data-' + side) || '');
  if (declared > 0 && isFinite(declared)) {
    if (used === '0px' || used === 'auto') el.style[side] = declared + 'px';
  } else if (used === '0px') {
    el.style[side] = '100%';
  }
}
