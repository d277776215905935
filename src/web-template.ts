/**
 * What the JavaScript web templates (templates/sandbox-platform, templates/edge-container) take
 * from vidkit: the composition loader and the one request contract of `POST /api/render`.
 */
export { loadComposition } from './composition/composition';
export type { Composition } from './composition/composition';
export { MAX_RENDER_REQUEST_BYTES, RenderRequestError, parseRenderRequest, renderCliArgs, renderSizeArgs } from './composition/render-request';
