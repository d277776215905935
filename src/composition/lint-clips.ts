import type { HTMLElement } from 'node-html-parser';
import { LintContext, pageFile } from './lint-finding';

/**
 * A `data-start` as the page runtime reads it (docs/guide/hyperframes.md): seconds, or
 * `id`, `id + s`, `id - s`. Null when it is neither.
 */
export interface ClipStart {
  ref: string | null;
  offset: number;
}

const REFERENCE_ID = /^[A-Za-z0-9_.:-]+$/;

export function parseStart(raw: string): ClipStart | null {
  const text = raw.trim();
  if (text === '') return null;
  const n = Number(text);
  if (Number.isFinite(n)) return { ref: null, offset: n };
  if (REFERENCE_ID.test(text)) return { ref: text, offset: 0 };
  const m = /^(.*?)\s*([+-])\s*(\d*\.?\d+)$/.exec(text);
  if (!m || !REFERENCE_ID.test(m[1])) return null;
  return { ref: m[1], offset: (m[2] === '-' ? -1 : 1) * Number(m[3]) };
}

const number = (raw: string | undefined): number | null => {
  if (raw === undefined || raw.trim() === '') return null;
  const n = Number(raw);
  return Number.isFinite(n) ? n : null;
};
const isMedia = (el: HTMLElement) => el.tagName === 'VIDEO' || el.tagName === 'AUDIO';
/** What an image clip without a length lasts, as in HyperFrames. */
const IMAGE_SECONDS = 3;
const RATE_RANGE = [0.1, 10];
const MAX_VOLUME = 3.98;

/**
 * Times known from the markup alone: a clip's start on the root timeline and its length, null
 * where the page decides (a medium's file, a nested composition's timeline, an unknown id).
 */
class StaticTiming {
  private readonly starts = new Map<HTMLElement, number | null>();
  private readonly resolving = new Set<HTMLElement>();

  constructor(
    private readonly root: HTMLElement | null,
    readonly byId: (id: string) => HTMLElement | null,
  ) {}

  start(el: HTMLElement): number | null {
    if (this.starts.has(el)) return this.starts.get(el)!;
    if (this.resolving.has(el)) return null;
    this.resolving.add(el);
    const value = this.computeStart(el);
    this.resolving.delete(el);
    this.starts.set(el, value);
    return value;
  }

  duration(el: HTMLElement): number | null {
    const own = number(el.getAttribute('data-duration'));
    if (own !== null && own > 0) return own;
    const end = number(el.getAttribute('data-end'));
    const start = this.start(el);
    if (end !== null && start !== null && end > start) return end - start;
    return el.tagName === 'IMG' ? IMAGE_SECONDS : null;
  }

  /** Whether the page can know where `el` ends: from its attributes, its medium or its timeline. */
  hasEnd(el: HTMLElement): boolean {
    return this.duration(el) !== null || isMedia(el) || (el.hasAttribute('data-composition-id') && el !== this.root);
  }

  private computeStart(el: HTMLElement): number | null {
    const start = parseStart(el.getAttribute('data-start') ?? '');
    if (start === null) return null;
    const offset = this.compositionOffset(el);
    if (offset === null) return null;
    if (start.ref === null) return offset + Math.max(0, start.offset);
    const ref = this.byId(start.ref);
    if (!ref) return null;
    const [refStart, refDuration] = [this.start(ref), this.duration(ref)];
    return refStart === null || refDuration === null ? null : Math.max(0, refStart + refDuration + start.offset);
  }

  /** Where time 0 of the composition around `el` falls on the root timeline. */
  private compositionOffset(el: HTMLElement): number | null {
    const from = el.hasAttribute('data-composition-id') ? el.parentNode : el;
    const comp = from?.closest('[data-composition-id]') ?? null;
    if (!comp || comp === this.root) return 0;
    const start = this.start(comp);
    const playback = number(comp.getAttribute('data-playback-start')) ?? number(comp.getAttribute('data-media-start')) ?? 0;
    return start === null ? null : start - Math.max(0, playback);
  }
}

/** Clip windows and references, and the attributes of timed media. */
export function lintClips(ctx: LintContext): void {
  // As the page finds a reference: the first element with the id, else the composition named so.
  const ids = new Map<string, HTMLElement>();
  for (const el of ctx.doc.querySelectorAll('[data-composition-id]').reverse()) ids.set(el.getAttribute('data-composition-id')!, el);
  for (const el of ctx.doc.querySelectorAll('[id]').reverse()) ids.set(el.id, el);
  const byId = (id: string): HTMLElement | null => ids.get(id) ?? null;
  const timing = new StaticTiming(ctx.root, byId);
  const inCycle = new Set<HTMLElement>();
  for (const el of ctx.doc.querySelectorAll('[data-start]')) {
    if (el === ctx.root) continue;
    const raw = el.getAttribute('data-start')!;
    const start = parseStart(raw);
    if (start === null) {
      ctx.report({ severity: 'error', rule: 'clip-start-invalid', message: `data-start="${raw}" is neither seconds nor a clip reference (id, id + seconds, id - seconds)`, at: el });
    } else if (start.ref === null && start.offset < 0) {
      ctx.report({ severity: 'error', rule: 'clip-start-invalid', message: `data-start="${raw}" is before the composition starts: a start is 0 seconds or more`, at: el });
    } else if (start.ref !== null) {
      lintReference(ctx, el, raw, start.ref, timing, inCycle);
    }
    lintWindow(ctx, el, timing);
    if (isMedia(el)) lintMedia(ctx, el);
  }
  for (const el of ctx.doc.querySelectorAll('[data-duration], [data-end]')) {
    if (el === ctx.root || el.hasAttribute('data-start') || el.hasAttribute('data-composition-id')) continue;
    ctx.report({
      severity: 'warning',
      rule: 'timing-without-start',
      message: `<${el.rawTagName}> has ${el.hasAttribute('data-duration') ? 'data-duration' : 'data-end'} but no data-start: only an element with data-start is a clip, so it shows all the time`,
      at: el,
    });
  }
  lintSources(ctx);
}

function lintReference(ctx: LintContext, el: HTMLElement, raw: string, ref: string, timing: StaticTiming, inCycle: Set<HTMLElement>): void {
  const target = timing.byId(ref);
  if (!target) {
    ctx.report({ severity: 'error', rule: 'clip-reference-unknown', message: `data-start="${raw}" names "${ref}", but no element has that id or data-composition-id: the clip starts with its composition`, at: el });
    return;
  }
  // Follow the chain of references from here; a way back to `el` is a cycle.
  const chain = [el];
  for (let next: HTMLElement | null = target; next; ) {
    if (next === el) {
      if (!chain.some((c) => inCycle.has(c))) {
        chain.forEach((c) => inCycle.add(c));
        const names = [...chain, el].map((c) => c.id || c.getAttribute('data-composition-id') || `<${c.rawTagName}>`);
        ctx.report({ severity: 'error', rule: 'clip-reference-cycle', message: `relative starts form a cycle (${names.join(' → ')}): the clips in it start with their composition`, at: el });
      }
      return;
    }
    if (chain.includes(next)) return;
    chain.push(next);
    const nextStart = parseStart(next.getAttribute('data-start') ?? '');
    next = nextStart?.ref ? timing.byId(nextStart.ref) : null;
  }
  if (!timing.hasEnd(target)) {
    ctx.report({
      severity: 'error',
      rule: 'clip-reference-no-end',
      message: `data-start="${raw}" starts at the end of "${ref}", which has no end (no data-duration or data-end, not a medium, image or nested composition): give "${ref}" a data-duration`,
      at: el,
    });
  }
}

function lintWindow(ctx: LintContext, el: HTMLElement, timing: StaticTiming): void {
  const durationRaw = el.getAttribute('data-duration');
  const duration = number(durationRaw);
  if (durationRaw !== undefined && !(duration !== null && duration > 0)) {
    ctx.report({ severity: 'error', rule: 'clip-duration-invalid', message: `data-duration="${durationRaw}" is not a positive number of seconds: it is ignored`, at: el });
  }
  const endRaw = el.getAttribute('data-end');
  if (endRaw !== undefined) {
    const end = number(endRaw);
    const start = timing.start(el);
    if (end === null) {
      ctx.report({ severity: 'error', rule: 'clip-end-invalid', message: `data-end="${endRaw}" is not a number of seconds: it is ignored`, at: el });
    } else if (duration !== null && duration > 0) {
      ctx.report({ severity: 'warning', rule: 'clip-duration-and-end', message: `both data-duration="${durationRaw}" and data-end="${endRaw}": data-duration wins and data-end is ignored; keep one`, at: el });
    } else if (start !== null && end <= start) {
      ctx.report({ severity: 'error', rule: 'clip-end-before-start', message: `data-end="${endRaw}" is not after the clip's start (${start} s): it is ignored, and the clip stays shown to the end`, at: el });
    }
  }
  const start = timing.start(el);
  if (ctx.durationSeconds !== undefined && start !== null && start >= ctx.durationSeconds) {
    ctx.report({ severity: 'warning', rule: 'clip-after-end', message: `starts at ${start} s, at or after the composition's end (data-duration ${ctx.durationSeconds} s): it is never shown`, at: el });
  }
}

function lintMedia(ctx: LintContext, el: HTMLElement): void {
  const tag = `<${el.rawTagName}${el.id ? ` id="${el.id}"` : ''}>`;
  for (const attr of ['data-media-start', 'data-playback-start']) {
    const raw = el.getAttribute(attr);
    if (raw === undefined) continue;
    const n = number(raw);
    if (n === null || n < 0) ctx.report({ severity: 'error', rule: 'media-start-invalid', message: `${attr}="${raw}" is not a number of seconds, 0 or more: it plays from the source's start`, at: el });
  }
  const rateRaw = el.getAttribute('data-playback-rate');
  if (rateRaw !== undefined) {
    const rate = number(rateRaw);
    if (rate === null || rate <= 0) {
      ctx.report({ severity: 'error', rule: 'media-rate-invalid', message: `data-playback-rate="${rateRaw}" is not a positive number: it plays at its own rate`, at: el });
    } else if (rate < RATE_RANGE[0] || rate > RATE_RANGE[1]) {
      ctx.report({ severity: 'warning', rule: 'media-rate-range', message: `data-playback-rate="${rateRaw}" is outside ${RATE_RANGE[0]} to ${RATE_RANGE[1]}: it plays at ${Math.min(RATE_RANGE[1], Math.max(RATE_RANGE[0], rate))}`, at: el });
    }
  }
  const volumeRaw = el.getAttribute('data-volume');
  if (volumeRaw !== undefined) {
    const volume = number(volumeRaw);
    if (volume === null) {
      ctx.report({ severity: 'error', rule: 'media-volume-invalid', message: `data-volume="${volumeRaw}" is not a number: it is ignored`, at: el });
    } else if (volume < 0 || volume > MAX_VOLUME) {
      ctx.report({ severity: 'warning', rule: 'media-volume-range', message: `data-volume="${volumeRaw}" is outside 0 to ${MAX_VOLUME} (+12 dB): it plays at ${Math.min(MAX_VOLUME, Math.max(0, volume))}`, at: el });
    }
  }
  if (!el.hasAttribute('data-duration') && !el.hasAttribute('data-end')) {
    ctx.report({
      severity: 'warning',
      rule: 'media-no-duration',
      message: `${tag} has data-start but no data-duration or data-end: it plays until its source ends, a length known only from the file (and what starts after it, or the composition's inferred length, moves with it); set data-duration`,
      at: el,
    });
  }
}

/**
 * Files the page names in `src` that a render cannot serve: not in the project, outside it, or
 * behind a dotfile (the project server's own rule). Remote, data: and blob: URLs are left alone,
 * and so is a `src` that a variable replaces (`data-var-src`).
 */
function lintSources(ctx: LintContext): void {
  for (const el of ctx.doc.querySelectorAll('img[src], video[src], audio[src], source[src], iframe[src], script[src]')) {
    if (el.hasAttribute('data-var-src')) continue;
    const src = el.getAttribute('src')!.trim();
    if (src === '' || pageFile(ctx.projectDir, ctx.file, src) !== undefined) continue;
    ctx.report({
      severity: 'error',
      rule: 'source-missing',
      message: `<${el.rawTagName}> src="${src}" is not a file of the project directory (or lies outside it, or behind a dotfile), so it fails to load`,
      at: el,
    });
  }
}
