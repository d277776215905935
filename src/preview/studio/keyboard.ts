import type { VidkitPlayer } from '../../player/vidkit-player';

/** Fastest play L reaches, doubling at each press. */
const MAX_RATE = 4;

/**
 * The studio's keys, none while a field has the focus (where they edit it): space plays and
 * pauses; Left and Right step one frame, with Shift one second; J goes back one second (the
 * runtime only moves forward, so there is no reverse play), K pauses, L plays and, pressed again,
 * doubles the speed up to 4x; Home and End go to the first and last frame.
 */
export function keyboard(player: VidkitPlayer, onMove: () => void): void {
  document.addEventListener('keydown', (e) => {
    const target = e.target as HTMLElement | null;
    if (target && (target.closest('input, select, textarea, [contenteditable]') || e.ctrlKey || e.metaKey || e.altKey)) return;
    const fps = Number.isFinite(player.fps) ? player.fps : 30;
    const last = Math.max(0, Math.round(player.duration * fps) - 1);
    const act = (): boolean => {
      switch (e.key) {
        case ' ':
          // A focused button would take the key too, on its release: space is play here.
          if (target instanceof HTMLButtonElement) target.blur();
          if (player.paused) player.play();
          else player.pause();
          return true;
        case 'ArrowLeft':
        case 'ArrowRight':
          void player.step((e.key === 'ArrowLeft' ? -1 : 1) * (e.shiftKey ? Math.round(fps) : 1));
          return true;
        case 'j':
        case 'J':
          void player.step(-Math.round(fps));
          return true;
        case 'k':
        case 'K':
          player.pause();
          player.playbackRate = 1;
          return true;
        case 'l':
        case 'L':
          if (player.paused) {
            player.playbackRate = 1;
            player.play();
          } else {
            player.playbackRate = Math.min(MAX_RATE, player.playbackRate * 2);
          }
          return true;
        case 'Home':
        case 'End':
          player.pause();
          void player.seek((e.key === 'Home' ? 0 : last) / fps);
          return true;
        default:
          return false;
      }
    };
    if (act()) {
      e.preventDefault();
      onMove();
    }
  });
}
