import type { Page } from 'puppeteer-core';
import { decodeImageRgb } from './media';

/**
 * Adds a `<vidkit-player>` of the preview server's composition (the page must be the preview
 * page, which loads the player) at `width`×`height`, with `attributes`; resolves once it is ready.
 */
export async function addPlayer(page: Page, id: string, attributes: Record<string, string>, width: number, height: number): Promise<void> {
  await page.evaluate(
    (id, attributes, w, h) =>
      new Promise<void>((resolve, reject) => {
        const p = document.createElement('vidkit-player');
        p.id = id;
        p.setAttribute('src', '/index.html');
        p.setAttribute('width', String(w));
        p.setAttribute('height', String(h));
        for (const [name, value] of Object.entries(attributes)) p.setAttribute(name, value);
        p.addEventListener('ready', () => resolve(), { once: true });
        p.addEventListener('error', (e) => reject(new Error((e as unknown as CustomEvent<{ message: string }>).detail.message)), { once: true });
        document.body.append(p);
      }),
    id,
    attributes,
    width,
    height,
  );
}

/** Seeks the player `id` to `frame` (at `fps`) and returns its screen's pixels, by way of the PNG `file`. */
export async function playerFrame(page: Page, id: string, frame: number, fps: number, file: string): Promise<Buffer> {
  await page.evaluate((id, s) => (document.getElementById(id) as unknown as { seek(s: number): Promise<void> }).seek(s), id, frame / fps);
  const clip = await page.evaluate((id) => {
    const r = document.getElementById(id)!.shadowRoot!.querySelector('.screen')!.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  }, id);
  await page.screenshot({ path: file as `${string}.png`, clip });
  return decodeImageRgb(file);
}
