import { exists, putJson } from '../sdk/bucket-files';
import { RenderJob, renderKeys } from '../sdk/render-input';
import { TransientChunkError } from './chunk-errors';

/**
 * Test-only fault injection, off unless VIDKIT_FAULT_CHUNK is set on the function:
 * `<index>:once` fails that chunk's first attempt of a render (a marker object remembers it),
 * `<index>:always` fails every attempt. Both throw TransientChunkError, which the state machine retries.
 */
export async function injectedFault(render: RenderJob, index: number): Promise<void> {
  const spec = process.env.VIDKIT_FAULT_CHUNK;
  if (!spec) return;
  const [at, mode] = spec.split(':');
  if (Number(at) !== index) return;
  if (mode === 'always') throw new TransientChunkError(`injected fault: chunk ${index} always fails (VIDKIT_FAULT_CHUNK=${spec})`);
  const marker = renderKeys.fault(render.renderId, index);
  if (await exists(render.bucket, marker)) return;
  await putJson(render.bucket, marker, { failedAt: new Date().toISOString() });
  throw new TransientChunkError(`injected fault: chunk ${index} fails once (VIDKIT_FAULT_CHUNK=${spec})`);
}
