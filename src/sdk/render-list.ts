import { DescribeExecutionCommand, ListExecutionsCommand } from '@aws-sdk/client-sfn';
import { badInput } from '../errors';
import { awsClients } from './aws-clients';
import { mapWithLimit } from './map-limit';
import type { ExecutionInput } from './render-input';
import { resolveStateMachine } from './stack';

/** One render, as `cloudfn renders ls` lists it: what the execution itself says, with no bucket reads. */
export interface RenderListing {
  renderId: string;
  executionArn: string;
  /** `running` while the execution runs (`cloudfn progress` tells planning, rendering or assembling); then as `progress` says. */
  status: 'running' | 'done' | 'failed' | 'timed-out' | 'aborted';
  startedAt: string;
  stoppedAt?: string;
  outputKey?: string;
}

export const DEFAULT_RENDER_LIST_LIMIT = 20;
const DESCRIBES_IN_FLIGHT = 8;
const STATUS: Record<string, RenderListing['status']> = { RUNNING: 'running', SUCCEEDED: 'done', FAILED: 'failed', TIMED_OUT: 'timed-out', ABORTED: 'aborted' };

/** The latest renders of the state machine (ListExecutions, newest first), each with its output key (DescribeExecution). */
export async function listRenders(opts: { stateMachineArn?: string; stackName?: string; limit?: number } = {}): Promise<RenderListing[]> {
  const limit = opts.limit ?? DEFAULT_RENDER_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw badInput(`the render list's limit must be a whole number from 1 to 1000, got ${limit}`);
  const stateMachineArn = await resolveStateMachine(opts.stateMachineArn, opts.stackName);
  const { sfn } = awsClients();
  const listed = await sfn.send(new ListExecutionsCommand({ stateMachineArn, maxResults: limit }));
  const executions = (listed.executions ?? []).sort((a, b) => (b.startDate?.getTime() ?? 0) - (a.startDate?.getTime() ?? 0)).slice(0, limit);
  return mapWithLimit(executions, DESCRIBES_IN_FLIGHT, async (e): Promise<RenderListing> => {
    const described = await sfn.send(new DescribeExecutionCommand({ executionArn: e.executionArn! }));
    const outputKey = (JSON.parse(described.input ?? '{}') as Partial<ExecutionInput>).render?.outputKey;
    return {
      renderId: e.name!,
      executionArn: e.executionArn!,
      status: STATUS[e.status ?? ''] ?? 'running',
      startedAt: e.startDate!.toISOString(),
      ...(e.stopDate ? { stoppedAt: e.stopDate.toISOString() } : {}),
      ...(outputKey ? { outputKey } : {}),
    };
  });
}
