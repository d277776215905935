// --- CSS animations, transitions and the Web Animations API ----------------------------------
// Each animation is paused and driven from the virtual clock, from the virtual time at which it
// first appeared; a CSS animation inside a clip (data-start) from its clip's start instead, as
// in HyperFrames, however late it appeared (a clip leaving display: none restarts its CSS
// animations). One the page paused itself is still driven, from the time it was paused at.
var animationStart = new WeakMap();
var animationOffset = new WeakMap();
// Records the virtual time at which each new animation appeared.
function registerAnimations() {
  var all = document.getAnimations();
  for (var i = 0; i < all.length; i++) {
    var anim = all[i];
    if (animationStart.has(anim)) continue;
    animationStart.set(anim, nowMs);
    // A running animation's own time before it was seen is wall-clock time; a paused one's is the page's choice.
    animationOffset.set(anim, anim.playState === 'paused' ? Number(anim.currentTime) || 0 : 0);
  }
  return all;
}
// Where an animation's own time 0 falls on the composition's timeline, in ms.
function animationOrigin(anim) {
  if (typeof CSSAnimation === 'undefined' || !(anim instanceof CSSAnimation)) return animationStart.get(anim);
  var target = anim.effect && anim.effect.target;
  var clip = target && target.closest ? target.closest('[data-start]') : null;
  return clip ? timing().startOf(clip) * 1000 : animationStart.get(anim);
}
// An animation holding still before its delay or after its end shows the same thing on every
// frame: writing its currentTime again would still mark the page damaged and cost a full capture.
var heldPhase = new WeakMap();
function phaseAt(anim, localMs) {
  var t = anim.effect ? anim.effect.getComputedTiming() : null;
  if (!t) return 'active';
  if (localMs < t.delay) return 'before';
  if (localMs >= t.delay + t.activeDuration) return 'after';
  return 'active';
}
function syncAnimations() {
  var all = registerAnimations();
  for (var i = 0; i < all.length; i++) {
    var anim = all[i];
    var local = animationOffset.get(anim) + Math.max(0, nowMs - animationOrigin(anim));
    var phase = phaseAt(anim, local);
    if (phase !== 'active' && heldPhase.get(anim) === phase) continue;
    heldPhase.set(anim, phase);
    anim.pause();
    anim.currentTime = local;
    changed = true;
  }
}
