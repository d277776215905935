import type { VariableDeclaration, VariableValue } from '../../composition/variables';
import type { VidkitPlayer } from '../../player/vidkit-player';

/** What /__vidkit/composition answers: the declarations, or why the project does not parse. */
interface CompositionInfo {
  id?: string;
  declarations?: VariableDeclaration[];
  error?: string;
}

const player = document.getElementById('player') as VidkitPlayer;
const form = document.getElementById('variables') as HTMLFormElement;
const problem = document.getElementById('problem') as HTMLDivElement;
const command = document.getElementById('command') as HTMLElement;

/** Values the author has set in the panel, kept across reloads while the declaration still fits. */
let edited: Record<string, VariableValue> = {};
let declarations: VariableDeclaration[] = [];

async function fetchInfo(): Promise<CompositionInfo> {
  const res = await fetch('/__vidkit/composition', { cache: 'no-store' });
  return (await res.json()) as CompositionInfo;
}

function render(info: CompositionInfo): void {
  problem.textContent = info.error ?? '';
  if (!info.declarations) return;
  declarations = info.declarations;
  const kept: Record<string, VariableValue> = {};
  for (const d of declarations) if (d.id in edited && fits(d, edited[d.id])) kept[d.id] = edited[d.id];
  edited = kept;
  form.replaceChildren(...declarations.map(field));
  if (declarations.length === 0) form.textContent = 'This composition declares no variables.';
  apply();
}

function fits(d: VariableDeclaration, v: VariableValue): boolean {
  if (d.type === 'enum') return d.options!.some((o) => o.value === v);
  if (d.type === 'number') return typeof v === 'number';
  if (d.type === 'boolean') return typeof v === 'boolean';
  return typeof v === 'string';
}

/** One control per declaration: text, number, colour picker, checkbox or select. */
function field(d: VariableDeclaration): HTMLElement {
  const label = document.createElement('label');
  const caption = document.createElement('span');
  caption.textContent = d.label ? `${d.label} (${d.id})` : d.id;
  label.append(caption);
  const current = d.id in edited ? edited[d.id] : (d.default as VariableValue | undefined);
  const set = (v: VariableValue | undefined) => {
    if (v === undefined) delete edited[d.id];
    else edited[d.id] = v;
    apply();
  };
  switch (d.type) {
    case 'string':
    case 'font':
    case 'image': {
      const input = control('text', d.id, String(current ?? ''));
      input.addEventListener('input', () => set(input.value));
      label.append(input);
      break;
    }
    case 'number': {
      const input = control('number', d.id, current === undefined ? '' : String(current));
      input.step = 'any';
      input.addEventListener('input', () => set(input.value === '' || !Number.isFinite(input.valueAsNumber) ? undefined : input.valueAsNumber));
      label.append(input);
      break;
    }
    case 'color': {
      const row = document.createElement('div');
      row.className = 'color';
      const picker = control('color', d.id, toHexColor(String(current ?? '')) ?? '#000000');
      const text = control('text', `${d.id}-text`, String(current ?? ''));
      picker.addEventListener('input', () => {
        text.value = picker.value;
        set(picker.value);
      });
      text.addEventListener('input', () => {
        const hex = toHexColor(text.value);
        if (hex) picker.value = hex;
        set(text.value);
      });
      row.append(picker, text);
      label.append(row);
      break;
    }
    case 'boolean': {
      const input = control('checkbox', d.id, '');
      input.checked = current === true;
      input.addEventListener('change', () => set(input.checked));
      label.prepend(input);
      break;
    }
    case 'enum': {
      const select = document.createElement('select');
      select.name = d.id;
      d.options!.forEach((o, i) => select.add(new Option(o.label ?? String(o.value), String(i), false, o.value === current)));
      select.addEventListener('change', () => set(d.options![Number(select.value)].value));
      label.append(select);
      break;
    }
  }
  return label;
}

function control(type: string, name: string, value: string): HTMLInputElement {
  const input = document.createElement('input');
  input.type = type;
  input.name = name;
  input.value = value;
  return input;
}

/** `#rgb` and `#rrggbb` as the colour picker needs them; other notations stay text-only. */
function toHexColor(v: string): string | undefined {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(v.trim());
  if (!m) return undefined;
  const h = m[1].length === 3 ? m[1].replace(/./g, (c) => c + c) : m[1];
  return `#${h.toLowerCase()}`;
}

/** Hands the edited values to the player at once, and shows the matching render command. */
function apply(): void {
  const json = JSON.stringify(edited);
  if ((player.getAttribute('variables') ?? '{}') !== json) player.setAttribute('variables', json);
  const args = Object.keys(edited).length > 0 ? ` --variables '${json.replace(/'/g, "'\\''")}'` : '';
  command.textContent = `vidkit render .${args}`;
}

async function refresh(): Promise<void> {
  render(await fetchInfo());
}

// Space plays and pauses, the arrow keys step one frame, unless a field has the focus.
document.addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
  if (e.key === ' ') {
    e.preventDefault();
    if (player.paused) player.play();
    else player.pause();
  } else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
    e.preventDefault();
    void player.step(e.key === 'ArrowLeft' ? -1 : 1);
  }
});

new EventSource('/__vidkit/events').addEventListener('change', () => {
  void refresh().then(() => player.reload());
});

void refresh();
