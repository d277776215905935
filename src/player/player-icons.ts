/**
 * The player's icons as inline SVG drawn in `currentColor`: a symbol character would need a font
 * that has it (the transport symbols ⏮ ⏭ are missing from most, and draw as empty boxes).
 */
const svg = (body: string): string =>
  `<svg viewBox="0 0 24 24" width="1em" height="1em" fill="currentColor" aria-hidden="true" focusable="false">${body}</svg>`;

export const PLAYER_ICONS = {
  play: svg('<path d="M7 4.6v14.8a.8.8 0 0 0 1.2.7l11.6-7.4a.8.8 0 0 0 0-1.4L8.2 3.9a.8.8 0 0 0-1.2.7z"/>'),
  pause: svg('<rect x="6" y="4.5" width="4.2" height="15" rx="1"/><rect x="13.8" y="4.5" width="4.2" height="15" rx="1"/>'),
  stepBack: svg('<rect x="4.5" y="5" width="2.6" height="14" rx="1"/><path d="M19.5 5.8v12.4a.8.8 0 0 1-1.2.7L9.4 12.7a.8.8 0 0 1 0-1.4l8.9-6.2a.8.8 0 0 1 1.2.7z"/>'),
  stepForward: svg('<rect x="16.9" y="5" width="2.6" height="14" rx="1"/><path d="M4.5 5.8v12.4a.8.8 0 0 0 1.2.7l8.9-6.2a.8.8 0 0 0 0-1.4L5.7 5.1a.8.8 0 0 0-1.2.7z"/>'),
} as const;
