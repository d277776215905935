import type { VidkitPlayer } from '../../player/vidkit-player';
import { getJson } from './api';
import { byId } from './dom';
import { canvasEditing } from './canvas';
import { compositionsPanel } from './compositions-panel';
import { Editor } from './editor';
import { ICONS, IconName, icon } from './icons';
import { keyboard } from './keyboard';
import { renderPanel } from './render-panel';
import { rowsPanel } from './rows-panel';
import { sourceView } from './source-view';
import { CompositionInfo, Studio } from './studio-state';
import { timeline } from './timeline';
import { variablesPanel } from './variables-panel';

/** Project files whose saving is not an edit of the composition: renders, rows files (the rows table writes them). */
const NOT_COMPOSITION = /^out\/|\.(jsonl|csv|tsv)$/i;

// The page's own icons, drawn in place of each [data-icon].
document.querySelectorAll<HTMLElement>('[data-icon]').forEach((el) => (el.innerHTML = ICONS[el.dataset.icon as IconName]));

const player = byId<VidkitPlayer>('player');
const studio = new Studio(player);
const inspector = tabs('inspector');
const dock = tabs('dock');

const editor = new Editor(studio);
variablesPanel(studio);
timeline(studio, editor);
canvasEditing(studio, editor);
const compositions = compositionsPanel(studio, (file) => void openComposition(file));
renderPanel(studio, () => inspector('renders'));
rowsPanel(studio, () => inspector('renders'));
sourceView(studio, () => dock('source'));
keyboard(player, () => undefined);
themeSwitch();
fitPlayer();

async function loadInfo(): Promise<void> {
  const info = await getJson<CompositionInfo>('composition', { file: studio.page }).catch((err: Error): CompositionInfo => ({ file: studio.page, error: err.message }));
  studio.info = info;
  document.title = `${info.id ?? studio.page} · vidkit studio`;
  byId('title').textContent = info.id ?? studio.page;
  byId('title-file').textContent = studio.page;
  studio.emit('composition', info);
}

async function openComposition(file: string): Promise<void> {
  if (file === studio.page) return;
  studio.page = file;
  player.setAttribute('src', `/${file.split('/').map(encodeURIComponent).join('/')}`);
  await Promise.all([loadInfo(), compositions.refresh()]);
}

// A saved file reloads the composition at the frame shown; a render's progress updates the queue.
const events = new EventSource('/__vidkit/events');
events.addEventListener('change', (e) => {
  const { file } = JSON.parse((e as MessageEvent<string>).data) as { file: string };
  if (NOT_COMPOSITION.test(file)) return;
  void Promise.all([loadInfo(), compositions.refresh()]).then(() => player.reload());
});
events.addEventListener('job', (e) => studio.emit('job', JSON.parse((e as MessageEvent<string>).data)));

void Promise.all([loadInfo(), compositions.refresh()]);

/** A tab strip: `[data-tabs=group]` buttons `[data-tab=name]` for `[data-panel=name]` panels; returns a function that shows one. */
function tabs(group: string): (name: string) => void {
  const strip = document.querySelector(`[data-tabs="${group}"]`)!;
  const buttons = [...strip.querySelectorAll<HTMLButtonElement>('[data-tab]')];
  const show = (name: string) => {
    for (const b of buttons) {
      const on = b.dataset.tab === name;
      b.setAttribute('aria-selected', String(on));
      b.tabIndex = on ? 0 : -1;
      byId(b.getAttribute('aria-controls')!).hidden = !on;
    }
  };
  buttons.forEach((b) => b.addEventListener('click', () => show(b.dataset.tab!)));
  show(buttons[0].dataset.tab!);
  return show;
}

/** Light or dark: the system's choice until the button picks one, remembered in this browser. */
function themeSwitch(): void {
  const button = byId('theme');
  const root = document.documentElement;
  const apply = (theme: string) => {
    root.dataset.theme = theme;
    button.replaceChildren(icon(theme === 'dark' ? 'sun' : 'moon'));
    button.title = theme === 'dark' ? 'Light theme' : 'Dark theme';
    button.setAttribute('aria-label', button.title);
  };
  apply(localStorage.getItem('vidkit-theme') ?? (matchMedia('(prefers-color-scheme: light)').matches ? 'light' : 'dark'));
  button.addEventListener('click', () => {
    const next = root.dataset.theme === 'dark' ? 'light' : 'dark';
    localStorage.setItem('vidkit-theme', next);
    apply(next);
  });
}

/** The player as large as the stage allows at the composition's aspect ratio, unless it has a width attribute. */
function fitPlayer(): void {
  const stage = byId('stage');
  const fit = () => {
    // A width the page gave the player (its attribute) is kept.
    if (player.hasAttribute('width')) return;
    const { width = 16, height = 9 } = studio.info;
    const box = stage.getBoundingClientRect();
    const style = getComputedStyle(stage);
    const w = box.width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const h = box.height - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
    // A width in whole steps of the aspect ratio (16 px for 16:9) gives a whole-pixel height, so
    // the composition fills the box exactly, with no sliver of background at an edge.
    const g = gcd(width, height);
    const step = width / g <= 64 ? width / g : 1;
    player.style.width = `${Math.max(step, Math.floor(Math.min(w, (h * width) / height) / step) * step)}px`;
  };
  new ResizeObserver(fit).observe(stage);
  // Again when the shape changes, not at every save: the player keeps a size the page gave it.
  let shape = '';
  studio.on('composition', ({ width, height }) => {
    if (width === undefined || `${width}x${height}` === shape) return;
    shape = `${width}x${height}`;
    fit();
  });
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
