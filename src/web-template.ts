/**
 * What the JavaScript web templates (templates/sandbox-platform, templates/edge-container) take
 * from vidkit: the composition loader, the one request contract of `POST /api/render`, and how a
 * template process renders under load (a bounded queue, a timeout). The renderer itself, a browser
 * kept warm in the process, is `vidkit/template-renderer`: it loads the browser, fonts and native
 * addon, so this module stays light enough for a bundler.
 */
export { loadComposition } from './composition/composition';
export type { Composition } from './composition/composition';
export { MAX_RENDER_REQUEST_BYTES, RenderRequestError, parseRenderRequest, renderCliArgs, renderSize, renderSizeArgs } from './composition/render-request';
export { RenderQueueFullError, RenderTimeoutError, renderErrorAnswer, renderFailed } from './template-server/render-errors';
export type { ErrorAnswer } from './template-server/render-errors';
export { DEFAULT_MAX_WAITING, DEFAULT_RENDER_TIMEOUT_SECONDS, renderLimits } from './template-server/render-limits';
export type { RenderLimits } from './template-server/render-limits';
export { RenderQueue } from './template-server/render-queue';
