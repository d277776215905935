// The vidkit cloud SDK (package entry `vidkit/cloud-sdk`): deploy the stack, upload sites, start
// renders on AWS Lambda and read their progress. Every function reads VIDKIT_BUCKET and
// VIDKIT_SFN_ARN when the bucket or state machine is not passed, and then the outputs of the
// deployed stack (`stackName`, default vidkit-render).
export { deployStack, stackTemplate, MAX_MEMORY_MB, DEFAULT_STACK_NAME } from './deploy';
export type { DeployOptions, DeployResult } from './deploy';
export { deploySite, prepareSite, siteHandleFor, listSites, deleteSite } from './site';
export type { SiteHandle, PreparedSite, SiteComposition, SiteListing, BucketChoice } from './site';
export { stackOutputs, resolveTarget } from './stack';
export type { StackOutputs, RenderTarget } from './stack';
export { planDestroy, destroyStack } from './destroy';
export type { DestroyPlan, DestroyResult } from './destroy';
export { listRenders } from './render-list';
export type { RenderListing } from './render-list';
export { estimateRenderCost } from './estimate';
export type { EstimateInput, RenderCostEstimate } from './estimate';
export { PRICE_LIST } from './price-list';
export { verifyWebhookSignature, signWebhookBody, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_DELIVERY_HEADER } from './webhook';
export type { WebhookOptions, WebhookPayload, RenderWebhookPayload, BatchWebhookPayload } from './webhook';
export { cancelRenders } from './cancel';
export type { CancelTarget, CancelResult } from './cancel';
export { waitForBatch } from './batch-wait';
export type { BatchStanding, WaitForBatchInput } from './batch-wait';
export type { AdmissionPlan } from './admission';
export { renderToLambda, validateConfig } from './render';
export type { RenderToLambdaInput, RenderHandle } from './render';
export { getRenderProgress } from './progress';
export type { RenderProgress, RenderStatus } from './progress';
export { EXECUTION_INPUT_LIMIT } from './validate-config';
export type { RenderConfigInput } from './validate-config';
export { renderBatchToLambda, DEFAULT_MAX_CONCURRENT } from './render-batch';
export type { RenderBatchInput } from './render-batch';
export { readBatchFile } from './batch-file';
export type { BatchFile, BatchFileOptions } from './batch-file';
export type { BatchManifestRow, BatchRowStatus } from './batch-dispatch';
export { getBatchProgress } from './batch-progress';
export type { BatchProgress, BatchProgressRow } from './batch-progress';
