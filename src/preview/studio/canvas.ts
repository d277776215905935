import { getJson } from './api';
import { byId, h } from './dom';
import type { Editor } from './editor';
import { icon } from './icons';
import { rootOf, shownDocument } from './player-document';
import type { Studio } from './studio-state';
import { toHexColor } from './variable-controls';

/** Tags the canvas never picks: they draw nothing of their own. */
const NOT_PICKED = new Set(['SCRIPT', 'STYLE', 'LINK', 'META', 'TEMPLATE', 'BR']);

type Path = Array<[string, number]>;

/**
 * Edits on the canvas (the player's picture): a click picks the element under the pointer
 * (outlined, its file and line shown); dragging the outline moves it, its corner handle resizes
 * it, a double-click (or Enter) edits its text in place, and the bar under the picture makes its
 * text, source or colour a variable. Position and size go to the element's inline style (left and
 * top when it is positioned, else translate; width and height), written to the page's file by the
 * editor. From the keyboard: Enter on the canvas picks the next element (Shift: the one before),
 * arrows move the one picked a pixel (Shift: 10), Alt+arrows resize it, Escape lets it go.
 */
export function canvasEditing(studio: Studio, editor: Editor): void {
  const { player } = studio;
  const stage = byId('stage');
  const layer = byId('canvas-layer');
  const bar = byId('selection-bar');
  const handle = h('div', { class: 'resize-handle', attrs: { title: 'Drag to resize' } });
  const box = h('div', { class: 'selection', attrs: { tabindex: 0, role: 'group' } }, handle);
  layer.append(box);
  box.hidden = true;

  let path: Path | null = null;
  let where = '';
  let varId = '';

  /** The player's picture: its frame, its document and the scale it is drawn at. */
  const view = () => {
    const found = shownDocument(player);
    if (!found) return null;
    const r = found.frame.getBoundingClientRect();
    const width = Number(found.frame.width) || r.width;
    return { ...found, rect: r, scale: r.width / width };
  };

  const selected = (): HTMLElement | null => {
    const v = view();
    const root = v && rootOf(v.doc);
    if (!root || !path) return null;
    let at: Element = root;
    for (const [tag, n] of path) {
      const next = [...at.children].filter((c) => c.tagName.toLowerCase() === tag)[n];
      if (!next) return null;
      at = next;
    }
    return at as HTMLElement;
  };

  /** The layer over the player's screen, the outline over the element picked. */
  const place = () => {
    const s = stage.getBoundingClientRect();
    const p = player.getBoundingClientRect();
    Object.assign(layer.style, { left: `${p.left - s.left}px`, top: `${p.top - s.top}px`, width: `${p.width}px`, height: `${p.height}px` });
    const el = selected();
    const v = view();
    box.hidden = !el || !v;
    if (!el || !v) return;
    const r = el.getBoundingClientRect();
    Object.assign(box.style, {
      left: `${v.rect.left - p.left + r.left * v.scale}px`,
      top: `${v.rect.top - p.top + r.top * v.scale}px`,
      width: `${r.width * v.scale}px`,
      height: `${r.height * v.scale}px`,
      transform: '',
    });
  };

  const pathOf = (el: Element, root: Element): Path | null => {
    const steps: Path = [];
    for (let at: Element = el; at !== root; at = at.parentElement!) {
      if (!at.parentElement) return null;
      const tag = at.tagName.toLowerCase();
      steps.unshift([tag, [...at.parentElement.children].filter((c) => c.tagName === at.tagName).indexOf(at)]);
    }
    return steps;
  };

  const pick = async (el: Element | null) => {
    const v = view();
    const root = v && rootOf(v.doc);
    if (!el || !root || el === root || !root.contains(el) || NOT_PICKED.has(el.tagName)) {
      path = null;
      drawBar();
      place();
      return;
    }
    const host = el.closest('[data-vidkit-source]');
    if (host && root.contains(host)) {
      editor.say(`That is part of ${host.getAttribute('data-vidkit-source')}: open that composition to edit it`);
      return;
    }
    path = pathOf(el, root);
    varId = el.id ? el.id.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(\d)/, '_$1') : '';
    where = '';
    place();
    drawBar();
    box.focus({ preventScroll: true });
    const located = await getJson<{ file: string; line: number }>('element', { file: studio.page, target: JSON.stringify({ path }) }).catch((err: Error) => {
      where = err.message;
      return null;
    });
    if (located) where = `${located.file}:${located.line}`;
    drawBar();
  };

  const drawBar = () => {
    const el = selected();
    bar.hidden = !el;
    if (!el) return;
    const name = el.id ? `#${el.id}` : `<${el.tagName.toLowerCase()}>`;
    const textOnly = el.childElementCount === 0;
    const idField = h('input', { attrs: { type: 'text', id: 'variable-id', placeholder: 'variable id', 'aria-label': 'Id of the new variable', spellcheck: 'false', value: varId } });
    idField.addEventListener('input', () => (varId = idField.value));
    const make = (bind: 'text' | 'src' | 'color', label: string, iconName: 'text' | 'image' | 'palette', enabled: boolean) =>
      h(
        'button',
        {
          attrs: { type: 'button', 'data-bind': bind, disabled: !enabled, title: `Make the ${label.toLowerCase()} of ${name} a variable` },
          on: { click: () => void makeVariable(bind) },
        },
        icon(iconName),
        label,
      );
    bar.replaceChildren(
      h('strong', {}, name),
      where.includes(':') && !where.includes(' ')
        ? h('button', { class: 'link', attrs: { id: 'selection-source' }, on: { click: () => studio.emit('source', { file: where.split(':')[0], line: Number(where.split(':')[1]) }) } }, icon('code'), where)
        : h('span', { class: 'muted' }, where),
      h('span', { class: 'spacer' }),
      icon('variable'),
      idField,
      make('text', 'Text', 'text', textOnly && (el.textContent ?? '').trim() !== ''),
      make('src', 'Image', 'image', ['IMG', 'VIDEO', 'AUDIO'].includes(el.tagName)),
      make('color', 'Colour', 'palette', true),
    );
  };

  const makeVariable = async (bind: 'text' | 'src' | 'color') => {
    const el = selected();
    if (!el || !path) return;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(varId)) {
      editor.say('Give the variable an id: letters, digits and _, not starting with a digit', 'error');
      byId('variable-id').focus();
      return;
    }
    const colour = bind === 'color' ? rgbToHex(getComputedStyle(el).color) : undefined;
    await editor.edit(studio.page, { path }, { variable: { id: varId, bind, ...(colour ? { default: colour } : {}) } });
  };

  /** Writes a move (dx, dy) and a resize (dw, dh), in the composition's pixels. */
  const writeBox = async (dx: number, dy: number, dw: number, dh: number) => {
    const el = selected();
    if (!el || !path) return;
    const cs = getComputedStyle(el);
    const style: Record<string, string> = {};
    const px = (n: number) => `${Math.round(n)}px`;
    if (dx !== 0 || dy !== 0) {
      if (cs.position === 'absolute' || cs.position === 'fixed') {
        style.left = px(parseFloat(cs.left) + dx);
        style.top = px(parseFloat(cs.top) + dy);
      } else {
        const [tx = 0, ty = 0] = cs.translate === 'none' ? [] : cs.translate.split(' ').map(parseFloat);
        style.translate = `${px(tx + dx)} ${px(ty + dy)}`;
      }
    }
    if (dw !== 0 || dh !== 0) {
      style.width = px(Math.max(1, parseFloat(cs.width) + dw));
      style.height = px(Math.max(1, parseFloat(cs.height) + dh));
    }
    if (Object.keys(style).length > 0 && !(await editor.edit(studio.page, { path }, { style }))) place();
  };

  const editText = () => {
    const el = selected();
    if (!el || el.childElementCount > 0) {
      if (el) editor.say('This element holds other elements: pick the one that holds the text', 'error');
      return;
    }
    const field = h('input', { class: 'text-edit', attrs: { type: 'text', 'aria-label': 'Text of the element', spellcheck: 'false' } });
    field.value = (el.textContent ?? '').trim();
    Object.assign(field.style, { left: box.style.left, top: box.style.top, width: `max(${box.style.width}, 12em)` });
    layer.append(field);
    field.focus();
    field.select();
    let done = false;
    const finish = (save: boolean) => {
      if (done) return;
      done = true;
      field.remove();
      box.focus({ preventScroll: true });
      if (save && field.value !== (el.textContent ?? '').trim()) void editor.edit(studio.page, { path: path! }, { text: field.value });
    };
    field.addEventListener('keydown', (e) => {
      e.stopPropagation();
      if (e.key === 'Enter') finish(true);
      if (e.key === 'Escape') finish(false);
    });
    field.addEventListener('blur', () => finish(true));
  };

  // Pointer: a press picks; a drag of the outline moves it, of its handle resizes it.
  let drag: { x: number; y: number; width: number; height: number; resize: boolean; moved: boolean } | null = null;
  layer.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 || e.target instanceof HTMLInputElement) return;
    const onBox = e.target === box || e.target === handle;
    if (onBox) {
      drag = { x: e.clientX, y: e.clientY, width: parseFloat(box.style.width), height: parseFloat(box.style.height), resize: e.target === handle, moved: false };
      return;
    }
    const v = view();
    if (!v) return;
    void pick(v.doc.elementFromPoint((e.clientX - v.rect.left) / v.scale, (e.clientY - v.rect.top) / v.scale));
  });
  layer.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x;
    const dy = e.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) < 3 && Math.abs(dy) < 3) return;
    // Captured once it is a drag, so that a double-click still reaches the outline.
    if (!drag.moved) layer.setPointerCapture(e.pointerId);
    drag.moved = true;
    if (drag.resize) {
      box.style.width = `${Math.max(1, drag.width + dx)}px`;
      box.style.height = `${Math.max(1, drag.height + dy)}px`;
    } else {
      box.style.transform = `translate(${dx}px, ${dy}px)`;
    }
  });
  layer.addEventListener('pointerup', (e) => {
    const d = drag;
    drag = null;
    if (!d?.moved) return;
    const scale = view()?.scale ?? 1;
    const dx = (e.clientX - d.x) / scale;
    const dy = (e.clientY - d.y) / scale;
    void (d.resize ? writeBox(0, 0, dx, dy) : writeBox(dx, dy, 0, 0));
  });
  box.addEventListener('dblclick', () => editText());

  // Keys: on the canvas, Enter walks the elements; on the outline, arrows move or resize.
  layer.addEventListener('keydown', (e) => {
    if (e.target !== layer || e.key !== 'Enter') return;
    e.preventDefault();
    const v = view();
    const root = v && rootOf(v.doc);
    if (!root) return;
    const all = [...root.querySelectorAll('*')].filter((el) => !NOT_PICKED.has(el.tagName) && !el.closest('[data-vidkit-source]') && (el as HTMLElement).getClientRects().length > 0);
    if (all.length === 0) return;
    const current = selected();
    const at = current ? all.indexOf(current) : -1;
    void pick(all[(at + (e.shiftKey ? -1 : 1) + all.length + (at < 0 && e.shiftKey ? 1 : 0)) % all.length]);
  });
  box.addEventListener('keydown', (e) => {
    const step = e.shiftKey ? 10 : 1;
    const moves: Record<string, [number, number]> = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (e.key in moves) {
      const [dx, dy] = moves[e.key];
      void (e.altKey ? writeBox(0, 0, dx, dy) : writeBox(dx, dy, 0, 0));
    } else if (e.key === 'Enter') {
      editText();
    } else if (e.key === 'Escape') {
      void pick(null);
      layer.focus();
    } else {
      return;
    }
    e.preventDefault();
    e.stopPropagation();
  });

  new ResizeObserver(place).observe(stage);
  player.addEventListener('timeupdate', () => {
    place();
    drawBar();
  });
  let page = studio.page;
  studio.on('composition', (info) => {
    // Another composition: nothing picked there yet.
    if (info.file !== page) {
      page = info.file;
      path = null;
      drawBar();
      place();
    }
  });
}

/** `rgb(r, g, b)` (or rgba) as #rrggbb: the default of a colour variable. */
function rgbToHex(css: string): string | undefined {
  const m = /rgba?\(\s*(\d+)[,\s]+(\d+)[,\s]+(\d+)/.exec(css);
  if (!m) return toHexColor(css);
  return `#${[m[1], m[2], m[3]].map((c) => Number(c).toString(16).padStart(2, '0')).join('')}`;
}
