import type { Browser, CDPSession, Page } from 'puppeteer-core';
import { VidkitError, errorMessage } from '../errors';
import { RuntimeBoot, bootScript } from '../runtime/runtime';
import { BrowserProfile, closeBrowser, launchBrowser, openControlledPage } from './browser';
import type { AssetRouter } from './asset-router';

const DRAW_ATTEMPTS = 3;
/** Draws without a capture that a seeked video may take to present its new picture. */
const PRESENT_ATTEMPTS = 10;

export type FrameFormat = { type: 'jpeg'; quality: number } | { type: 'png' };

/** A media element on the composition's timeline, as the page runtime reports it (seconds). */
export interface MediaElementTiming {
  kind: 'audio' | 'video';
  /** The resolved URL of what it plays. */
  src: string;
  start: number;
  offset: number;
  playbackRate: number;
  loop: boolean;
  volume: number;
  muted: boolean;
}

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
  /** Answers remote requests from the render's fetched copies and video requests from proxies. */
  assets?: AssetRouter;
  /** Milliseconds the page may take to load and become ready. */
  loadTimeoutMs?: number;
}

/**
 * One browser and one page showing the composition, driven frame by frame. Each session owns its
 * browser: Chromium's begin-frame control does not keep two controlled pages of one browser apart.
 */
export class CaptureSession {
  private browser?: Browser;
  private page?: Page;
  private client?: CDPSession;
  private frameTicks = 0;
  /** The last image drawn: what an unchanged page still shows. */
  private lastImage?: Buffer;
  private readonly pageErrors: string[] = [];
  private readonly assetErrors: string[] = [];

  private constructor(private readonly opts: SessionOptions) {}

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
    this.browser = await launchBrowser(profile, { scale });
    this.page = await this.createPage(this.browser);
    this.page.on('pageerror', (err) => this.pageErrors.push(errorMessage(err)));
    if (this.opts.assets) await this.routeAssets(this.page, this.opts.assets);
    this.client = await this.page.createCDPSession();
    await this.client.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: scale, mobile: false });
    await this.client.send('Emulation.setDefaultBackgroundColorOverride', {
      color: { r: 255, g: 255, b: 255, a: this.opts.transparent ? 0 : 1 },
    });
    await this.page.evaluateOnNewDocument(bootScript(this.opts.boot));
    const timeout = this.opts.loadTimeoutMs ?? 60_000;
    let response;
    try {
      response = await this.page.goto(this.opts.url, { waitUntil: 'load', timeout });
    } catch (err) {
      throw new VidkitError(`the composition page did not load: ${errorMessage(err)}`);
    }
    if (response && !response.ok()) {
      throw new VidkitError(`the composition page did not load: HTTP ${response.status()} for ${this.opts.url}`);
    }
    try {
      await this.page.evaluate('window.__vidkit.__ready()');
    } catch (err) {
      this.throwIfAssetFailed();
      this.throwIfPageFailed();
      throw new VidkitError(`the composition did not become ready: ${firstLine(errorMessage(err))}`);
    }
    this.throwIfAssetFailed();
    this.throwIfPageFailed();
    if (profile.capture === 'beginframe') {
      // The first controlled frame after load draws nothing; prime the compositor once.
      await this.beginFrame(false);
    }
  }

  /**
   * Sends each remote request to the render's local copy of it (fetched once per render, not once
   * per worker) and each video to its all-intra proxy. The page still sees the URL it asked for.
   */
  private async routeAssets(page: Page, assets: AssetRouter): Promise<void> {
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      assets.route(request.url(), request.resourceType()).then(
        (url) => request.continue(url === undefined ? undefined : { url }),
        (err) => {
          this.assetErrors.push(errorMessage(err));
          return request.abort('failed');
        },
      );
    });
  }

  private throwIfAssetFailed(): void {
    if (this.assetErrors.length > 0) throw new VidkitError(this.assetErrors[0]);
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
   * Shows `frame` (time frame/fps) and returns its image, or null when nothing on the page changed
   * since the previous frame of this session, so the caller repeats that one. `whole` returns the
   * image even then: the first frame of a new segment has no frame before it to repeat.
   */
  async capture(frame: number, whole = false): Promise<Buffer | null> {
    const client = this.client!;
    // Resolves at once, or once every video on the page shows its frame for this time.
    const seek = await client.send('Runtime.evaluate', {
      expression: `window.__vidkit.__seekFrame(${frame})`,
      returnByValue: true,
      awaitPromise: true,
    });
    if (seek.exceptionDetails) {
      const detail = seek.exceptionDetails.exception?.description ?? seek.exceptionDetails.text;
      throw new VidkitError(`a script in the composition threw at frame ${frame}: ${firstLine(detail)}`);
    }
    this.throwIfAssetFailed();
    this.throwIfPageFailed();
    if (seek.result.value === false && this.lastImage) return whole ? this.lastImage : null;
    this.lastImage = await this.draw(frame, seek.result.value === 'video');
    return this.lastImage;
  }

  private async draw(frame: number, seekedVideo: boolean): Promise<Buffer> {
    const client = this.client!;
    if (this.opts.profile.capture === 'beginframe') {
      if (seekedVideo) await this.presentVideos();
      return this.drawFrame(frame);
    }
    await client.send('Runtime.evaluate', { expression: 'window.__vidkit.__afterPaint()', awaitPromise: true });
    const fmt = this.opts.format;
    const shot = await client.send('Page.captureScreenshot', {
      format: fmt.type,
      ...(fmt.type === 'jpeg' ? { quality: fmt.quality } : {}),
      optimizeForSpeed: true,
      clip: { x: 0, y: 0, width: this.opts.width, height: this.opts.height, scale: 1 },
    });
    return Buffer.from(shot.data, 'base64');
  }

  /** Every `<audio>`/`<video>` the page has shown so far, as placed on the timeline. */
  async mediaTimeline(): Promise<MediaElementTiming[]> {
    const result = await this.client!.send('Runtime.evaluate', { expression: 'window.__vidkit.__mediaTimeline()', returnByValue: true });
    return result.result.value as MediaElementTiming[];
  }

  /** One begin-frame with a screenshot. */
  private async drawFrame(frame: number): Promise<Buffer> {
    // The compositor now and then answers a begin-frame without an image; asking again draws it.
    for (let attempt = 0; attempt < DRAW_ATTEMPTS; attempt++) {
      const result = await this.beginFrame(true);
      if (result.screenshotData) return Buffer.from(result.screenshotData, 'base64');
    }
    throw new VidkitError(`the browser drew nothing for frame ${frame} after ${DRAW_ATTEMPTS} attempts`);
  }

  /**
   * A seeked video hands its new picture to the compositor asynchronously, after `seeked`. Draw
   * without capturing until every seeked video reports it presented (requestVideoFrameCallback);
   * the capture is the draw after. This narrows a race without closing it: begin-frame captures
   * still showed a video one seek late now and then, which is why `auto` capture of a page with a
   * `<video>` takes screenshots (local-render.ts). Bounded: a video that is not drawn at all
   * (display: none) never presents.
   */
  private async presentVideos(): Promise<void> {
    for (let attempt = 0; attempt < PRESENT_ATTEMPTS; attempt++) {
      await this.beginFrame(false);
      const presented = await this.client!.send('Runtime.evaluate', { expression: 'window.__vidkit.__videosPresented()', returnByValue: true });
      if (presented.result.value === true) return;
    }
  }

  async close(): Promise<void> {
    const browser = this.browser;
    this.browser = undefined;
    if (browser) await closeBrowser(browser);
  }
}

function firstLine(s: string): string {
  return s.split('\n')[0];
}
