import type { ClipLine } from '../../composition/clip-lines';
import type { LintFinding } from '../../composition/lint-finding';
import type { PlayerClip } from '../../player/vidkit-player';

/** A clip as the timeline draws it: the runtime's clip, where it is written, and what lint says there. */
export interface TimelineClip extends PlayerClip {
  index: number;
  /** The part it is written in (the page, a composition file, `<page>#<template id>`) and its place among that part's clips: how an edit names it. */
  part: string;
  inPart: number;
  /** The file and 1-based line it is written on; null when not found. */
  file: string | null;
  line: number | null;
  findings: LintFinding[];
}

/**
 * The runtime's clips (vidkit-player clips()) joined with their lines: the n-th clip of a part
 * (the page, a composition file, an inline template) is the n-th of that part's lines
 * (clip-lines.ts lists them in the same order), checked by its tag; and with the lint findings
 * on its line.
 */
export function placeClips(clips: PlayerClip[], page: string, lines: Record<string, ClipLine[]>, findings: LintFinding[]): TimelineClip[] {
  const seen = new Map<string, number>();
  return clips.map((clip, index) => {
    const part = clip.source ?? page;
    const n = seen.get(part) ?? 0;
    seen.set(part, n + 1);
    const at = lines[part]?.[n];
    const file = part.split('#')[0];
    const line = at && at.tag === clip.tag ? at.line : null;
    return { ...clip, index, part, inPart: n, file: line === null ? null : file, line, findings: line === null ? [] : findings.filter((f) => f.file === file && f.line === line) };
  });
}

/** What the timeline shows: the root composition (index null) or a nested one, over its window. */
export interface Scope {
  index: number | null;
  start: number;
  end: number;
}

/** The window of the composition `index` on the root timeline (all of it for the root). */
export function scopeOf(clips: readonly TimelineClip[], index: number | null, duration: number): Scope {
  const host = index === null ? undefined : clips[index];
  if (!host) return { index: null, start: 0, end: duration };
  const end = Math.min(host.end ?? duration, duration);
  return { index, start: host.start, end: end > host.start ? end : duration };
}

/** The compositions from the root down to `index`, for the breadcrumb. */
export function trail(clips: readonly TimelineClip[], index: number | null): Array<number | null> {
  const path: Array<number | null> = [];
  for (let at: number | null = index; at !== null && clips[at]; at = clips[at].composition) path.unshift(at);
  return [null, ...path];
}

/** One row of the timeline: a track (`data-track-index`), or a clip of its own where none is given. */
export interface Lane {
  key: string;
  track: number | null;
  clips: TimelineClip[];
}

/**
 * The clips that play in the composition `scope` shows, by lane: one lane per track index (in
 * index order), then one per clip without one (in document order), as HyperFrames' Studio lays
 * them out.
 */
export function lanesOf(clips: readonly TimelineClip[], scope: Scope): Lane[] {
  const inside = clips.filter((c) => c.composition === scope.index);
  const tracks = new Map<number, TimelineClip[]>();
  const own: Lane[] = [];
  for (const clip of inside) {
    if (clip.track === null) own.push({ key: `clip-${clip.index}`, track: null, clips: [clip] });
    else tracks.set(clip.track, [...(tracks.get(clip.track) ?? []), clip]);
  }
  const tracked = [...tracks.entries()].sort(([a], [b]) => a - b).map(([track, list]) => ({ key: `track-${track}`, track, clips: list }));
  return [...tracked, ...own];
}

export type ClipKind = 'composition' | 'video' | 'audio' | 'image' | 'element';

export function clipKind(clip: PlayerClip): ClipKind {
  if (clip.compositionId !== null) return 'composition';
  if (clip.tag === 'video' || clip.tag === 'audio') return clip.tag;
  if (clip.tag === 'img') return 'image';
  return 'element';
}

/** A clip's name: its id, its composition's, its file's, else its tag. */
export function clipLabel(clip: PlayerClip): string {
  if (clip.id) return `#${clip.id}`;
  if (clip.compositionId) return clip.compositionId;
  if (clip.src) return decodeURIComponent(clip.src.split(/[?#]/)[0].split('/').pop() || clip.src);
  return `<${clip.tag}>`;
}

/** Pixels from the left of the track area to time `t`, the scope drawn `width` wide. */
export function xOfTime(t: number, scope: Scope, width: number): number {
  return ((t - scope.start) / (scope.end - scope.start)) * width;
}

/** The frame at `x` pixels into the track area: the nearest one, within the composition. */
export function frameAtX(x: number, scope: Scope, width: number, fps: number, totalFrames: number): number {
  const t = scope.start + (Math.min(Math.max(x, 0), width) / width) * (scope.end - scope.start);
  return Math.min(totalFrames - 1, Math.max(0, Math.round(t * fps)));
}

const STEPS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600];

/** Ruler marks: the smallest round step at least `minPx` apart, and the times of its marks in the scope. */
export function rulerTicks(scope: Scope, width: number, minPx = 64): { step: number; times: number[] } {
  const span = scope.end - scope.start;
  const step = STEPS.find((s) => (s / span) * width >= minPx) ?? STEPS[STEPS.length - 1];
  const times: number[] = [];
  for (let t = Math.ceil(scope.start / step - 1e-9) * step; t <= scope.end + 1e-9; t += step) times.push(Number(t.toFixed(6)));
  return { step, times };
}

/** The part of a medium's source a clip plays: seconds from and to, when its length is known. */
export function mediaWindow(clip: PlayerClip, duration: number): { from: number; to: number; of: number } | null {
  if (clip.sourceDuration === null) return null;
  const length = ((clip.end ?? duration) - clip.start) * clip.playbackRate;
  return { from: clip.playbackStart, to: Math.min(clip.sourceDuration, clip.playbackStart + length), of: clip.sourceDuration };
}

/** What a drag on the timeline does to a clip: moves it, or moves its start or its end edge. */
export type DragMode = 'move' | 'start' | 'end';

/**
 * The timing attributes a drag of `mode` by `dt` seconds writes, in the seconds of the
 * composition the clip plays in (its start `parentStart` on the root timeline), on whole frames;
 * a clip keeps at least one frame. `scopeEnd` ends a clip that lasts to the end. With `hasEnd` the
 * clip's data-end gives way to the data-duration written. Empty when the drag changes nothing.
 */
export function draggedTiming(clip: PlayerClip, mode: DragMode, dt: number, fps: number, parentStart: number, scopeEnd: number, hasEnd: boolean): Record<string, string | null> {
  const snap = (t: number) => Math.round(t * fps) / fps;
  const frame = 1 / fps;
  const start = snap(clip.start - parentStart);
  const end = snap((clip.end ?? scopeEnd) - parentStart);
  const text = (t: number) => String(Number(t.toFixed(3)));
  const dropEnd: Record<string, null> = hasEnd ? { 'data-end': null } : {};
  if (mode === 'move') {
    const moved = Math.max(0, snap(start + dt));
    return moved === start ? {} : { 'data-start': text(moved) };
  }
  if (mode === 'start') {
    const moved = Math.min(end - frame, Math.max(0, snap(start + dt)));
    return moved === start ? {} : { 'data-start': text(moved), 'data-duration': text(end - moved), ...dropEnd };
  }
  const moved = Math.max(start + frame, snap(end + dt));
  return moved === end ? {} : { 'data-duration': text(moved - start), ...dropEnd };
}
