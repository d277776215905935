/** Children of {@link h}: nodes, text, and nothing (null, undefined, false are left out). */
export type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  /** Attributes, set as given; `true` sets an empty one, `false` or undefined none. */
  attrs?: Record<string, string | number | boolean | undefined>;
  /** Event listeners by event name. */
  on?: Record<string, (event: Event) => void>;
  /** Markup to set instead of children: used for the icons only, which are our own text. */
  html?: string;
}

/** Makes an element: `h('button', { class: 'primary', on: { click } }, 'Render')`. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props.class) el.className = props.class;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (value === true) el.setAttribute(name, '');
    else if (value !== false && value !== undefined) el.setAttribute(name, String(value));
  }
  for (const [name, listener] of Object.entries(props.on ?? {})) el.addEventListener(name, listener);
  if (props.html !== undefined) el.innerHTML = props.html;
  else el.append(...present(...children));
  return el;
}

/** The children given, nothing left out: for `replaceChildren` of a list with optional parts. */
export function present(...children: Child[]): Array<Node | string> {
  return children.filter((c): c is Node | string | number => c !== null && c !== undefined && c !== false).map((c) => (typeof c === 'number' ? String(c) : c));
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the studio page has no #${id}`);
  return el as T;
}

/** Bytes as people read them: 1.2 MB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Seconds as m:ss.cc. */
export function formatSeconds(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = seconds - m * 60;
  return `${m}:${s.toFixed(2).padStart(5, '0')}`;
}
