import type { VidkitPlayer } from '../../player/vidkit-player';

/**
 * The document of the frame the player shows: the visible iframe of its (open) shadow root, a
 * same-origin srcdoc page. Null while none is shown. Read only to find what the author clicked or
 * dragged; the studio edits the file, never this page.
 */
export function shownDocument(player: VidkitPlayer): { doc: Document; frame: HTMLIFrameElement } | null {
  const frame = [...(player.shadowRoot?.querySelectorAll('iframe') ?? [])].find((f) => f.style.visibility === 'visible');
  const doc = frame?.contentDocument;
  return frame && doc ? { doc, frame } : null;
}

/** The composition root as the runtime picks it (timing.ts, compositionRoot). */
export function rootOf(doc: Document): HTMLElement | null {
  return doc.querySelector<HTMLElement>('[data-composition-id][data-root="true"]') ?? doc.querySelector<HTMLElement>('[data-composition-id]');
}

const NOT_A_CLIP = new Set(['SCRIPT', 'STYLE', 'LINK', 'META', 'TEMPLATE']);

/** The element of the clip `index` of player.clips(), listed as the runtime lists them (timing.ts, clipList). */
export function clipElement(doc: Document, index: number): Element | undefined {
  const root = rootOf(doc);
  return [...doc.querySelectorAll('[data-start], [data-composition-id]')].filter((el) => el !== root && !NOT_A_CLIP.has(el.tagName))[index];
}
