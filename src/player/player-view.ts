/** The player's shadow-DOM style: a screen of the requested size, the controls bar below it. */
export const PLAYER_STYLE = `
:host { display: inline-block; width: var(--vidkit-player-width, 640px); background: #000; color: #eee;
  font: 12px/1.2 system-ui, sans-serif; vertical-align: top; }
.screen { position: relative; overflow: hidden; width: 100%; height: var(--vidkit-player-height, auto);
  aspect-ratio: var(--vidkit-player-aspect, 16 / 9); }
.screen iframe { position: absolute; left: 0; top: 0; border: 0; background: #fff; transform-origin: 0 0; }
.message { position: absolute; inset: 0; z-index: 1; display: flex; align-items: center; justify-content: center;
  padding: 1em; text-align: center; pointer-events: none; }
.message:empty { display: none; }
.bar { display: flex; align-items: center; gap: 6px; padding: 4px 6px; background: #16161a; }
.bar[hidden] { display: none; }
.bar button { display: inline-flex; align-items: center; background: none; border: 0; color: inherit; font-size: 14px;
  cursor: pointer; padding: 2px 4px; }
.bar button svg { display: block; }
.scrub { flex: 1; min-width: 40px; }
.readout { font-variant-numeric: tabular-nums; white-space: nowrap; }
`;

/** Seconds as m:ss.cc, for the time readout. */
export function formatTime(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = seconds - m * 60;
  return `${m}:${s.toFixed(2).padStart(5, '0')}`;
}
