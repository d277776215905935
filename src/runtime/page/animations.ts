// --- CSS animations, transitions and the Web Animations API ----------------------------------
// Each animation is paused and driven from the virtual clock, from the virtual time at which it
// first appeared; a CSS animation inside a clip (data-start) from its clip's start instead, as
// in HyperFrames, however late it appeared (a clip leaving display: none restarts its CSS
// animations). One the page paused itself is still driven, from the time it was paused at. SVG's
// own animations move with them (svg-animations.ts).
import { fps, state } from './state';
import { registerSvgAnimations, syncSvgAnimations } from './svg-animations';
import { timing } from './timing';

const animationStart = new WeakMap<Animation, number>();
const animationOffset = new WeakMap<Animation, number>();
// Records the virtual time at which each new animation, and each new animated <svg>, appeared,
// and pauses it there: the document's timeline runs on the wall clock, and from the first frame a
// running animation moves with it. One that outran its length before the next sync (a page whose
// load or first seek took longer than a short animation lasts, on a busy machine) finished, left
// getAnimations() and was never driven again: it showed its element unanimated in every frame.
export function registerAnimations(): void {
  registerSvgAnimations();
  registerDocumentAnimations();
}
function register(anim: Animation): void {
  if (animationStart.has(anim)) return;
  animationStart.set(anim, state.nowMs);
  // A running animation's own time before it was seen is wall-clock time; a paused one's is the page's choice.
  animationOffset.set(anim, anim.playState === 'paused' ? Number(anim.currentTime) || 0 : 0);
  anim.pause();
}
function registerDocumentAnimations(): Animation[] {
  const all = document.getAnimations();
  for (let i = 0; i < all.length; i++) register(all[i]);
  return all;
}
// A browser that draws frames while the page loads (screenshot capture) starts CSS animations and
// transitions then, before the page is ready: each is held as it starts, or a short one would be
// over, and gone from getAnimations(), by the first frame.
function registerStarted(event: Event): void {
  // The element itself, also inside a shadow tree (event.target is its host there).
  const target = event.composedPath()[0] as Element | undefined;
  if (!target || typeof target.getAnimations !== 'function') return;
  const pseudo = (event as AnimationEvent).pseudoElement;
  const started = target.getAnimations(pseudo ? { subtree: true } : undefined);
  for (let i = 0; i < started.length; i++) register(started[i]);
}
export function installAnimationWatch(): void {
  window.addEventListener('animationstart', registerStarted, true);
  window.addEventListener('transitionrun', registerStarted, true);
}
// The animation's own time at the frame drawn, in ms: from its clip's start (in seconds) for a
// CSS animation inside a clip, else from when it first appeared. The frame's time is i / fps
// seconds and each difference is taken in the units HyperFrames takes it in, in the same order:
// on a frame that falls exactly on an iteration boundary the rounding decides which iteration
// shows (Chromium subtracts the delay in seconds), and it then rounds as in the peer's render.
function elapsedMs(anim: Animation): number {
  const seconds = state.frame / fps;
  const clip = clipOf(anim);
  if (clip) return Math.max(0, seconds - timing().startOf(clip)) * 1000;
  return Math.max(0, seconds * 1000 - (animationStart.get(anim) as number));
}
function clipOf(anim: Animation): Element | null {
  if (typeof CSSAnimation === 'undefined' || !(anim instanceof CSSAnimation)) return null;
  const target = anim.effect && (anim.effect as KeyframeEffect).target;
  return target && target.closest ? target.closest('[data-start]') : null;
}
type Phase = 'before' | 'active' | 'after';
// An animation holding still before its delay or after its end shows the same thing on every
// frame: writing its currentTime again would still mark the page damaged and cost a full capture.
const heldPhase = new WeakMap<Animation, Phase>();
function phaseAt(anim: Animation, localMs: number): Phase {
  const t = anim.effect ? anim.effect.getComputedTiming() : null;
  if (!t) return 'active';
  if (localMs < (t.delay as number)) return 'before';
  if (localMs >= (t.delay as number) + (t.activeDuration as number)) return 'after';
  return 'active';
}
export function syncAnimations(): void {
  // Registers the new animated <svg> elements itself.
  syncSvgAnimations();
  const all = registerDocumentAnimations();
  for (let i = 0; i < all.length; i++) {
    const anim = all[i];
    const local = (animationOffset.get(anim) as number) + elapsedMs(anim);
    const phase = phaseAt(anim, local);
    if (phase !== 'active' && heldPhase.get(anim) === phase) continue;
    heldPhase.set(anim, phase);
    // Already there (advanced earlier in this frame): writing it again would only mark damage.
    if (anim.playState === 'paused' && anim.currentTime === local) continue;
    anim.pause();
    anim.currentTime = local;
    state.changed = true;
  }
}
