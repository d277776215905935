import type { ClipLine } from '../../composition/clip-lines';
import { getJson } from './api';
import { byId, formatSeconds, h, present } from './dom';
import type { Editor } from './editor';
import { IconName, icon } from './icons';
import { clipElement, shownDocument } from './player-document';
import type { Studio } from './studio-state';
import {
  ClipKind,
  DragMode,
  Scope,
  TimelineClip,
  clipKind,
  clipLabel,
  draggedTiming,
  frameAtX,
  lanesOf,
  mediaWindow,
  placeClips,
  rulerTicks,
  scopeOf,
  trail,
  xOfTime,
} from './timeline-model';

const KIND_ICONS: Record<ClipKind, IconName> = { composition: 'layers', video: 'film', audio: 'audio', image: 'image', element: 'box' };
const ZOOMS = [1, 1.5, 2, 3, 4, 6, 8, 12, 16];

/**
 * The timeline under the player: the clips of the composition shown (or of a nested one entered
 * from it) by track, with their media trims and lint findings, a ruler and the playhead. A click
 * or a drag on the ruler or the tracks seeks to the nearest frame; a nested composition is entered
 * by double-click or its enter button, and left by the breadcrumb. Dragging a clip moves it (to
 * another track too), dragging its edges moves its start or its end, and the attributes changed
 * are written to the file that declares it (editor.ts); so do the keys on a focused clip: Left
 * and Right move it a frame (Shift: a second), with Alt its end, Up and Down change its track.
 */
export function timeline(studio: Studio, editor: Editor): void {
  const { player } = studio;
  const root = byId('timeline');
  const crumbs = h('nav', { class: 'crumbs', attrs: { 'aria-label': 'Compositions entered' } });
  const readout = h('span', { class: 'readout', attrs: { 'aria-live': 'off' } });
  const playButton = h('button', { class: 'icon-button', attrs: { id: 'tl-play', title: 'Play (space)', 'aria-label': 'Play' }, on: { click: () => togglePlay() } }, icon('play'));
  const toolbar = h(
    'div',
    { class: 'tl-toolbar' },
    playButton,
    h('button', { class: 'icon-button', attrs: { title: 'Previous frame (Left)', 'aria-label': 'Previous frame' }, on: { click: () => void player.step(-1) } }, icon('stepBack')),
    h('button', { class: 'icon-button', attrs: { title: 'Next frame (Right)', 'aria-label': 'Next frame' }, on: { click: () => void player.step(1) } }, icon('stepForward')),
    readout,
    crumbs,
    h('span', { class: 'spacer' }),
    h('button', { class: 'icon-button', attrs: { title: 'Zoom out', 'aria-label': 'Zoom out' }, on: { click: () => zoomBy(-1) } }, icon('zoomOut')),
    h('button', { class: 'icon-button', attrs: { title: 'Zoom in', 'aria-label': 'Zoom in' }, on: { click: () => zoomBy(1) } }, icon('zoomIn')),
    h('button', { class: 'icon-button', attrs: { title: 'Fit the composition', 'aria-label': 'Fit' }, on: { click: () => setZoom(0) } }, icon('fit')),
  );
  const heads = h('div', { class: 'tl-heads' });
  const ruler = h('div', { class: 'tl-ruler', attrs: { id: 'tl-ruler' } });
  const lanes = h('div', { class: 'tl-lanes' });
  const playhead = h('div', { class: 'tl-playhead', attrs: { id: 'tl-playhead' } });
  const canvas = h('div', { class: 'tl-canvas', attrs: { id: 'tl-canvas' } }, ruler, lanes, playhead);
  const scroller = h('div', { class: 'tl-scroll' }, canvas);
  const details = h('div', { class: 'tl-details', attrs: { id: 'tl-details' } });
  root.append(toolbar, h('div', { class: 'tl-body' }, heads, scroller), details);

  let clips: TimelineClip[] = [];
  let lines: Record<string, ClipLine[]> = {};
  let scopeIndex: number | null = null;
  /** The entered composition by id, so that a reload finds it again. */
  let scopeId: string | null = null;
  let selected: number | null = null;
  let zoom = 0;
  /** Whether the clips of a loaded composition were read: until then, no clips does not mean there are none. */
  let loaded = false;

  const fps = () => (Number.isFinite(player.fps) ? player.fps : 30);
  const duration = () => (Number.isFinite(player.duration) ? player.duration : 0);
  const totalFrames = () => Math.max(1, Math.round(duration() * fps()));
  const width = () => canvas.clientWidth;
  const scope = (): Scope => scopeOf(clips, scopeIndex, duration());

  const refresh = () => {
    clips = placeClips(player.clips(), studio.page, lines, studio.findings);
    // The composition entered before a reload, if it is still there.
    const again = scopeId === null ? -1 : clips.findIndex((c) => c.compositionId === scopeId);
    scopeIndex = again >= 0 ? again : null;
    if (again < 0) scopeId = null;
    if (selected !== null && !clips[selected]) selected = null;
    draw();
  };

  const fetchLines = async () => {
    lines = await getJson<Record<string, ClipLine[]>>('clip-lines', { file: studio.page }).catch(() => ({}));
    loaded = true;
    refresh();
    void editor.read([...new Set(Object.keys(lines).map((part) => part.split('#')[0]))], true);
  };

  const draw = () => {
    const s = scope();
    const w = width();
    const laneList = lanesOf(clips, s);
    crumbs.replaceChildren(
      ...trail(clips, scopeIndex).flatMap((index, i, all) => {
        const label = index === null ? (studio.info.id ?? studio.page) : (clips[index].compositionId ?? clipLabel(clips[index]));
        const last = i === all.length - 1;
        const crumb = h('button', { class: last ? 'crumb current' : 'crumb', attrs: { 'aria-current': last ? 'page' : undefined }, on: { click: () => enter(index) } }, label);
        return i === 0 ? [crumb] : [icon('chevronRight'), crumb];
      }),
    );
    ruler.replaceChildren(
      ...rulerTicks(s, w).times.map((t) => h('div', { class: 'tick', attrs: { style: `left: ${xOfTime(t, s, w)}px` } }, h('span', {}, tickLabel(t)))),
    );
    heads.replaceChildren(
      h('div', { class: 'tl-head-ruler' }),
      ...laneList.map((lane) => {
        const first = lane.clips[0];
        const name = lane.track === null ? clipLabel(first) : `Track ${lane.track}`;
        return h('div', { class: 'tl-head', attrs: { title: name } }, icon(KIND_ICONS[clipKind(first)]), h('span', {}, name));
      }),
    );
    const focused = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('.tl-clip')?.dataset.clip;
    lanes.replaceChildren(...laneList.map((lane) => h('div', { class: 'tl-lane' }, ...lane.clips.map((c) => clipBlock(c, s, w)))));
    if (focused !== undefined) lanes.querySelector<HTMLElement>(`[data-clip="${focused}"]`)?.focus({ preventScroll: true });
    if (laneList.length === 0 && loaded) {
      lanes.append(h('div', { class: 'tl-empty muted' }, 'No clips: an element with data-start is a clip, drawn here on the row of its data-track-index.'));
    }
    drawDetails();
    movePlayhead();
  };

  const clipBlock = (clip: TimelineClip, s: Scope, w: number): HTMLElement => {
    const kind = clipKind(clip);
    const end = Math.min(clip.end ?? s.end, s.end);
    const left = xOfTime(Math.max(clip.start, s.start), s, w);
    const right = xOfTime(end, s, w);
    const trim = mediaWindow(clip, duration());
    const errors = clip.findings.filter((f) => f.severity === 'error').length;
    const block = h(
      'div',
      {
        class: `tl-clip kind-${kind}${selected === clip.index ? ' selected' : ''}${clip.end === null ? ' open-end' : ''}`,
        attrs: {
          style: `left: ${left}px; width: ${Math.max(3, right - left)}px`,
          'data-clip': clip.index,
          tabindex: 0,
          role: 'button',
          'aria-label': `${clipLabel(clip)}, ${clip.start.toFixed(2)} s to ${clip.end === null ? 'the end' : `${clip.end.toFixed(2)} s`}${clip.track === null ? '' : `, track ${clip.track}`}: arrows move it, Alt+arrows its end`,
          title: `${clipLabel(clip)}: ${clip.start.toFixed(2)} s to ${clip.end === null ? 'the end' : `${clip.end.toFixed(2)} s`}`,
        },
        on: {
          pointerdown: (e) => {
            select(clip.index);
            const edge = (e.target as HTMLElement).dataset.edge as DragMode | undefined;
            const p = e as PointerEvent;
            if (p.button === 0) clipDrag = { clip, mode: edge ?? 'move', x: p.clientX, y: p.clientY, left: parseFloat(block.style.left), width: parseFloat(block.style.width), moved: false, block };
          },
          dblclick: () => kind === 'composition' && enter(clip.index),
          focus: () => select(clip.index),
          keydown: (e) => clipKey(clip, e as KeyboardEvent),
        },
      },
      h('span', { class: 'tl-edge start', attrs: { 'data-edge': 'start', title: 'Drag to move the start' } }),
      icon(KIND_ICONS[kind]),
      h('span', { class: 'name' }, clipLabel(clip)),
      trim && h('span', { class: 'trim' }, `${trim.from.toFixed(2)}\u2013${trim.to.toFixed(2)} s of ${trim.of.toFixed(2)}${clip.playbackRate === 1 ? '' : ` × ${clip.playbackRate}`}`),
      clip.findings.length > 0 && h('span', { class: errors ? 'finding error' : 'finding warning', attrs: { title: clip.findings.map((f) => f.message).join('\n') } }, icon(errors ? 'error' : 'warning', errors ? 'lint error' : 'lint warning')),
      kind === 'composition' &&
        h(
          'button',
          {
            class: 'enter',
            attrs: { title: `Open ${clipLabel(clip)}`, 'aria-label': `Open ${clipLabel(clip)}` },
            on: { pointerdown: (e) => e.stopPropagation(), click: () => enter(clip.index) },
          },
          icon('enter'),
        ),
      trim && h('span', { class: 'trim-bar', attrs: { style: `left: ${(trim.from / trim.of) * 100}%; right: ${100 - (trim.to / trim.of) * 100}%` } }),
      h('span', { class: 'tl-edge end', attrs: { 'data-edge': 'end', title: 'Drag to move the end' } }),
    );
    return block;
  };

  const drawDetails = () => {
    const clip = selected === null ? undefined : clips[selected];
    if (!clip) {
      details.replaceChildren(h('span', { class: 'muted' }, 'Click a clip for its details, drag it or its edges to edit it; double-click a composition to open it.'));
      return;
    }
    const where = clip.file !== null && clip.line !== null ? `${clip.file}:${clip.line}` : null;
    details.replaceChildren(
      ...present(
        icon(KIND_ICONS[clipKind(clip)]),
        h('strong', {}, clipLabel(clip)),
        h('span', {}, `${clip.start.toFixed(2)} s to ${clip.end === null ? 'end' : `${clip.end.toFixed(2)} s`}`),
        clip.track !== null && h('span', {}, `track ${clip.track}`),
        clip.playbackStart > 0 && h('span', {}, `from ${clip.playbackStart.toFixed(2)} s of its source`),
        clip.playbackRate !== 1 && h('span', {}, `rate ${clip.playbackRate}`),
        where && h('button', { class: 'link', on: { click: () => studio.emit('source', { file: clip.file!, line: clip.line! }) } }, icon('code'), where),
        ...clip.findings.map((f) => h('span', { class: `finding-text ${f.severity}` }, icon(f.severity === 'error' ? 'error' : 'warning'), f.message)),
      ),
    );
  };

  const movePlayhead = () => {
    const s = scope();
    const t = player.frame / fps();
    const x = xOfTime(t, s, width());
    playhead.style.transform = `translateX(${x}px)`;
    playhead.hidden = !(t >= s.start - 1e-9 && t <= s.end + 1e-9) || duration() === 0;
    readout.textContent = duration() > 0 ? `${formatSeconds(t)} / ${formatSeconds(duration())}  frame ${player.frame}` : '';
    const playing = !player.paused;
    playButton.replaceChildren(icon(playing ? 'pause' : 'play'));
    playButton.title = playing ? 'Pause (space)' : 'Play (space)';
    playButton.setAttribute('aria-label', playing ? 'Pause' : 'Play');
  };

  const enter = (index: number | null) => {
    scopeIndex = index;
    scopeId = index === null ? null : clips[index].compositionId;
    draw();
  };

  const select = (index: number) => {
    selected = index;
    lanes.querySelectorAll('.tl-clip.selected').forEach((el) => el.classList.remove('selected'));
    lanes.querySelector(`[data-clip="${index}"]`)?.classList.add('selected');
    drawDetails();
  };

  const togglePlay = () => {
    if (player.paused) player.play();
    else player.pause();
    movePlayhead();
  };

  const setZoom = (z: number) => {
    zoom = Math.max(0, Math.min(ZOOMS.length - 1, z));
    canvas.style.width = `${ZOOMS[zoom] * 100}%`;
    draw();
  };
  const zoomBy = (delta: number) => setZoom(zoom + delta);

  // Seeking: a press on the ruler or the tracks goes to the nearest frame, and so does every move while pressed.
  let dragging = false;
  const seekAt = (clientX: number) => {
    const x = clientX - canvas.getBoundingClientRect().left;
    const s = scope();
    player.pause();
    void player.seek(frameAtX(x, s, width(), fps(), totalFrames()) / fps());
  };
  canvas.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 || duration() === 0) return;
    dragging = true;
    seekAt(e.clientX);
  });
  canvas.addEventListener('pointermove', (e) => {
    if (clipDrag && dragClip(e)) return;
    if (!dragging) return;
    // Captured once it is a drag, so that a click and a double-click still reach the clip under the pointer.
    if (!canvas.hasPointerCapture(e.pointerId)) canvas.setPointerCapture(e.pointerId);
    seekAt(e.clientX);
  });
  const stop = () => (dragging = false);
  canvas.addEventListener('pointerup', (e) => {
    stop();
    const drag = clipDrag;
    clipDrag = null;
    if (drag?.moved) void dropClip(drag, e);
  });
  canvas.addEventListener('pointercancel', () => {
    stop();
    if (clipDrag?.moved) draw();
    clipDrag = null;
  });
  scroller.addEventListener(
    'wheel',
    (e) => {
      if (!e.ctrlKey) return;
      e.preventDefault();
      zoomBy(e.deltaY < 0 ? 1 : -1);
    },
    { passive: false },
  );

  /** A press on a clip, a drag once it moves a few pixels. */
  let clipDrag: { clip: TimelineClip; mode: DragMode; x: number; y: number; left: number; width: number; moved: boolean; block: HTMLElement } | null = null;
  const secondsPerPixel = () => {
    const s = scope();
    return (s.end - s.start) / width();
  };

  /** Moves the dragged clip's block with the pointer; false while it is still a click. */
  const dragClip = (e: PointerEvent): boolean => {
    const drag = clipDrag!;
    const dx = e.clientX - drag.x;
    if (!drag.moved && Math.abs(dx) < 4 && Math.abs(e.clientY - drag.y) < 4) return false;
    if (!drag.moved) {
      drag.moved = true;
      dragging = false;
      canvas.setPointerCapture(e.pointerId);
      drag.block.classList.add('dragging');
    }
    if (drag.mode === 'move') drag.block.style.left = `${drag.left + dx}px`;
    else if (drag.mode === 'start') Object.assign(drag.block.style, { left: `${drag.left + dx}px`, width: `${Math.max(3, drag.width - dx)}px` });
    else drag.block.style.width = `${Math.max(3, drag.width + dx)}px`;
    drag.block.style.transform = drag.mode === 'move' ? `translateY(${e.clientY - drag.y}px)` : '';
    return true;
  };

  const dropClip = async (drag: NonNullable<typeof clipDrag>, e: PointerEvent) => {
    const track = drag.mode === 'move' ? trackAt(e.clientY) : undefined;
    await writeTiming(drag.clip, drag.mode, (e.clientX - drag.x) * secondsPerPixel(), track);
  };

  /** The track of the lane at `clientY`; one more than the last for a drop below them all. */
  const trackAt = (clientY: number): number | undefined => {
    const laneList = lanesOf(clips, scope());
    const rows = [...lanes.querySelectorAll('.tl-lane')];
    const at = rows.findIndex((row) => {
      const r = row.getBoundingClientRect();
      return clientY >= r.top && clientY < r.bottom;
    });
    if (at >= 0) return laneList[at]?.track ?? undefined;
    const last = rows[rows.length - 1]?.getBoundingClientRect();
    const tracks = laneList.map((l) => l.track).filter((t): t is number => t !== null);
    return last && clientY >= last.bottom ? (tracks.length > 0 ? Math.max(...tracks) + 1 : 0) : undefined;
  };

  /** Writes a clip's new timing (and track) to its file; the saved file reloads the timeline. */
  const writeTiming = async (clip: TimelineClip, mode: DragMode, dt: number, track?: number) => {
    const parentStart = clip.composition === null ? 0 : clips[clip.composition].start;
    const scopeEnd = clip.composition === null ? duration() : (clips[clip.composition].end ?? duration());
    const found = shownDocument(player);
    const hasEnd = found ? (clipElement(found.doc, clip.index)?.hasAttribute('data-end') ?? false) : false;
    const attributes = draggedTiming(clip, mode, dt, fps(), parentStart, scopeEnd, hasEnd);
    if (track !== undefined && track !== clip.track) attributes['data-track-index'] = String(track);
    if (Object.keys(attributes).length === 0 || clip.file === null) {
      if (clip.file === null) editor.say(`${clipLabel(clip)} is not found in its file: it is not edited here`, 'error');
      draw();
      return;
    }
    if (!(await editor.edit(clip.file, { part: clip.part, clip: clip.inPart }, { attributes }))) draw();
  };

  const clipKey = (clip: TimelineClip, e: KeyboardEvent) => {
    const frames = e.shiftKey ? Math.round(fps()) : 1;
    const step = e.key === 'ArrowLeft' ? -frames : e.key === 'ArrowRight' ? frames : 0;
    const rise = e.key === 'ArrowUp' ? -1 : e.key === 'ArrowDown' ? 1 : 0;
    if (step === 0 && rise === 0) return;
    e.preventDefault();
    e.stopPropagation();
    if (step !== 0) void writeTiming(clip, e.altKey ? 'end' : 'move', step / fps());
    else if (clip.track !== null && clip.track + rise >= 0) void writeTiming(clip, 'move', 0, clip.track + rise);
  };

  player.addEventListener('timeupdate', movePlayhead);
  player.addEventListener('ended', movePlayhead);
  player.addEventListener('ready', () => void fetchLines());
  new ResizeObserver(() => draw()).observe(scroller);
  studio.on('findings', () => refresh());
  // A lint finding picked in the problems list: its clip, when it is one, is picked here too.
  studio.on('source', ({ file, line }) => {
    const clip = clips.find((c) => c.file === file && c.line === line);
    if (clip) select(clip.index);
  });
  let page = studio.page;
  studio.on('composition', (info) => {
    // Another composition opened: it starts at its root, nothing selected.
    if (info.file !== page) {
      page = info.file;
      scopeIndex = scopeId = selected = null;
    }
    if (info.error) {
      clips = [];
      draw();
    }
  });
  // New values may move or add clips (a variable that sets a duration): read them once drawn.
  studio.on('values', () => player.addEventListener('timeupdate', () => refresh(), { once: true }));
}

function tickLabel(t: number): string {
  if (t >= 60) return formatSeconds(t).replace(/\.00$/, '');
  return `${Number(t.toFixed(2))} s`;
}
