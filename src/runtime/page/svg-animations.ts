// --- SVG animations (SMIL) ------------------------------------------------------------------------
// <animate>, <animateMotion>, <animateTransform> and <set> run on the clock of their outermost
// <svg>, which Chromium starts when that <svg> enters the document and moves on the wall clock. Each
// such <svg> is paused and set to the virtual time since it first appeared (the page's load for
// one in the markup), so it plays as in a browser playing the page, the same at every worker.
import { state } from './state';

const SMIL = 'animate, animateMotion, animateTransform, set';
const svgStart = new WeakMap<SVGSVGElement, number>();
// Live: a page without any <svg> (most of them) costs a length read per call, not a selector query
// of the whole document after every timer and animation callback.
const svgElements = document.getElementsByTagName('svg');

function outermostSvg(el: Element): SVGSVGElement | null {
  let svg = (el as SVGElement).ownerSVGElement;
  while (svg && svg.ownerSVGElement) svg = svg.ownerSVGElement;
  return svg;
}

// Every outermost <svg> holding an animation, each paused from the virtual time it was first seen.
export function registerSvgAnimations(): SVGSVGElement[] {
  const roots: SVGSVGElement[] = [];
  if (svgElements.length === 0) return roots;
  const found = document.querySelectorAll(SMIL);
  for (let i = 0; i < found.length; i++) {
    const svg = outermostSvg(found[i]);
    if (!svg || roots.indexOf(svg) >= 0) continue;
    roots.push(svg);
    if (svgStart.has(svg)) continue;
    svgStart.set(svg, state.nowMs);
    svg.pauseAnimations();
  }
  return roots;
}

export function syncSvgAnimations(): void {
  const roots = registerSvgAnimations();
  for (let i = 0; i < roots.length; i++) {
    const seconds = (state.nowMs - (svgStart.get(roots[i]) as number)) / 1000;
    if (roots[i].getCurrentTime() === seconds) continue;
    roots[i].setCurrentTime(seconds);
    state.changed = true;
  }
}
