import type { LintFinding } from '../../composition/lint-finding';
import type { VariableDeclaration } from '../../composition/variables';
import type { VidkitPlayer } from '../../player/vidkit-player';
import type { StudioJob } from '../studio-jobs';

/** What the server knows of a composition page: its root and declarations, or why it does not parse. */
export interface CompositionInfo {
  file: string;
  id?: string;
  width?: number;
  height?: number;
  durationSeconds?: number;
  fps?: number;
  declarations?: VariableDeclaration[];
  error?: string;
}

/** Where the variable values shown come from: the panel's own, or a row of the rows table. */
export interface Values {
  values: Record<string, unknown>;
  /** The row bound to the panel: its index in the table and its name; null for the panel's own values. */
  row: { index: number; name: string } | null;
  /** Who changed them, so that it does not redraw itself. */
  from: 'panel' | 'rows';
}

interface Events {
  /** A composition page was opened, or its file saved. */
  composition: CompositionInfo;
  values: Values;
  findings: LintFinding[];
  job: StudioJob;
  /** Show a file in the source view, at a line. */
  source: { file: string; line?: number };
  /** The row bound to the variables panel is gone: the panel takes its own values back. */
  unbind: undefined;
}

type Listener<T> = (data: T) => void;

/** The studio's shared state and the events by which its views keep each other up to date. */
export class Studio {
  /** The composition page shown, a path in the project. */
  page = 'index.html';
  info: CompositionInfo = { file: 'index.html' };
  values: Values = { values: {}, row: null, from: 'panel' };
  findings: LintFinding[] = [];
  private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();

  constructor(readonly player: VidkitPlayer) {}

  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): void {
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event)!.add(listener as Listener<never>);
  }

  emit<K extends keyof Events>(event: K, data: Events[K]): void {
    for (const listener of this.listeners.get(event) ?? []) (listener as Listener<Events[K]>)(data);
  }

  setValues(values: Values): void {
    this.values = values;
    const json = JSON.stringify(values.values);
    if ((this.player.getAttribute('variables') ?? '{}') !== json) this.player.setAttribute('variables', json);
    this.emit('values', values);
  }
}
