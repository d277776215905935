import { DeleteStackCommand, waitUntilStackDeleteComplete } from '@aws-sdk/client-cloudformation';
import { DeleteBucketCommand, HeadBucketCommand } from '@aws-sdk/client-s3';
import { ListExecutionsCommand } from '@aws-sdk/client-sfn';
import { VidkitError, errorMessage } from '../errors';
import { awsClients } from './aws-clients';
import { deleteKeys, listKeys } from './bucket-files';
import { DEFAULT_STACK_NAME } from '../values/constants';
import { describeStack } from './stack';

/** What `destroyStack` would delete, read before asking. */
export interface DestroyPlan {
  stackName: string;
  /** The render bucket; absent when the stack has no RenderBucketName output (its creation failed). */
  bucketName?: string;
  /** Objects in the bucket now: sites, render records and outputs. */
  objects: number;
  /** Renders still running: they fail once their function is gone. */
  runningRenders: number;
}

export interface DestroyResult {
  stackName: string;
  bucketName?: string;
  deletedObjects: number;
}

/** Longest wait for CloudFormation to delete the stack. */
const DELETE_WAIT_SECONDS = 30 * 60;

/** What destroying `stackName` would delete, or undefined when no such stack exists. */
export async function planDestroy(stackName: string = DEFAULT_STACK_NAME): Promise<DestroyPlan | undefined> {
  const stack = await describeStack(stackName);
  if (!stack) return undefined;
  const output = (key: string) => stack.Outputs?.find((o) => o.OutputKey === key)?.OutputValue;
  const bucketName = output('RenderBucketName');
  const stateMachineArn = output('RenderStateMachineArn');
  const objects = bucketName && (await bucketExists(bucketName)) ? (await listKeys(bucketName, '')).length : 0;
  const running = stateMachineArn ? await awsClients().sfn.send(new ListExecutionsCommand({ stateMachineArn, statusFilter: 'RUNNING' })) : undefined;
  return { stackName, ...(bucketName ? { bucketName } : {}), objects, runningRenders: running?.executions?.length ?? 0 };
}

/**
 * Deletes everything `deployStack` created: the stack (function, state machine, roles, log groups),
 * waiting until CloudFormation is done, then the render bucket, which the template retains on
 * stack deletion so that no update can lose it, emptied first.
 */
export async function destroyStack(plan: DestroyPlan, onStatus?: (status: string) => void): Promise<DestroyResult> {
  const { cfn, s3 } = awsClients();
  const { stackName, bucketName } = plan;
  onStatus?.(`deleting stack ${stackName}`);
  await cfn.send(new DeleteStackCommand({ StackName: stackName }));
  try {
    await waitUntilStackDeleteComplete({ client: cfn, maxWaitTime: DELETE_WAIT_SECONDS }, { StackName: stackName });
  } catch (err) {
    const stack = await describeStack(stackName);
    const why = stack ? `${stack.StackStatus}${stack.StackStatusReason ? `: ${stack.StackStatusReason}` : ''}` : errorMessage(err);
    throw new VidkitError(`stack ${stackName} was not deleted (${why}); see its events in the CloudFormation console, then run destroy again`);
  }
  let deletedObjects = 0;
  // Emptied only now: nothing of the stack is left to write into it.
  if (bucketName && (await bucketExists(bucketName))) {
    const keys = await listKeys(bucketName, '');
    onStatus?.(`deleting ${keys.length} objects and bucket ${bucketName}`);
    await deleteKeys(bucketName, keys);
    await s3.send(new DeleteBucketCommand({ Bucket: bucketName }));
    deletedObjects = keys.length;
  }
  return { stackName, ...(bucketName ? { bucketName } : {}), deletedObjects };
}

async function bucketExists(bucket: string): Promise<boolean> {
  try {
    await awsClients().s3.send(new HeadBucketCommand({ Bucket: bucket }));
    return true;
  } catch (err) {
    const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
    if (e.name === 'NotFound' || e.name === 'NoSuchBucket' || e.$metadata?.httpStatusCode === 404) return false;
    throw err;
  }
}
