import { DeclarationSet, Overrides, mergeVariables, parseDeclarationSources } from '../composition/variables';
import { ROOT_SELECTORS, framesForDuration } from '../composition/root';
import { mountSubCompositions } from '../composition/sub-compositions';
import { Determinism, fontsStylesheetUrl, runtimeBoot } from '../runtime/boot';

/** Defined at build time (scripts/build-browser.mjs): the page runtime, as src/runtime/runtime.ts joins it. */
declare const VIDKIT_PAGE_RUNTIME: string;

/** What the player needs to know about a composition before showing it. */
export interface CompositionDocument {
  url: string;
  html: string;
  width: number;
  height: number;
  /** The root's data-duration; undefined until the loaded page tells the length it infers. */
  durationSeconds?: number;
  fps: number;
  /** 0 until the length is known. */
  totalFrames: number;
  variables: DeclarationSet;
}

const DEFAULT_FPS = 30;

/** Fetches the composition page and reads its root the way the renderer does: its root and variable declarations. */
export async function fetchComposition(url: string): Promise<CompositionDocument> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const html = await mountFetched(await response.text(), url);
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const root = doc.querySelector(ROOT_SELECTORS[0]) ?? doc.querySelector(ROOT_SELECTORS[1]);
  if (!root) throw new Error(`${url}: no composition root (an element with data-composition-id)`);
  const number = (name: string, fallback?: number): number => {
    const raw = root.getAttribute(name);
    const n = raw === null ? fallback : Number(raw);
    if (n === undefined || !Number.isFinite(n) || n <= 0) throw new Error(`${url}: ${name} must be a positive number, got "${raw ?? ''}"`);
    return n;
  };
  const width = number('data-width');
  const height = number('data-height');
  const durationSeconds = root.hasAttribute('data-duration') ? number('data-duration') : undefined;
  const fps = number('data-fps', DEFAULT_FPS);
  const declarers = [doc.documentElement, ...Array.from(doc.querySelectorAll('[data-composition-variables]')).filter((el) => el !== doc.documentElement)];
  const variables = parseDeclarationSources(
    declarers.map((el) => el.getAttribute('data-composition-variables') ?? undefined),
    url,
  );
  const comp: CompositionDocument = { url, html, width, height, fps, totalFrames: 0, variables };
  return durationSeconds === undefined ? comp : withDuration(comp, durationSeconds);
}

/**
 * The page with its sub-compositions mounted by the transform the project server runs (a page
 * that server served has none left): for pages served by anything else, a template's static
 * files. The project root is the page's folder; each composition file is fetched once, one level
 * of nesting a pass.
 */
async function mountFetched(html: string, url: string): Promise<string> {
  const root = new URL('.', url);
  const page = decodeURIComponent(new URL(url).pathname.split('/').pop() || 'index.html');
  const files = new Map<string, string | undefined>();
  for (;;) {
    const wanted: string[] = [];
    try {
      return mountSubCompositions(html, page, (file) => {
        if (!files.has(file)) wanted.push(file);
        return files.get(file);
      });
    } catch (err) {
      if (wanted.length === 0) throw err;
    }
    await Promise.all(
      wanted.map(async (file) => {
        const response = await fetch(new URL(file, root));
        files.set(file, response.ok ? await response.text() : undefined);
      }),
    );
  }
}

/** The composition with its length known: declared, or as its page inferred it. */
export function withDuration(comp: CompositionDocument, durationSeconds: number): CompositionDocument {
  if (!(durationSeconds > 0)) throw new Error(`${comp.url}: the composition root has no data-duration, and the page gives no length to infer it from`);
  return { ...comp, durationSeconds, totalFrames: Math.max(1, framesForDuration(durationSeconds, comp.fps)) };
}

/**
 * The page as the iframe loads it: a base URL so relative assets resolve against the original
 * location, then the same boot configuration (seed and epoch included) and runtime the renderer
 * injects, ahead of every page script. Script errors are collected so the player can report them.
 */
export function playableHtml(comp: CompositionDocument, overrides: Overrides, determinism: Determinism, muted: boolean): string {
  const boot = { ...runtimeBoot(mergeVariables(comp.variables, overrides), overrides, comp.fps, determinism), fontsUrl: fontsStylesheetUrl(comp.url) };
  // `<` escaped so a value holding "</script>" cannot end the script early.
  const bootJson = JSON.stringify(boot).replace(/</g, '\\u003c');
  const head =
    `<base href="${escapeAttribute(comp.url)}">` +
    `<script>window.__vidkitErrors = [];` +
    `window.addEventListener('error', function (e) { window.__vidkitErrors.push(e.message); });` +
    MUTE_MEDIA.replace('MUTED', String(muted)) +
    `window.__vidkitBoot = ${bootJson};\n${VIDKIT_PAGE_RUNTIME}</script>`;
  const headTag = /<head\b[^>]*>/i.exec(comp.html);
  if (headTag) return insertAt(comp.html, headTag.index + headTag[0].length, head);
  const htmlTag = /<html\b[^>]*>/i.exec(comp.html);
  if (htmlTag) return insertAt(comp.html, htmlTag.index + htmlTag[0].length, `<head>${head}</head>`);
  return head + comp.html;
}

/**
 * While `window.__vidkitMuted` is set (the player's `muted`), every media element is muted as soon
 * as the page inserts it, before it can start to play; otherwise it keeps its own `muted` attribute.
 */
const MUTE_MEDIA =
  `window.__vidkitMuted = MUTED;` +
  `window.__vidkitApplyMuted = function () { document.querySelectorAll('video, audio').forEach(function (m) { m.muted = window.__vidkitMuted || m.defaultMuted; }); };` +
  `new MutationObserver(window.__vidkitApplyMuted).observe(document, { subtree: true, childList: true });`;

function insertAt(s: string, index: number, text: string): string {
  return s.slice(0, index) + text + s.slice(index);
}

function escapeAttribute(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
