import { HTMLElement, parse } from 'node-html-parser';
import { badInput } from '../errors';
import { scopeCss } from './css-scope';
import { mergeVariables, parseDeclarationSources } from './variables';

/**
 * Reads a file of the project by its path from the project root (`/` separators); undefined when
 * there is no such file.
 */
export type ProjectReader = (file: string) => string | undefined;

/**
 * Mounts a page's sub-compositions (docs/guide/hyperframes.md), once, for every caller:
 * the project server passes every HTML page it serves through here (render, preview, cloud
 * chunks, template renders), and the player passes pages it fetched from elsewhere (a template's
 * static files) through it too. No Node imports: the player bundle includes it.
 *
 * A host is an element with `data-composition-src` (a project file, from the project root, whose
 * `<template>` holds the composition; without one, its body), or a childless element whose
 * `data-composition-id` names an inline `template#<id>-template`. Each instance gets a unique
 * data-composition-id on its host (the host's own, else the composition's, `__hfN` added when
 * taken), its styles scoped to the host, and its scripts moved to the end of the body, wrapped so
 * that they see the instance's own document, gsap, `__timelines` and variables (defaults declared
 * by the composition, under the host's `data-variable-values`). Mounted content is searched for
 * hosts again, to any depth. A page that is itself a composition file (its root inside a
 * `<template>`) is unwrapped so that it renders standalone.
 */
export function mountSubCompositions(html: string, page: string, read: ProjectReader): string {
  if (!/data-composition-src|<template/i.test(html)) return html;
  const doc = parse(html, { comment: true });
  const mounter = new Mounter(doc, page, read);
  const changed = mounter.mountAll();
  return changed ? doc.toString() : html;
}

/** A host a page script added after the project server mounted the page, mounted alone. */
export interface LateMount {
  /** The host, filled: its element's HTML. */
  html: string;
  /** The instance scripts (wrapped as in a served page), to run in order once the host is in place. */
  scripts: string[];
}

/**
 * Mounts the one host in `hostHtml` (an element with `data-composition-src` a page script added to
 * the page `page` after it was served), as {@link mountSubCompositions} mounts those of a served
 * page: HyperFrames mounts every host present when its runtime starts, whoever added it. `taken`
 * are the composition ids the page already uses, which the instance's id must not repeat.
 */
export function mountLateHost(hostHtml: string, page: string, read: ProjectReader, taken: readonly string[]): LateMount {
  const doc = parse(`<body>${hostHtml}</body>`, { comment: true });
  const body = doc.querySelector('body') ?? doc;
  const host = body.childNodes.find((n): n is HTMLElement => n instanceof HTMLElement);
  if (!host || !host.hasAttribute('data-composition-src') || body.childNodes.some((n) => n !== host && n.nodeType === 1)) {
    throw badInput(`${page}: a late sub-composition must be one element with data-composition-src`);
  }
  const mounter = new Mounter(doc, page, read);
  for (const id of taken) mounter.take(id);
  return { html: mounter.mountLate(host), scripts: mounter.instanceScripts() };
}

const HOST_SELECTOR = '[data-composition-src], [data-composition-id]';

/**
 * Whether `el` is filled with a sub-composition: it has `data-composition-src`, or it is childless
 * and its `data-composition-id` names an inline `template#<id>-template` of `doc`.
 */
export function isHost(el: HTMLElement, doc: HTMLElement): boolean {
  if (el.hasAttribute('data-composition-src')) return true;
  const id = el.getAttribute('data-composition-id');
  return id !== undefined && el.childNodes.every((n) => n.nodeType !== 1) && inlineTemplate(doc, id) !== undefined;
}

/** Whether `el` is inside a `<template>` (markup waiting to be mounted, not yet part of the page). */
export function insideTemplate(el: HTMLElement): boolean {
  for (let p = el.parentNode; p; p = p.parentNode) if (p.rawTagName?.toLowerCase() === 'template') return true;
  return false;
}

function inlineTemplate(doc: HTMLElement, id: string): HTMLElement | undefined {
  return doc.querySelectorAll('template').find((t) => t.getAttribute('id') === `${id}-template`);
}

const SCRIPT_TYPES = new Set(['', 'text/javascript', 'application/javascript']);

function classicScript(script: HTMLElement): boolean {
  return SCRIPT_TYPES.has((script.getAttribute('type') ?? '').trim().toLowerCase());
}

class Mounter {
  private readonly used = new Set<string>();
  private readonly scripts: string[] = [];
  /**
   * External classic scripts the page has already, or an earlier instance brought, by URL: as in
   * HyperFrames, an instance's `<script src>` loads only when no script with that URL came before.
   * Loading GSAP again from each scene would give each scene its own GSAP, whose tweens no longer
   * see each other's pending renders (a `from` tween on an element another scene tweens would
   * start from a different value than in the peer).
   */
  private readonly loadedScripts = new Set<string>();
  /** Inline templates a host used: removed once mounted, the others stay. */
  private readonly usedTemplates = new Set<HTMLElement>();
  private readonly pageDir: string;

  constructor(
    private readonly doc: HTMLElement,
    private readonly where: string,
    private readonly read: ProjectReader,
  ) {
    this.pageDir = dirOf(where);
  }

  mountAll(): boolean {
    const unwrapped = this.unwrapStandalone();
    const hosts = this.hostsIn(this.doc);
    if (hosts.length === 0) return unwrapped;
    for (const el of this.doc.querySelectorAll('[data-composition-id]')) {
      if (!hosts.includes(el) && !insideTemplate(el)) this.used.add(el.getAttribute('data-composition-id') ?? '');
    }
    for (const script of this.doc.querySelectorAll('script[src]')) {
      if (!insideTemplate(script) && classicScript(script)) this.loadedScripts.add(this.scriptUrl(script.getAttribute('src') ?? ''));
    }
    for (const host of hosts) this.mount(host, []);
    for (const template of this.usedTemplates) template.remove();
    const body = this.doc.querySelector('body') ?? this.doc;
    body.insertAdjacentHTML('beforeend', this.scripts.join(''));
    return true;
  }

  /** Keeps `id` from being given to an instance (a late host's page already uses it). */
  take(id: string): void {
    this.used.add(id);
  }

  /** Mounts `host` (and what it nests); its HTML, filled. */
  mountLate(host: HTMLElement): string {
    this.mount(host, []);
    return host.toString();
  }

  instanceScripts(): string[] {
    return [...this.scripts];
  }

  /** A composition file opened as a page: its template's content takes the template's place. */
  private unwrapStandalone(): boolean {
    const outside = this.doc.querySelectorAll('[data-composition-id]').some((el) => !insideTemplate(el));
    if (outside) return false;
    const template = this.doc.querySelectorAll('template').find((t) => t.querySelector('[data-composition-id]'));
    if (!template) return false;
    template.replaceWith(template.innerHTML);
    return true;
  }

  private hostsIn(scope: HTMLElement): HTMLElement[] {
    return scope.querySelectorAll(HOST_SELECTOR).filter((el) => !insideTemplate(el) && isHost(el, this.doc));
  }

  private mount(host: HTMLElement, chain: string[]): void {
    const source = this.source(host, chain);
    const content = parse(source.markup, { comment: true });
    const root = content.querySelectorAll('[data-composition-id]').find((el) => !insideTemplate(el));
    const compositionId = root?.getAttribute('data-composition-id');
    const hostId = host.getAttribute('data-composition-id');
    // As in HyperFrames, the root takes its data-width × data-height only when the host names the
    // same composition (or none); under another name it is sized by its CSS alone.
    const sized = !hostId || hostId === compositionId;
    const id = this.uniqueId(hostId || compositionId || 'composition');
    host.setAttribute('data-composition-id', id);
    // Where the content came from, for the preview's timeline to place each clip at its line.
    host.setAttribute('data-vidkit-source', source.file ?? `${this.where}#${hostId}-template`);
    // A host that named no composition has no timeline length in HyperFrames: without a
    // data-duration it stays shown to the end of the composition around it (the runtime's timing).
    if (!hostId) host.setAttribute('data-vidkit-unnamed-host', '');
    host.removeAttribute('data-composition-src');

    const declarations = parseDeclarationSources([source.declared, root?.getAttribute('data-composition-variables')], source.where);
    const variables = mergeVariables(declarations, this.hostValues(host));
    if (root) {
      root.removeAttribute('data-composition-id');
      root.removeAttribute('data-composition-variables');
      root.setAttribute('data-vidkit-root', id);
      if (sized) root.setAttribute('style', `${sizeStyle(root)}${root.getAttribute('style') ?? ''}`);
    }
    const cssFromPage = source.file ? this.rewritePaths(content, dirOf(source.file)) : (css: string) => css;

    const scope = { host: `[data-composition-id="${id}"]`, root: `[data-vidkit-root="${id}"]`, compositionId, rootDomId: root?.getAttribute('id') };
    // rawText: a style's or script's text is not HTML, its entities stay as written.
    const styles = [...source.headStyles, ...content.querySelectorAll('style').map((s) => (s.remove(), s.rawText))].map(cssFromPage);
    const scripts = [...source.headScripts, ...content.querySelectorAll('script')];
    for (const script of scripts) {
      script.remove();
      const wrapped = this.instanceScript(script, id, compositionId, variables);
      if (wrapped) this.scripts.push(wrapped);
    }
    host.set_content(content.toString());
    if (styles.length > 0) host.insertAdjacentHTML('afterbegin', `<style>${scopeCss(styles.join('\n'), scope)}</style>`);
    const next = source.file ? [...chain, source.file] : chain;
    for (const inner of this.hostsIn(host)) this.mount(inner, next);
  }

  private source(host: HTMLElement, chain: string[]): Source {
    const src = host.getAttribute('data-composition-src');
    if (src === undefined) {
      const template = inlineTemplate(this.doc, host.getAttribute('data-composition-id') ?? '');
      if (template) this.usedTemplates.add(template);
      return { markup: template?.innerHTML ?? '', where: this.where, headStyles: [], headScripts: [] };
    }
    const file = compositionSrcFile(src);
    const text = this.read(file);
    if (text === undefined) {
      throw badInput(`${this.where}: data-composition-src="${src}" names no file in the project (paths are from the project root, e.g. compositions/scene.html)`);
    }
    if (chain.includes(file)) throw badInput(`${file}: includes itself through data-composition-src (${[...chain, file].join(' → ')})`);
    const sub = parse(text, { comment: true });
    const template = sub.querySelector('template');
    const head = sub.querySelector('head');
    return {
      file,
      where: file,
      markup: (template ?? sub.querySelector('body') ?? sub).innerHTML,
      declared: sub.querySelector('html')?.getAttribute('data-composition-variables'),
      headStyles: head?.querySelectorAll('style').map((s) => s.rawText) ?? [],
      headScripts: head?.querySelectorAll('script') ?? [],
    };
  }

  private hostValues(host: HTMLElement): Record<string, unknown> {
    const raw = host.getAttribute('data-variable-values');
    if (raw === undefined || raw.trim() === '') return {};
    let values: unknown;
    try {
      values = JSON.parse(raw);
    } catch {
      throw badInput(`${this.where}: data-variable-values of "${host.getAttribute('data-composition-id') ?? host.getAttribute('data-composition-src')}" is not JSON: ${raw}`);
    }
    if (typeof values !== 'object' || values === null || Array.isArray(values)) {
      throw badInput(`${this.where}: data-variable-values must be a JSON object of variable values, got ${raw}`);
    }
    return values as Record<string, unknown>;
  }

  private uniqueId(wanted: string): string {
    let id = wanted;
    for (let n = 1; this.used.has(id); n++) id = `${wanted}__hf${n}`;
    this.used.add(id);
    return id;
  }

  private instanceScript(script: HTMLElement, id: string, compositionId: string | undefined, variables: Record<string, unknown>): string {
    const src = script.getAttribute('src');
    const classic = classicScript(script);
    // External and module scripts run as the page's own (a classic one once per URL: none when
    // the page or an earlier instance loads it), data blocks stay data; classic inline scripts
    // see the instance's scope.
    if (src !== undefined) return classic && !this.firstLoadOf(src) ? '' : script.toString();
    if (!classic) return script.toString();
    const json = (value: unknown) => JSON.stringify(value ?? null).replace(/</g, '\\u003c');
    return (
      `<script>window.__vidkitSubComposition(${json(id)}, ${json(compositionId)}, ${json(variables)}, ` +
      `function (window, document, gsap, __timelines, __hyperframes, __hfVariables) {\n${script.rawText}\n});</script>`
    );
  }

  /** Whether no script with the URL of `src` came before; from now on, one has. */
  private firstLoadOf(src: string): boolean {
    const url = this.scriptUrl(src);
    if (this.loadedScripts.has(url)) return false;
    this.loadedScripts.add(url);
    return true;
  }

  /** A script's `src` (as it reads from the page) as an absolute URL, to compare with others. */
  private scriptUrl(src: string): string {
    try {
      return new URL(src.trim(), BASE + (this.pageDir === '' ? '' : `${this.pageDir}/`)).href;
    } catch {
      return src.trim();
    }
  }

  /**
   * Paths in a composition file: `./` and `../` are from the file's folder, others from the
   * project root (as HyperFrames reads them); both rewritten to resolve from the page, in
   * attributes here and, by the function returned, in style sheets.
   */
  private rewritePaths(content: HTMLElement, fileDir: string): (css: string) => string {
    const fromPage = (value: string): string => {
      const v = value.trim();
      if (v === '' || /^([a-z][a-z\d+.-]*:|\/\/|\/|#)/i.test(v)) return value;
      return relativeTo(this.pageDir, resolveIn(/^\.\.?\//.test(v) ? fileDir : '', v));
    };
    for (const el of content.querySelectorAll('[src], [href], [poster]')) {
      for (const name of ['src', 'href', 'poster']) {
        const value = el.getAttribute(name);
        if (value !== undefined) el.setAttribute(name, fromPage(value));
      }
    }
    const cssUrls = (css: string) => css.replace(/url\(\s*(["']?)([^)"']+)\1\s*\)/g, (_m, q: string, url: string) => `url(${q}${fromPage(url)}${q})`);
    for (const el of content.querySelectorAll('[style]')) el.setAttribute('style', cssUrls(el.getAttribute('style') ?? ''));
    return cssUrls;
  }
}

interface Source {
  /** The composition file; undefined for an inline template. */
  file?: string;
  where: string;
  markup: string;
  /** `data-composition-variables` of the file's `<html>`. */
  declared?: string;
  headStyles: string[];
  headScripts: HTMLElement[];
}

const BASE = 'http://project/';

/** The project file a host's `data-composition-src` names: a path from the project root. */
export function compositionSrcFile(src: string): string {
  return resolveIn('', src);
}

/** The project path that `ref` names from the folder `dir` (both project paths, '' the root). */
function resolveIn(dir: string, ref: string): string {
  const url = new URL(ref.trim().replace(/^\/+/, ''), BASE + (dir === '' ? '' : `${dir}/`));
  return decodeURIComponent(url.pathname.slice(1)) + url.search + url.hash;
}

function dirOf(file: string): string {
  const slash = file.lastIndexOf('/');
  return slash < 0 ? '' : file.slice(0, slash);
}

/** `target` (a project path) as a path relative to the folder `dir`. */
function relativeTo(dir: string, target: string): string {
  const from = dir === '' ? [] : dir.split('/');
  const to = target.split('/');
  let common = 0;
  while (common < from.length && common < to.length - 1 && from[common] === to[common]) common++;
  return [...from.slice(common).map(() => '..'), ...to.slice(common)].join('/');
}

/** The root's data-width × data-height in pixels, each filling the host where not given. */
function sizeStyle(root: HTMLElement): string {
  const px = (name: string) => {
    const n = Number(root.getAttribute(name));
    return root.hasAttribute(name) && Number.isFinite(n) && n > 0 ? `${n}px` : '100%';
  };
  return `width: ${px('data-width')}; height: ${px('data-height')};`;
}
