// --- CSS animations, transitions and the Web Animations API ----------------------------------
// Each animation is paused and driven from the virtual clock, from the virtual time at which it
// first appeared; a CSS animation inside a clip (data-start) from its clip's start instead, as
// in HyperFrames, however late it appeared (a clip leaving display: none restarts its CSS
// animations). One the page paused itself is still driven, from the time it was paused at.
import { state } from './state';
import { timing } from './timing';

const animationStart = new WeakMap<Animation, number>();
const animationOffset = new WeakMap<Animation, number>();
// Records the virtual time at which each new animation appeared.
export function registerAnimations(): Animation[] {
  const all = document.getAnimations();
  for (let i = 0; i < all.length; i++) {
    const anim = all[i];
    if (animationStart.has(anim)) continue;
    animationStart.set(anim, state.nowMs);
    // A running animation's own time before it was seen is wall-clock time; a paused one's is the page's choice.
    animationOffset.set(anim, anim.playState === 'paused' ? Number(anim.currentTime) || 0 : 0);
  }
  return all;
}
// Where an animation's own time 0 falls on the composition's timeline, in ms.
function animationOrigin(anim: Animation): number {
  if (typeof CSSAnimation === 'undefined' || !(anim instanceof CSSAnimation)) return animationStart.get(anim) as number;
  const target = anim.effect && (anim.effect as KeyframeEffect).target;
  const clip = target && target.closest ? target.closest('[data-start]') : null;
  return clip ? timing().startOf(clip) * 1000 : (animationStart.get(anim) as number);
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
// A time exactly on an iteration boundary starts the next iteration; Chromium subtracts the delay
// in seconds, so 850 ms with a 50 ms delay and 800 ms iterations comes out a hair short of the
// boundary and draws the last iteration's end. Such a time is moved one microsecond on, past the
// rounding and far below anything a frame could show.
const BOUNDARY_EPSILON_MS = 1e-3;
function pastIterationBoundary(anim: Animation, localMs: number): number {
  const t = anim.effect ? anim.effect.getComputedTiming() : null;
  if (!t) return localMs;
  const duration = Number(t.duration);
  const delay = t.delay as number;
  const active = localMs - delay;
  if (!(duration > 0) || active <= 0 || active >= (t.activeDuration as number)) return localMs;
  const iterations = active / duration + (t.iterationStart || 0);
  const boundary = Math.round(iterations);
  if (Math.abs(iterations - boundary) * duration >= BOUNDARY_EPSILON_MS) return localMs;
  return delay + (boundary - (t.iterationStart || 0)) * duration + BOUNDARY_EPSILON_MS;
}
export function syncAnimations(): void {
  const all = registerAnimations();
  for (let i = 0; i < all.length; i++) {
    const anim = all[i];
    const elapsed = (animationOffset.get(anim) as number) + Math.max(0, state.nowMs - animationOrigin(anim));
    const local = pastIterationBoundary(anim, elapsed);
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
