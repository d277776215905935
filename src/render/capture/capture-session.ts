import * as fs from 'node:fs';
import type { Browser, CDPSession, Page } from 'puppeteer-core';
import { VidkitError, badInput, errorMessage } from '../../errors';
import { MissingGlyphs, glyphCheckScript } from '../../runtime/glyph-check';
import type { MediaElementTiming, PageReach, SeekOutcome } from '../../runtime/protocol';
import { RuntimeBoot, bootScript } from '../../runtime/runtime';
import { BrowserProfile, closeBrowser, launchBrowser, openControlledPage } from '../browser/browser';
import type { AssetRouter } from '../serve/asset-router';
import { DeadlineError, withDeadline } from '../browser/deadline';
import { PageDialog, answerDialogs } from './page-dialogs';
import { drawUntilImage } from './redraw';
import { EgressGate, openEgressGate } from '../serve/egress-gate';
import { EgressPolicy } from '../serve/egress-policy';
import type { PageTimeouts } from '../../values/page-timeouts';
import type { FrameFormat } from '../../values/quality';
import { callResult, runtimeCall } from './runtime-call';
import { PageVideoFrames } from './page-video-frames';
import type { FrameChannel } from '../../native-addon';
import { closeFrameChannel, openFrameChannel } from './frame-channel';
import { FrameImage, releaseImage, shareImage } from './frame-image';

/** Draws without a capture that a seeked video may take to present its new picture. */
const PRESENT_ATTEMPTS = 10;

export type { MediaElementTiming } from '../../runtime/protocol';

export interface SessionOptions {
  profile: BrowserProfile;
  /** Page URL of the composition, served from the project directory. */
  url: string;
  /** The composition's size in CSS pixels. */
  width: number;
  height: number;
  /** Device pixels per CSS pixel: the output is width×scale by height×scale. */
  scale?: number;
  boot: RuntimeBoot;
  format: FrameFormat;
  /** Capture the page's transparency: where the page draws no background, alpha is 0. */
  transparent?: boolean;
  /**
   * Answers remote requests from the render's fetched copies; with it, the page's videos show
   * pictures of the native decoder (video-frames/), without it they play in the browser.
   */
  assets?: AssetRouter;
  /** What the browser may reach when it has no asset router (whose policy it otherwise follows); by default only public addresses. */
  egress?: EgressPolicy;
  timeouts: PageTimeouts;
  /** The browser's profile directory, removed on close; by default puppeteer's own. */
  profileDir?: string;
  /** An image, stylesheet or font that failed to load fails the page (`--strict`); otherwise it is a warning. */
  strictLoads?: boolean;
  /**
   * JPEG frames for an 8-bit yuv420p encoder: where it can, the browser hands each screenshot over
   * raw and {@link CaptureSession.capture} returns it converted for that encoder
   * (frame-channel.ts) instead of as a JPEG. Not for a caller that keeps the image itself.
   */
  rawFrames?: boolean;
  /** Told what the page did that the render went past: a dialog it dismissed, what failed to load (once per page loaded). */
  onWarning?: (message: string) => void;
}

/** Where a page is while it loads, for the warnings about it (at a frame: "at frame N"). */
const AT_LOAD = 'at load';

/** Milliseconds a setup step on an open page (metrics, background, scripts) may take. */
const STEP_TIMEOUT_MS = 15_000;
/** Milliseconds the glyph report may take: the page's own wait for fonts (10 s) and a margin. */
const GLYPH_REPORT_TIMEOUT_MS = 15_000;
/** Milliseconds a browser whose page hangs has to answer a browser-level call to count as alive. */
const ALIVE_TIMEOUT_MS = 3_000;

/**
 * The browser died or stopped answering: not the page's fault, so the worker relaunches it and
 * renders on from the frame it was at (docs/explanation/how-a-render-runs.md).
 */
export class BrowserFailure extends VidkitError {
  constructor(message: string) {
    super(message);
    this.name = 'BrowserFailure';
  }
}

/**
 * One browser and one page showing the composition, driven frame by frame. Each session owns its
 * browser: Chromium's begin-frame control does not keep two controlled pages of one browser apart.
 */
export class CaptureSession {
  private browser?: Browser;
  /** Everything the browser sends goes through it (egress-gate.ts); what it refuses fails the render. */
  private gate?: EgressGate;
  private page?: Page;
  private client?: CDPSession;
  private videoFrames?: PageVideoFrames;
  private frameTicks = 0;
  /** A handle on the last image drawn: what an unchanged page still shows. */
  private lastImage?: FrameImage;
  /** The last frame the page was moved to (-1: none since it loaded). */
  private pageFrame = -1;
  private readonly pageErrors: string[] = [];
  private readonly assetErrors: Error[] = [];
  /** Where the page asked to go when it navigated away from the composition. */
  private navigatedTo?: string;
  /** The page's own frame (iframes have frames of their own). */
  private mainFrameId?: string;
  /** Where the page is: "at load" or "at frame N", for the warnings about it. */
  private phase = AT_LOAD;
  /** The waits on the page under way (see {@link orTrouble}): each ends at once when the page fails the render. */
  private readonly waits = new Set<() => void>();
  private disconnected = false;
  private closing?: Promise<void>;
  /** When the page's scripts last ran (its load, a seek): what they sent reaches the gate a moment later. */
  private scriptsRanAt = 0;

  /** The runtime script every new document of the page runs first. */
  private bootScript?: string;
  /** Where the browser writes its screenshots' pixels, when it can (frame-channel.ts). */
  private frameChannel?: FrameChannel;

  private constructor(private opts: SessionOptions) {}

  static async open(opts: SessionOptions): Promise<CaptureSession> {
    const session = new CaptureSession(opts);
    try {
      await session.start();
      return session;
    } catch (err) {
      await session.close();
      throw err;
    }
  }

  private async start(): Promise<void> {
    const { profile, width, height } = this.opts;
    const scale = this.opts.scale ?? 1;
    this.gate = await openEgressGate(this.opts.assets?.egress ?? this.opts.egress ?? new EgressPolicy(), (message) => this.assetFailed(message));
    if (this.opts.rawFrames && this.opts.format.type === 'jpeg' && profile.capture === 'beginframe') {
      this.frameChannel = openFrameChannel(Math.round(width * scale), Math.round(height * scale));
    }
    this.browser = await launchBrowser(profile, { scale, userDataDir: this.opts.profileDir, egress: this.gate.args, frameChannel: this.frameChannel?.path });
    this.browser.once('disconnected', () => (this.disconnected = true));
    const step = <T>(name: string, work: Promise<T>) =>
      this.guard(withDeadline(work, STEP_TIMEOUT_MS, () => `the browser did not ${name} within ${STEP_TIMEOUT_MS / 1000} s`), `while it was opening the page (${name})`);
    this.page = await step('open a page', this.createPage(this.browser));
    this.page.on('pageerror', (err) => this.pageErrors.push(errorMessage(err)));
    this.client = await step('open a protocol session', this.page.createCDPSession());
    const client = this.client;
    if (this.opts.assets) await step('route assets', this.routeAssets(client, this.opts.assets));
    if (this.opts.assets) {
      this.videoFrames = await step('serve video pictures', PageVideoFrames.attach(client, this.opts.assets, this.opts.url, (message) => this.assetFailed(message)));
    }
    // The screen is the composition's size too, whatever the browser's window: `screen.width`
    // and the device-width media queries read it.
    await step(
      'set the viewport',
      client.send('Emulation.setDeviceMetricsOverride', { width, height, screenWidth: width, screenHeight: height, deviceScaleFactor: scale, mobile: false }),
    );
    await step(
      'set the background',
      client.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 255, g: 255, b: 255, a: this.opts.transparent ? 0 : 1 } }),
    );
    // Local-time Date methods read the same on every machine and in every cloud region.
    await step('set the time zone', client.send('Emulation.setTimezoneOverride', { timezoneId: 'UTC' }));
    // Before the runtime, which makes the page's timers virtual: the check's deadline is real time.
    await step('add the glyph check', this.page.evaluateOnNewDocument(glyphCheckScript()));
    this.bootScript = (await step('add the runtime', this.page.evaluateOnNewDocument(bootScript(this.pageBoot(this.opts.boot))))).identifier;
    await step('watch navigation', this.watchNavigation(client));
    await step('answer dialogs', answerDialogs(this.page, (dialog) => this.warnDialog(dialog)));
    await this.load();
  }

  /** Navigates to the composition and waits until it is ready: the same steps for a new page and a reset one. */
  private async load(): Promise<void> {
    const { profile, timeouts } = this.opts;
    const loadBy = Date.now() + timeouts.loadMs;
    const loadLimit = `within the load timeout of ${timeouts.loadMs / 1000} s (a script may loop forever at load, or an asset never arrives; --load-timeout sets it)`;
    this.phase = AT_LOAD;
    let response;
    try {
      response = await this.guard(this.orTrouble(this.page!.goto(this.opts.url, { waitUntil: 'load', timeout: timeouts.loadMs })), 'while the page loaded');
    } catch (err) {
      if (err instanceof BrowserFailure) throw err;
      this.throwIfTroubled(AT_LOAD);
      if ((err as Error).name === 'TimeoutError') throw new DeadlineError(`the composition page did not load ${loadLimit}`);
      throw new VidkitError(`the composition page did not load: ${firstLine(errorMessage(err))}`);
    }
    this.throwIfTroubled(AT_LOAD);
    if (response && !response.ok()) {
      throw new VidkitError(`the composition page did not load: HTTP ${response.status()} for ${this.opts.url}`);
    }
    try {
      await this.guard(
        withDeadline(
          this.orTrouble(this.page!.evaluate(() => window.__vidkit!.__ready())),
          Math.max(1, loadBy - Date.now()),
          () => `the composition did not become ready ${loadLimit}`,
        ),
        'while the page got ready',
      );
    } catch (err) {
      if (err instanceof BrowserFailure) throw err;
      this.throwIfTroubled(AT_LOAD);
      if (err instanceof DeadlineError) throw err;
      this.throwIfPageFailed();
      throw new VidkitError(`the composition did not become ready: ${firstLine(errorMessage(err))}`);
    }
    this.scriptsRanAt = Date.now();
    this.throwIfTroubled(AT_LOAD);
    this.throwIfPageFailed();
    await this.reportFailedLoads();
    await this.guard(
      withDeadline(this.page!.evaluate((variables) => window.__vidkitGlyphs?.start(variables), this.opts.boot.variables), STEP_TIMEOUT_MS, () => `the glyph check did not start within ${STEP_TIMEOUT_MS / 1000} s`),
      'while it started the glyph check',
    );
    if (profile.capture === 'beginframe') {
      // The first controlled frame after load draws nothing; prime the compositor once.
      await this.guard(
        withDeadline(this.beginFrame(false), STEP_TIMEOUT_MS, () => `the browser did not draw a first frame within ${STEP_TIMEOUT_MS / 1000} s`),
        'while it was opening the page (draw a first frame)',
      );
    }
  }

  /**
   * Shows the composition anew with other variables (`boot`), in this browser and page: a new
   * document with the new runtime, as a cold session's first one. What a document could carry
   * over to the next goes first: the origin's storage (the project server's origin stays the same),
   * the tab's session storage, window.name and history. Throws as {@link open} does.
   */
  async reset(boot: RuntimeBoot): Promise<void> {
    const page = this.page!;
    const client = this.client!;
    const step = <T>(name: string, work: Promise<T>) =>
      this.guard(withDeadline(work, STEP_TIMEOUT_MS, () => `the browser did not ${name} within ${STEP_TIMEOUT_MS / 1000} s`), `while it was resetting the page (${name})`);
    // A beforeunload prompt as the previous page is left is that page's.
    this.phase = 'as the previous page was left';
    await step('clear the tab', page.evaluate('try { sessionStorage.clear(); } catch {} window.name = ""'));
    await step('leave the page', page.goto('about:blank', { waitUntil: 'load', timeout: STEP_TIMEOUT_MS }));
    await step('clear storage', client.send('Storage.clearDataForOrigin', { origin: new URL(this.opts.url).origin, storageTypes: 'all' }));
    // Without this a browser kept for many renders grew by about 7 MB each (its decoded image,
    // font and script caches); told memory is short, it frees them, as a new browser has none.
    await step('free its caches', client.send('Memory.simulatePressureNotification', { level: 'critical' }));
    await step('reset history', client.send('Page.resetNavigationHistory'));
    await step('replace the runtime', page.removeScriptToEvaluateOnNewDocument(this.bootScript!));
    this.opts = { ...this.opts, boot };
    this.bootScript = (await step('add the runtime', page.evaluateOnNewDocument(bootScript(this.pageBoot(boot))))).identifier;
    this.forgetLastImage();
    this.pageFrame = -1;
    this.pageErrors.length = 0;
    this.assetErrors.length = 0;
    await this.load();
  }

  /**
   * What the page could not load (an image, a stylesheet, a font; any scheme, data: included) is
   * drawn as Chromium draws the page without it, as HyperFrames renders it, and named in a
   * warning; under `--strict` it fails the render. Media and script errors fail on their own.
   * Read once the page is ready and again once a range is drawn (what failed on the way).
   */
  async reportFailedLoads(): Promise<void> {
    const read = this.page!.evaluate(() => window.__vidkit!.__failedLoads());
    const failed = await this.guard(
      withDeadline(read, STEP_TIMEOUT_MS, () => `the page did not say what failed to load within ${STEP_TIMEOUT_MS / 1000} s`),
      'while it read what failed to load',
    );
    if (failed.length === 0) return;
    if (this.opts.strictLoads) throw badInput(`--strict: the composition did not load whole: ${failed.join('; ')} failed to load`);
    this.opts.onWarning?.(`${failed.join('; ')} failed to load: drawn as the browser shows the page without ${failed.length === 1 ? 'it' : 'them'}`);
  }

  /**
   * Waits for the requests the page's scripts have sent so far to reach the egress gate and get
   * its verdict ({@link EgressGate.settled}), then fails the render if one was refused: a beacon
   * the last frame's script sends fails this render, not the next one a warm browser shows, nor
   * none. Called once a range is drawn; costs at most a few hundred milliseconds after its last seek.
   */
  async settleRequests(): Promise<void> {
    await this.gate?.settled(this.scriptsRanAt);
    this.throwIfTroubled(this.phase);
  }

  /** The runtime's configuration in this session's pages: videos show native pictures where this session serves them. */
  private pageBoot(boot: RuntimeBoot): RuntimeBoot {
    return this.videoFrames ? { ...boot, videoFrames: true } : boot;
  }

  /**
   * A page that leaves the composition would render another document's frames: asking to, at
   * load or at any frame, fails the render at once. The event comes for each navigation the page
   * itself starts in its own frame (a script setting `location`, a reload, a link, a form, a meta
   * refresh), before the other document replaces it, and never for the session's own
   * navigations, same-document ones (a fragment, history.pushState), iframes' or new windows'.
   */
  private async watchNavigation(client: CDPSession): Promise<void> {
    client.on('Page.frameRequestedNavigation', ({ frameId, url, disposition }) => {
      if (frameId !== this.mainFrameId || disposition !== 'currentTab') return;
      this.navigatedTo ??= url;
      this.troubleSeen();
    });
    await client.send('Page.enable');
    this.mainFrameId = (await client.send('Page.getFrameTree')).frameTree.frame.id;
  }

  /** Whether {@link reset} can show another render in this browser: not once the page has navigated away, which may leave its tab anywhere. */
  get reusable(): boolean {
    return this.navigatedTo === undefined;
  }

  /** Whether the page has done what fails the render whatever it waits for: navigated away, or asked for an asset that cannot be served. */
  private get troubled(): boolean {
    return this.navigatedTo !== undefined || this.assetErrors.length > 0;
  }

  /**
   * `work`, unless the page fails the render first ({@link troubled}): no wait outlasts that, and
   * {@link throwIfTroubled} then says what it did.
   */
  private orTrouble<T>(work: Promise<T>): Promise<T> {
    const troubled = () => new VidkitError('the page failed the render');
    if (this.troubled) {
      // Not waited for, so its own rejection (the same trouble) is nobody's.
      work.catch(() => undefined);
      return Promise.reject(troubled());
    }
    return new Promise<T>((resolve, reject) => {
      const stop = () => reject(troubled());
      this.waits.add(stop);
      work.then(
        (value) => {
          this.waits.delete(stop);
          resolve(value);
        },
        (err) => {
          this.waits.delete(stop);
          reject(err);
        },
      );
    });
  }

  /** Ends every wait under way: the page has just failed the render. */
  private troubleSeen(): void {
    for (const stop of this.waits) stop();
    this.waits.clear();
  }

  /** Throws what failed the render, if the page has: `where` is "at load" or "at frame N". */
  private throwIfTroubled(where: string): void {
    if (this.navigatedTo !== undefined) {
      throw new VidkitError(`the composition navigated away to ${this.navigatedTo} ${where}: a composition must stay on its page`);
    }
    if (this.assetErrors.length > 0) throw this.assetErrors[0];
  }

  /** A dialog the page opened, dismissed (page-dialogs.ts), as a warning naming it and where it came. */
  private warnDialog({ kind, text, answer, frame }: PageDialog): void {
    const where = this.phase === AT_LOAD || frame === undefined ? this.phase : `at frame ${frame}`;
    const quoted = text === '' ? '' : ` ${JSON.stringify(text)}`;
    this.opts.onWarning?.(`the composition opened a dialog ${where}: ${kind}${quoted}; ${answer}, as a render has no one to answer it`);
  }

  /**
   * Turns the protocol's errors after the browser died into a {@link BrowserFailure} saying so.
   * `during` says what was going on ("at frame 12").
   */
  private async guard<T>(work: Promise<T>, during: string): Promise<T> {
    try {
      return await work;
    } catch (err) {
      if (this.disconnected || isConnectionLoss(err)) throw new BrowserFailure(`the browser ${this.exitDescription()} ${during}`);
      throw err;
    }
  }

  private exitDescription(): string {
    const proc = this.browser?.process();
    if (proc?.signalCode) return `was killed (${proc.signalCode})`;
    if (proc?.exitCode !== null && proc?.exitCode !== undefined) return `exited with code ${proc.exitCode}`;
    return 'stopped answering';
  }

  /**
   * Sends each remote request of the page to the render's local copy of it (fetched once per
   * render, not once per worker) and audio the browser cannot play to its FLAC copy. The page still
   * sees the URL it asked for. Only the page's own requests are paused here (the Fetch domain on its
   * session): a web worker's go out as they are, through the egress gate, since pausing them too
   * (puppeteer's request interception) left a worker's fetch hanging now and then (Chromium 156).
   */
  private async routeAssets(client: CDPSession, assets: AssetRouter): Promise<void> {
    client.on('Fetch.requestPaused', ({ requestId, request, resourceType }) => {
      // The Fetch domain calls an EventSource's request XHR; its Accept header tells it apart.
      const accept = Object.entries(request.headers).find(([name]) => name.toLowerCase() === 'accept')?.[1];
      assets
        .route(request.url, accept === 'text/event-stream' ? 'eventsource' : resourceType.toLowerCase(), request.method)
        .then(
          (url) => client.send('Fetch.continueRequest', { requestId, ...(url === undefined ? {} : { url }) }),
          (err) => {
            this.assetFailed(err);
            return client.send('Fetch.failRequest', { requestId, errorReason: 'Failed' });
          },
        )
        // The page or its browser is gone: nothing waits for this request any more.
        .catch(() => undefined);
    });
    await client.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
  }

  /** A request the page may not have (the router or the egress gate refused it): fails the render at once. */
  private assetFailed(err: unknown): void {
    this.assetErrors.push(err instanceof VidkitError ? err : new VidkitError(errorMessage(err)));
    this.troubleSeen();
  }

  private async createPage(browser: Browser): Promise<Page> {
    return this.opts.profile.capture === 'screenshot' ? browser.newPage() : openControlledPage(browser);
  }

  private throwIfPageFailed(): void {
    if (this.pageErrors.length > 0) {
      throw new VidkitError(`a script in the composition threw: ${firstLine(this.pageErrors[0])}`);
    }
  }

  private async beginFrame(screenshot: boolean): Promise<{ hasDamage: boolean; screenshotData?: string }> {
    const interval = 1000 / this.opts.boot.fps;
    this.frameTicks += interval;
    const fmt = this.opts.format;
    return this.client!.send('HeadlessExperimental.beginFrame', {
      frameTimeTicks: this.frameTicks,
      interval,
      ...(screenshot
        ? { screenshot: fmt.type === 'jpeg' ? { format: 'jpeg', quality: fmt.quality, optimizeForSpeed: true } : { format: 'png', optimizeForSpeed: true } }
        : {}),
    });
  }

  /**
   * Keeps the pictures of the page's videos under `dir` from now on, and shows those kept there
   * without decoding them again (a batch's shared windows); undefined decodes every picture.
   */
  keepVideoPicturesIn(dir: string | undefined): void {
    this.videoFrames?.keepPicturesIn(dir);
  }

  /**
   * Shows `frame` (time frame/fps) and returns its image, or null when nothing on the page changed
   * since the previous frame of this session, so the caller repeats that one. `whole` returns the
   * image even then: the first frame of a new segment has no frame before it to repeat.
   */
  async capture(frame: number, whole = false): Promise<FrameImage | null> {
    const { frameMs } = this.opts.timeouts;
    const where = `at frame ${frame}`;
    this.phase = where;
    try {
      return await this.guard(
        withDeadline(this.orTrouble(this.captureAfterPrevious(frame, whole)), frameMs, () => `frame ${frame} did not seek and draw within ${frameMs / 1000} s`),
        where,
      );
    } catch (err) {
      if (err instanceof BrowserFailure) throw err;
      this.throwIfTroubled(where);
      if (!(err instanceof DeadlineError)) throw err;
      // A browser that still answers has a page stuck in a script: the same frame would hang again.
      if (!(await this.answers())) throw new BrowserFailure(`the browser stopped answering at frame ${frame}`);
      throw new DeadlineError(
        `frame ${frame} did not seek and draw within the frame timeout of ${frameMs / 1000} s: a script of the composition may loop forever at that time ` +
          '(--frame-timeout sets the limit)',
      );
    }
  }

  /** Whether the browser process answers a call of its own, whatever its page is doing. */
  private async answers(): Promise<boolean> {
    if (this.disconnected || !this.browser) return false;
    return withDeadline(this.browser.version(), ALIVE_TIMEOUT_MS, () => 'no answer').then(
      () => true,
      () => false,
    );
  }

  /**
   * Moves the page to `frame` without drawing it: what the page's scripts, timers and clips do up
   * to that time happens, as before a capture (`vidkit lint` reads the text of every frame so).
   */
  async step(frame: number): Promise<void> {
    const { frameMs } = this.opts.timeouts;
    await this.guard(
      withDeadline(this.seek(frame), frameMs, () => `frame ${frame} did not seek within the frame timeout of ${frameMs / 1000} s (--frame-timeout sets it)`),
      `at frame ${frame}`,
    );
  }

  /** The page runtime's seek to `frame`: whether the page may look different, or 'video' or 'composite' (seek.ts). */
  private async seek(frame: number): Promise<SeekOutcome> {
    this.pageFrame = frame;
    // Resolves at once, or once every video on the page shows its frame for this time.
    const call = runtimeCall('__seekFrame', frame);
    const seek = await this.client!.send('Runtime.evaluate', {
      expression: call.expression,
      returnByValue: true,
      awaitPromise: true,
    });
    this.scriptsRanAt = Date.now();
    // A video that cannot be decoded also fails the page's seek: its own message comes first.
    this.throwIfTroubled(`at frame ${frame}`);
    if (seek.exceptionDetails) {
      this.throwIfTroubled(`at frame ${frame}`);
      const detail = seek.exceptionDetails.exception?.description ?? seek.exceptionDetails.text;
      throw new VidkitError(`a script in the composition threw at frame ${frame}: ${firstLine(detail)}`);
    }
    this.throwIfTroubled(`at frame ${frame}`);
    this.throwIfPageFailed();
    return callResult(call, seek);
  }

  /**
   * What Chromium draws for a frame depends on the frame it drew before, not only on the page: a
   * layer scaled by a transform keeps its tiles at the previous frame's raster scale for one more
   * draw. So a page that did not show the frame before `frame` (the first frame of a worker's
   * range, of a range taken over, of a relaunched browser) first draws that one and drops its
   * image: frame i is then the same picture whichever worker draws it.
   */
  private async captureAfterPrevious(frame: number, whole: boolean): Promise<FrameImage | null> {
    if (frame > 0 && this.pageFrame < frame - 1) await this.captureFrame(frame - 1, true);
    return this.captureFrame(frame, whole);
  }

  private async captureFrame(frame: number, whole: boolean): Promise<FrameImage | null> {
    const seeked = await this.seek(frame);
    if (seeked === false && this.lastImage) return whole ? shareImage(this.lastImage) : null;
    if (seeked === 'composite') await this.compositeTransition(frame);
    const image = await this.draw(frame, seeked === 'video');
    this.throwIfTroubled(`at frame ${frame}`);
    this.forgetLastImage();
    this.lastImage = shareImage(image);
    return image;
  }

  private forgetLastImage(): void {
    if (this.lastImage) releaseImage(this.lastImage);
    this.lastImage = undefined;
  }

  /**
   * A HyperFrames shader transition on screen (seek.ts): the page has cloned its two scenes into
   * canvases, which the browser paints in one draw without a capture; then the page composites
   * them with the shader, and the capture after shows the composite.
   */
  private async compositeTransition(frame: number): Promise<void> {
    const client = this.client!;
    if (this.opts.profile.capture === 'beginframe') await this.beginFrame(false);
    else await client.send('Runtime.evaluate', { expression: runtimeCall('__afterPaint').expression, awaitPromise: true });
    const done = await client.send('Runtime.evaluate', { expression: 'window.__hf_page_composite_resolve()', returnByValue: true });
    if (done.exceptionDetails) {
      const detail = done.exceptionDetails.exception?.description ?? done.exceptionDetails.text;
      throw new VidkitError(`the shader transition at frame ${frame} could not be drawn: ${firstLine(detail)}`);
    }
  }

  private async draw(frame: number, seekedVideo: boolean): Promise<FrameImage> {
    const client = this.client!;
    if (this.opts.profile.capture === 'beginframe') {
      if (seekedVideo) await this.presentVideos();
      return this.drawFrame(frame);
    }
    await client.send('Runtime.evaluate', { expression: runtimeCall('__afterPaint').expression, awaitPromise: true });
    const fmt = this.opts.format;
    const shot = await client.send('Page.captureScreenshot', {
      format: fmt.type,
      ...(fmt.type === 'jpeg' ? { quality: fmt.quality } : {}),
      optimizeForSpeed: true,
      clip: { x: 0, y: 0, width: this.opts.width, height: this.opts.height, scale: 1 },
    });
    return Buffer.from(shot.data, 'base64');
  }

  /** The composition's length in seconds as the page runtime reads it (declared or inferred); 0 when unknown. */
  async durationSeconds(): Promise<number> {
    const call = runtimeCall('__duration');
    const result = await this.client!.send('Runtime.evaluate', { expression: call.expression, returnByValue: true });
    if (result.exceptionDetails) {
      const detail = result.exceptionDetails.exception?.description ?? result.exceptionDetails.text;
      throw new VidkitError(`a script in the composition threw while the page's length was read: ${firstLine(detail)}`);
    }
    return callResult(call, result);
  }

  /**
   * Text of the frames shown since the last call that no available face can draw (docs/explanation/fonts.md), once the faces that text needs have loaded or failed.
   */
  async missingGlyphs(): Promise<MissingGlyphs[]> {
    const report = this.client!.send('Runtime.evaluate', {
      expression: 'window.__vidkitGlyphs ? window.__vidkitGlyphs.report() : []',
      returnByValue: true,
      awaitPromise: true,
    });
    const result = await this.guard(
      withDeadline(report, GLYPH_REPORT_TIMEOUT_MS, () => `the page did not report its text's glyphs within ${GLYPH_REPORT_TIMEOUT_MS / 1000} s`),
      'while it checked the glyphs',
    );
    if (result.exceptionDetails) {
      const detail = result.exceptionDetails.exception?.description ?? result.exceptionDetails.text;
      throw new VidkitError(`a script in the composition threw while its glyphs were checked: ${firstLine(detail)}`);
    }
    return result.result.value as MissingGlyphs[];
  }

  /** Every `<audio>`/`<video>` the page has shown so far, as placed on the timeline. */
  async mediaTimeline(): Promise<MediaElementTiming[]> {
    const call = runtimeCall('__mediaTimeline');
    return callResult(call, await this.client!.send('Runtime.evaluate', { expression: call.expression, returnByValue: true }));
  }

  /** What the variables reach in the page, for a render of `totalFrames` frames (src/runtime/page/reach.ts). */
  async reach(totalFrames: number): Promise<PageReach> {
    const call = runtimeCall('__reach', totalFrames);
    return callResult(call, await this.client!.send('Runtime.evaluate', { expression: call.expression, returnByValue: true }));
  }

  /**
   * One begin-frame with a screenshot, asked again while it comes back without one (redraw.ts);
   * the screenshot's raw pixels where the frame channel has them, the browser's JPEG otherwise.
   */
  private async drawFrame(frame: number): Promise<FrameImage> {
    const image = await drawUntilImage(frame, () => this.beginFrame(true));
    return this.frameChannel?.take() ?? image;
  }

  /**
   * A seeked video hands its new picture to the compositor asynchronously, after `seeked`. Draw
   * without capturing until every seeked video reports it presented (requestVideoFrameCallback);
   * the capture is the draw after. This narrows a race without closing it: begin-frame captures
   * still showed a video one seek late now and then, which is why a render's videos take their
   * pictures from the native decoder (video-frames/page-video-frames.ts); this wait is for a video
   * the browser still seeks itself. Bounded: a video that is not drawn at all (display: none)
   * never presents.
   */
  private async presentVideos(): Promise<void> {
    for (let attempt = 0; attempt < PRESENT_ATTEMPTS; attempt++) {
      await this.beginFrame(false);
      const call = runtimeCall('__videosPresented');
      const presented = await this.client!.send('Runtime.evaluate', { expression: call.expression, returnByValue: true });
      if (callResult(call, presented) === true) return;
    }
  }

  /** Closes the browser and removes its profile; a second call waits for the first. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.browser) await closeBrowser(this.browser);
      await this.gate?.close();
      this.videoFrames?.close();
      if (this.frameChannel) closeFrameChannel(this.frameChannel);
      this.forgetLastImage();
      if (this.opts.profileDir) fs.rmSync(this.opts.profileDir, { recursive: true, force: true, maxRetries: 3 });
    })();
    return this.closing;
  }
}

/** The protocol's errors once its browser is gone (puppeteer has no one class for them). */
function isConnectionLoss(err: unknown): boolean {
  const name = (err as Error)?.name;
  return name === 'TargetCloseError' || /Target closed|Session closed|Connection closed|browser has disconnected/i.test(errorMessage(err));
}

function firstLine(s: string): string {
  return s.split('\n')[0];
}
