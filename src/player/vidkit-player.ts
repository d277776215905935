import type { Overrides } from '../composition/variables';
import type { Determinism } from '../runtime/boot';
import { EPOCH_FORMS, parseEpoch } from '../values/epoch';
import type { PageClip, VidkitRuntime } from '../runtime/protocol';
import { CompositionDocument, fetchComposition, playableHtml, withDuration } from './composition-document';
import { PLAYER_ICONS } from './player-icons';
import { PLAYER_STYLE, formatTime } from './player-view';

/** A window in which the page runtime (src/runtime/page/) has installed itself. */
interface RuntimeWindow extends Window {
  __vidkit: VidkitRuntime;
  __vidkitErrors: string[];
  /** Set up by playableHtml (composition-document.ts). */
  __vidkitMuted: boolean;
  __vidkitApplyMuted(): void;
}

/**
 * A clip or nested composition of the page, as the runtime times it for a frame (docs/guide/authoring.md,
 * `<vidkit-player>`, clips()): seconds on the root timeline.
 */
export type PlayerClip = PageClip;

/** One loaded copy of the composition. The runtime only moves forward, so going back means a new one. */
interface Stage {
  iframe: HTMLIFrameElement;
  win: RuntimeWindow;
  frame: number;
}

const ATTRIBUTES = ['src', 'width', 'height', 'variables', 'seed', 'epoch', 'controls', 'muted', 'loop', 'autoplay'] as const;

/**
 * `<vidkit-player src width height variables seed epoch autoplay loop muted controls>`: shows a
 * composition through the same runtime, virtual clock and seeded randomness as the renderer, so
 * frame i here is frame i of `vidkit render` (with the same `--seed` and `--epoch`).
 * Methods play(), pause(), seek(seconds); events timeupdate, ended, error, ready.
 */
export class VidkitPlayer extends HTMLElement {
  static get observedAttributes(): readonly string[] {
    return ATTRIBUTES;
  }

  private readonly root: ShadowRoot;
  private readonly screen: HTMLDivElement;
  private readonly message: HTMLDivElement;
  private readonly bar: HTMLDivElement;
  private readonly playButton: HTMLButtonElement;
  private readonly scrub: HTMLInputElement;
  private readonly readout: HTMLSpanElement;
  private comp?: CompositionDocument;
  private stage?: Stage;
  /** Bumped by every (re)load so that work for an older composition or variables is dropped. */
  private generation = 0;
  private shownFrame = 0;
  private pendingFrame?: number;
  /** The frame last asked for: shown, or on its way. */
  private requestedFrame = 0;
  private pendingRebuild = false;
  private drain?: Promise<void>;
  private playing = false;
  /** Bumped by every play() and pause(), so one play's tick loop never outlives it. */
  private playback = 0;
  private anchor = { wallMs: 0, frame: 0 };
  private wantsPlay = false;
  private rate = 1;

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
    this.root.innerHTML = `<style>${PLAYER_STYLE}</style>
      <div class="screen" part="screen"><div class="message" part="message"></div></div>
      <div class="bar" part="controls">
        <button class="play" title="Play (space)" aria-label="Play">${PLAYER_ICONS.play}</button>
        <button class="back" title="Previous frame" aria-label="Previous frame">${PLAYER_ICONS.stepBack}</button>
        <button class="fwd" title="Next frame" aria-label="Next frame">${PLAYER_ICONS.stepForward}</button>
        <input class="scrub" type="range" min="0" max="0" step="1" value="0" aria-label="Time">
        <span class="readout"></span>
      </div>`;
    const q = <T extends Element>(sel: string) => this.root.querySelector(sel) as T;
    this.screen = q('.screen');
    this.message = q('.message');
    this.bar = q('.bar');
    this.playButton = q('.play');
    this.scrub = q('.scrub');
    this.readout = q('.readout');
    this.playButton.addEventListener('click', () => (this.playing ? this.pause() : this.play()));
    q<HTMLButtonElement>('.back').addEventListener('click', () => void this.step(-1));
    q<HTMLButtonElement>('.fwd').addEventListener('click', () => void this.step(1));
    this.scrub.addEventListener('input', () => {
      this.pause();
      void this.goto(Number(this.scrub.value));
    });
    new ResizeObserver(() => this.layout()).observe(this.screen);
  }

  connectedCallback(): void {
    this.sizeBox();
    this.bar.hidden = !this.hasAttribute('controls');
    if (!this.comp && this.getAttribute('src')) void this.load();
  }

  attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    if (old === value || !this.isConnected) return;
    if (name === 'src') void this.load();
    else if (name === 'variables' || name === 'seed' || name === 'epoch') this.rebuild();
    else if (name === 'width' || name === 'height') this.sizeBox();
    else if (name === 'controls') this.bar.hidden = value === null;
    else if (name === 'muted' && this.stage) this.applyMuted(this.stage.win);
  }

  /** Current time in seconds: frame / fps. */
  get currentTime(): number {
    return this.comp ? this.shownFrame / this.comp.fps : 0;
  }

  get duration(): number {
    return this.comp?.durationSeconds ?? NaN;
  }

  get frame(): number {
    return this.shownFrame;
  }

  get paused(): boolean {
    return !this.playing;
  }

  /** Frames per second of the composition; NaN until it is loaded. */
  get fps(): number {
    return this.comp?.fps ?? NaN;
  }

  /** Speed of play(): 1 is real time; from 0.25 to 8. */
  get playbackRate(): number {
    return this.rate;
  }

  set playbackRate(value: number) {
    const rate = Math.min(8, Math.max(0.25, Number(value) || 1));
    if (this.playing) this.anchor = { wallMs: performance.now(), frame: this.shownFrame };
    this.rate = rate;
  }

  /**
   * The clips and nested compositions of the composition, with their windows as the renderer
   * times them at the frame shown (media lengths and timelines included); empty before it loads.
   */
  clips(): PlayerClip[] {
    return this.stage ? this.stage.win.__vidkit.__clips() : [];
  }

  play(): void {
    if (!this.comp) {
      this.wantsPlay = true;
      return;
    }
    if (this.playing) return;
    this.playing = true;
    const playback = ++this.playback;
    this.setPlayIcon('pause');
    const restart = this.shownFrame >= this.comp.totalFrames - 1 ? this.goto(0) : Promise.resolve();
    void restart.then(() => {
      this.anchor = { wallMs: performance.now(), frame: this.shownFrame };
      requestAnimationFrame((t) => this.tick(playback, t));
    });
  }

  pause(): void {
    this.wantsPlay = false;
    this.playing = false;
    this.playback++;
    this.setPlayIcon('play');
  }

  /** Shows the frame at `seconds` (rounded to the nearest frame); resolves once it is on screen. */
  seek(seconds: number): Promise<void> {
    if (!this.comp) return Promise.reject(new Error('vidkit-player: no composition loaded'));
    const shown = this.goto(Math.round(Number(seconds) * this.comp.fps));
    // Playing on from the new time rather than jumping back to where playback started.
    return shown.then(() => {
      if (this.playing) this.anchor = { wallMs: performance.now(), frame: this.shownFrame };
    });
  }

  /** Fetches the composition again (after an edit) and shows it at the current time. */
  reload(): Promise<void> {
    return this.load(this.shownFrame);
  }

  /** Pauses and moves `delta` frames (negative: back) from the frame last asked for, so quick steps add up. */
  step(delta: number): Promise<void> {
    this.pause();
    return this.goto(this.requestedFrame + delta);
  }

  private tick(playback: number, now: number): void {
    const comp = this.comp;
    if (playback !== this.playback || !comp) return;
    const target = this.anchor.frame + Math.floor(((now - this.anchor.wallMs) * comp.fps * this.rate) / 1000);
    if (target >= comp.totalFrames) {
      if (this.hasAttribute('loop')) {
        void this.goto(0).then(() => {
          this.anchor = { wallMs: performance.now(), frame: 0 };
          requestAnimationFrame((t) => this.tick(playback, t));
        });
        return;
      }
      void this.goto(comp.totalFrames - 1).then(() => {
        if (playback !== this.playback) return;
        this.pause();
        this.dispatchEvent(new Event('ended'));
      });
      return;
    }
    // While a frame is still being applied, later ticks catch up rather than queue up.
    if (target !== this.shownFrame && !this.drain) void this.goto(target);
    requestAnimationFrame((t) => this.tick(playback, t));
  }

  private async load(atFrame = 0): Promise<void> {
    const generation = ++this.generation;
    const src = this.getAttribute('src');
    const resume = this.playing;
    this.pause();
    if (!src) return;
    this.message.textContent = 'Loading…';
    try {
      let comp = await fetchComposition(new URL(src, document.baseURI).href);
      if (generation !== this.generation) return;
      this.comp = comp;
      this.pendingRebuild = true;
      if (comp.durationSeconds === undefined) {
        // Without data-duration only the loaded page knows the length: the first stage tells it.
        const stage = await this.createStage();
        if (generation !== this.generation) {
          stage.iframe.remove();
          return;
        }
        comp = withDuration(comp, stage.win.__vidkit.__duration());
        this.comp = comp;
        this.dropStage();
        stage.iframe.style.visibility = 'visible';
        this.stage = stage;
        this.pendingRebuild = false;
        this.message.textContent = '';
      }
      this.scrub.max = String(comp.totalFrames - 1);
      this.sizeBox();
      await this.goto(atFrame);
      if (generation !== this.generation) return;
      this.dispatchEvent(new Event('ready'));
      if (resume || this.wantsPlay || (atFrame === 0 && this.hasAttribute('autoplay'))) this.play();
    } catch (err) {
      if (generation === this.generation) this.fail(err);
    }
  }

  /** New variables: a fresh page at the frame now shown. */
  private rebuild(): void {
    if (!this.comp) return;
    this.pendingRebuild = true;
    void this.goto(this.shownFrame);
  }

  /**
   * Shows `frame`. Requests made while one is applied collapse into the latest, so scrubbing
   * never builds a queue of stale frames.
   */
  private goto(frame: number): Promise<void> {
    const comp = this.comp;
    if (!comp) return Promise.resolve();
    this.pendingFrame = Math.min(comp.totalFrames - 1, Math.max(0, Math.floor(frame)));
    this.requestedFrame = this.pendingFrame;
    this.drain ??= this.applyPending().finally(() => (this.drain = undefined));
    return this.drain;
  }

  private async applyPending(): Promise<void> {
    while (this.pendingFrame !== undefined) {
      const frame = this.pendingFrame;
      this.pendingFrame = undefined;
      const generation = this.generation;
      try {
        await this.show(frame);
      } catch (err) {
        if (generation === this.generation) this.fail(err);
        return;
      }
    }
  }

  private async show(frame: number): Promise<void> {
    const generation = this.generation;
    if (!this.stage || this.pendingRebuild || frame < this.stage.frame) {
      this.pendingRebuild = false;
      const stage = await this.createStage();
      if (generation !== this.generation) {
        stage.iframe.remove();
        return;
      }
      await this.seekStage(stage, frame);
      this.dropStage();
      stage.iframe.style.visibility = 'visible';
      this.stage = stage;
      this.message.textContent = '';
    } else {
      await this.seekStage(this.stage, frame);
    }
    this.shownFrame = frame;
    this.scrub.value = String(frame);
    this.readout.textContent = `${formatTime(frame / this.comp!.fps)} / ${formatTime(this.comp!.durationSeconds ?? 0)} · frame ${frame}`;
    await nextPaint();
    this.dispatchEvent(new Event('timeupdate'));
  }

  /** Resolves once the frame is in place, waits the page asked for (hf-seek's waitUntil, video seeks) included. */
  private async seekStage(stage: Stage, frame: number): Promise<void> {
    stage.frame = frame;
    await stage.win.__vidkit.__seekFrame(frame);
    throwPageErrors(stage.win);
  }

  /** Loads the composition into a hidden iframe and waits until it is ready for frame 0. */
  private async createStage(): Promise<Stage> {
    const comp = this.comp!;
    const iframe = document.createElement('iframe');
    iframe.setAttribute('scrolling', 'no');
    iframe.setAttribute('title', 'composition');
    iframe.style.visibility = 'hidden';
    iframe.width = String(comp.width);
    iframe.height = String(comp.height);
    const loaded = new Promise<void>((resolve) => iframe.addEventListener('load', () => resolve(), { once: true }));
    iframe.srcdoc = playableHtml(comp, this.overrides(), this.determinism(), this.hasAttribute('muted'));
    this.screen.appendChild(iframe);
    this.layout();
    await loaded;
    const win = iframe.contentWindow as RuntimeWindow | null;
    if (!win || !win.__vidkit) {
      iframe.remove();
      throw new Error(`${comp.url}: the page did not start the vidkit runtime`);
    }
    try {
      throwPageErrors(win);
      await win.__vidkit.__ready();
    } catch (err) {
      iframe.remove();
      throw err;
    }
    // `muted` may have changed while the page loaded.
    this.applyMuted(win);
    return { iframe, win, frame: -1 };
  }

  private dropStage(): void {
    this.stage?.iframe.remove();
    this.stage = undefined;
  }

  /** `seed` and `epoch`, as `vidkit render --seed` and `--epoch` take them; unset, the same defaults. */
  private determinism(): Determinism {
    const epoch = this.getAttribute('epoch');
    const epochMs = epoch === null ? undefined : parseEpoch(epoch);
    if (epoch !== null && epochMs === undefined) throw new Error(`vidkit-player: the epoch attribute must be ${EPOCH_FORMS}, got "${epoch}"`);
    return { seed: this.getAttribute('seed') ?? undefined, epochMs };
  }

  private overrides(): Overrides {
    const raw = this.getAttribute('variables');
    if (!raw) return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      throw new Error(`vidkit-player: the variables attribute is not valid JSON (${(err as Error).message})`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new Error('vidkit-player: the variables attribute must be a JSON object');
    }
    return parsed as Overrides;
  }

  private applyMuted(win: RuntimeWindow): void {
    win.__vidkitMuted = this.hasAttribute('muted');
    win.__vidkitApplyMuted();
  }

  /**
   * The box: `width` × `height` attributes in CSS pixels; without `height`, the composition's
   * aspect ratio. Page CSS on the element (say `width: 100%`) wins over the attributes.
   */
  private sizeBox(): void {
    const set = (prop: string, value: string | undefined) =>
      value === undefined ? this.style.removeProperty(prop) : this.style.setProperty(prop, value);
    const w = Number(this.getAttribute('width'));
    const h = Number(this.getAttribute('height'));
    set('--vidkit-player-width', w > 0 ? `${w}px` : this.comp ? `${this.comp.width}px` : undefined);
    set('--vidkit-player-height', h > 0 ? `${h}px` : undefined);
    set('--vidkit-player-aspect', this.comp ? `${this.comp.width} / ${this.comp.height}` : undefined);
    this.layout();
  }

  /** Scales every iframe to fit the screen, centred, at whole-pixel offsets. */
  private layout(): void {
    const comp = this.comp;
    if (!comp) return;
    const boxW = this.screen.clientWidth;
    const boxH = this.screen.clientHeight;
    if (boxW === 0 || boxH === 0) return;
    const scale = Math.min(boxW / comp.width, boxH / comp.height);
    const left = Math.round((boxW - comp.width * scale) / 2);
    const top = Math.round((boxH - comp.height * scale) / 2);
    this.screen.querySelectorAll('iframe').forEach((f) => {
      f.style.transform = `translate(${left}px, ${top}px) scale(${scale})`;
    });
  }

  private setPlayIcon(icon: 'play' | 'pause'): void {
    this.playButton.innerHTML = PLAYER_ICONS[icon];
    this.playButton.title = icon === 'play' ? 'Play (space)' : 'Pause (space)';
    this.playButton.setAttribute('aria-label', icon === 'play' ? 'Play' : 'Pause');
  }

  private fail(err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.pause();
    this.message.textContent = message;
    this.dispatchEvent(new CustomEvent('error', { detail: { message } }));
  }
}

function throwPageErrors(win: RuntimeWindow): void {
  const errors = win.__vidkitErrors;
  if (errors && errors.length > 0) throw new Error(`a script in the composition threw: ${errors[0]}`);
}

/** Resolves after the browser has painted what was just changed. */
function nextPaint(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
}

declare global {
  // `document.querySelector('vidkit-player')` and `createElement` give the element's own type.
  interface HTMLElementTagNameMap {
    'vidkit-player': VidkitPlayer;
  }
}

if (!customElements.get('vidkit-player')) customElements.define('vidkit-player', VidkitPlayer);
