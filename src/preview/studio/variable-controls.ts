import type { VariableDeclaration, VariableValue } from '../../composition/variables';
import { h } from './dom';

/**
 * The typed input for one declared variable (text, number, colour picker with a text field,
 * checkbox, select), shared by the variables panel and the rows table. `value` undefined is the
 * default: the panel shows it as the field's value, a table cell as its placeholder, an empty
 * cell leaving the variable at its default (`set(undefined)`).
 */
export function variableControl(
  d: VariableDeclaration,
  value: unknown,
  set: (v: VariableValue | undefined) => void,
  opts: { name?: string; cell?: boolean } = {},
): HTMLElement {
  const name = opts.name ?? d.id;
  const shown = value === undefined ? d.default : value;
  const placeholder = opts.cell && d.default !== undefined ? String(d.default) : '';
  const text = (v: unknown) => (opts.cell ? v : shown) ?? '';
  const typed = (v: string) => (opts.cell && v === '' ? undefined : v);
  switch (d.type) {
    case 'number': {
      const input = h('input', { attrs: { type: 'number', name, step: 'any', placeholder } });
      input.value = String(text(value));
      input.addEventListener('input', () => set(input.value === '' || !Number.isFinite(input.valueAsNumber) ? undefined : input.valueAsNumber));
      return input;
    }
    case 'color': {
      const picker = h('input', { attrs: { type: 'color', name, 'aria-label': `${d.label ?? d.id} colour` } });
      picker.value = toHexColor(String(shown ?? '')) ?? '#000000';
      const field = h('input', { attrs: { type: 'text', name: `${name}-text`, placeholder, spellcheck: 'false' } });
      field.value = String(text(value));
      picker.addEventListener('input', () => {
        field.value = picker.value;
        set(picker.value);
      });
      field.addEventListener('input', () => {
        const hex = toHexColor(field.value || String(d.default ?? ''));
        if (hex) picker.value = hex;
        set(typed(field.value));
      });
      return h('div', { class: 'color' }, picker, field);
    }
    case 'boolean': {
      const input = h('input', { attrs: { type: 'checkbox', name } });
      input.checked = shown === true;
      input.addEventListener('change', () => set(input.checked));
      return input;
    }
    case 'enum': {
      const select = h('select', { attrs: { name } });
      d.options!.forEach((o, i) => select.add(new Option(o.label ?? String(o.value), String(i), false, o.value === shown)));
      select.addEventListener('change', () => set(d.options![Number(select.value)].value));
      return select;
    }
    default: {
      const input = h('input', { attrs: { type: 'text', name, placeholder, spellcheck: 'false' } });
      input.value = String(text(value));
      input.addEventListener('input', () => set(typed(input.value)));
      return input;
    }
  }
}

/** Whether a value still fits its declaration (after an edit of the composition). */
export function fits(d: VariableDeclaration, v: unknown): boolean {
  if (d.type === 'enum') return d.options!.some((o) => o.value === v);
  if (d.type === 'number') return typeof v === 'number';
  if (d.type === 'boolean') return typeof v === 'boolean';
  return typeof v === 'string';
}

/** `#rgb` and `#rrggbb` as the colour picker needs them; other notations stay text-only. */
export function toHexColor(v: string): string | undefined {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(v.trim());
  if (!m) return undefined;
  const hex = m[1].length === 3 ? m[1].replace(/./g, (c) => c + c) : m[1];
  return `#${hex.toLowerCase()}`;
}
