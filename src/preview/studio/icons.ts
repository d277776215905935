import { PLAYER_ICONS } from '../../player/player-icons';

/**
 * The studio's icons, inline SVG in `currentColor` (no icon font: every glyph a page draws must
 * be in the fonts it loads, and these are drawn, not typed). Line icons on a 24-unit grid.
 */
const line = (body: string): string =>
  `<svg viewBox="0 0 24 24" width="1em" height="1em" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">${body}</svg>`;

export const ICONS = {
  ...PLAYER_ICONS,
  logo: `<svg viewBox="0 0 24 24" width="1em" height="1em" aria-hidden="true" focusable="false"><rect x="2" y="4" width="20" height="16" rx="4" fill="currentColor"/><path d="M10 8.6v6.8l5.6-3.4z" fill="var(--logo-cut, #fff)"/></svg>`,
  render: line('<path d="M4 7.5A2.5 2.5 0 0 1 6.5 5h7A2.5 2.5 0 0 1 16 7.5v9a2.5 2.5 0 0 1-2.5 2.5h-7A2.5 2.5 0 0 1 4 16.5z"/><path d="M16 10.5l4-2.5v8l-4-2.5"/>'),
  close: line('<path d="M6 6l12 12M18 6L6 18"/>'),
  download: line('<path d="M12 4v11M7.5 10.5L12 15l4.5-4.5M5 19.5h14"/>'),
  sun: line('<circle cx="12" cy="12" r="4"/><path d="M12 2.5v2M12 19.5v2M2.5 12h2M19.5 12h2M5.3 5.3l1.4 1.4M17.3 17.3l1.4 1.4M5.3 18.7l1.4-1.4M17.3 6.7l1.4-1.4"/>'),
  moon: line('<path d="M20 14.5A8 8 0 0 1 9.5 4a8 8 0 1 0 10.5 10.5z"/>'),
  plus: line('<path d="M12 5v14M5 12h14"/>'),
  duplicate: line('<rect x="8.5" y="8.5" width="11" height="11" rx="2"/><path d="M15.5 8.5V6.5a2 2 0 0 0-2-2h-7a2 2 0 0 0-2 2v7a2 2 0 0 0 2 2h2"/>'),
  trash: line('<path d="M4.5 7h15M9.5 7V5h5v2M6.5 7l1 12.5h9L17.5 7M10.5 11v5M13.5 11v5"/>'),
  save: line('<path d="M5 4.5h11l3 3V19a.5.5 0 0 1-.5.5h-13A.5.5 0 0 1 5 19z"/><path d="M8.5 4.5v4.5h6V4.5M8 19.5v-6h8v6"/>'),
  folder: line('<path d="M3.5 7a2 2 0 0 1 2-2h4l2 2h7a2 2 0 0 1 2 2v8.5a2 2 0 0 1-2 2h-13a2 2 0 0 1-2-2z"/>'),
  chevronRight: line('<path d="M9.5 6l6 6-6 6"/>'),
  enter: line('<path d="M9 5h8.5A1.5 1.5 0 0 1 19 6.5v11a1.5 1.5 0 0 1-1.5 1.5H9"/><path d="M4 12h10M10.5 8.5L14 12l-3.5 3.5"/>'),
  warning: line('<path d="M12 4.5L21 19.5H3z"/><path d="M12 10v4.5M12 17.2v.1"/>'),
  error: line('<circle cx="12" cy="12" r="8.5"/><path d="M12 7.5v5.5M12 16.2v.1"/>'),
  check: line('<path d="M5 12.5l4.5 4.5L19 7.5"/>'),
  layers: line('<path d="M12 4l8.5 4.5L12 13 3.5 8.5z"/><path d="M3.5 12.5L12 17l8.5-4.5M3.5 16.5L12 21l8.5-4.5"/>'),
  film: line('<rect x="3.5" y="4.5" width="17" height="15" rx="2"/><path d="M7.5 4.5v15M16.5 4.5v15M3.5 9.5h4M3.5 14.5h4M16.5 9.5h4M16.5 14.5h4"/>'),
  audio: line('<path d="M4 10v4M8 7v10M12 4v16M16 8v8M20 11v2"/>'),
  image: line('<rect x="3.5" y="4.5" width="17" height="15" rx="2"/><circle cx="9" cy="10" r="1.8"/><path d="M20.5 16l-5-5-9 8.5"/>'),
  box: line('<rect x="4.5" y="4.5" width="15" height="15" rx="2.5"/>'),
  code: line('<path d="M8.5 7L3.5 12l5 5M15.5 7l5 5-5 5"/>'),
  table: line('<rect x="3.5" y="4.5" width="17" height="15" rx="2"/><path d="M3.5 9.5h17M3.5 14.5h17M9.5 9.5v10"/>'),
  timeline: line('<path d="M4 6.5h9M7 12h11M4 17.5h7"/><path d="M16.5 4v5M20 15v5"/>'),
  zoomIn: line('<circle cx="10.5" cy="10.5" r="6.5"/><path d="M15.5 15.5L20 20M8 10.5h5M10.5 8v5"/>'),
  zoomOut: line('<circle cx="10.5" cy="10.5" r="6.5"/><path d="M15.5 15.5L20 20M8 10.5h5"/>'),
  fit: line('<path d="M4 9V5.5A1.5 1.5 0 0 1 5.5 4H9M15 4h3.5A1.5 1.5 0 0 1 20 5.5V9M20 15v3.5a1.5 1.5 0 0 1-1.5 1.5H15M9 20H5.5A1.5 1.5 0 0 1 4 18.5V15"/>'),
  keyboard: line('<rect x="2.5" y="6" width="19" height="12" rx="2"/><path d="M6 10h.01M9.5 10h.01M13 10h.01M16.5 10h.01M8 14h8"/>'),
  arrowLeft: line('<path d="M19 12H5M11 6l-6 6 6 6"/>'),
  arrowRight: line('<path d="M5 12h14M13 6l6 6-6 6"/>'),
  sliders: line('<path d="M5 6h9M18 6h1M5 12h3M12 12h7M5 18h11M20 18h-1"/><circle cx="16" cy="6" r="2"/><circle cx="10" cy="12" r="2"/><circle cx="18" cy="18" r="2"/>'),
  undo: line('<path d="M9 7.5L4.5 12 9 16.5"/><path d="M4.5 12h10a5 5 0 0 1 0 10h-2"/>'),
  redo: line('<path d="M15 7.5l4.5 4.5-4.5 4.5"/><path d="M19.5 12h-10a5 5 0 0 0 0 10h2"/>'),
  variable: line('<path d="M8 4.5c-2 0-2.5 1-2.5 2.5v2.5c0 1.2-.8 2.5-2 2.5 1.2 0 2 1.3 2 2.5V17c0 1.5.5 2.5 2.5 2.5M16 4.5c2 0 2.5 1 2.5 2.5v2.5c0 1.2.8 2.5 2 2.5-1.2 0-2 1.3-2 2.5V17c0 1.5-.5 2.5-2.5 2.5"/><path d="M10 9.5l4 5M14 9.5l-4 5"/>'),
  text: line('<path d="M5 6.5V5h14v1.5M12 5v14M9 19h6"/>'),
  palette: line('<path d="M12 3.5a8.5 8.5 0 1 0 0 17c1.2 0 1.8-.8 1.8-1.7 0-1.4-1.3-1.8-1.3-3 0-1 .8-1.8 1.8-1.8h2.2a4 4 0 0 0 4-4c0-3.7-3.8-6.5-8.5-6.5z"/><circle cx="7.5" cy="11" r="1"/><circle cx="10" cy="7.5" r="1"/><circle cx="14.5" cy="7.5" r="1"/>'),
  queue: line('<path d="M4 6.5h16M4 12h16M4 17.5h10"/>'),
} as const;

export type IconName = keyof typeof ICONS;

/** An icon in a span, sized by the font size around it. */
export function icon(name: IconName, label?: string): HTMLSpanElement {
  const span = document.createElement('span');
  span.className = 'icon';
  span.innerHTML = ICONS[name];
  if (label) {
    span.setAttribute('role', 'img');
    span.setAttribute('aria-label', label);
  }
  return span;
}
