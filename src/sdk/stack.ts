import { DescribeStacksCommand, Stack } from '@aws-sdk/client-cloudformation';
import { ExitCode, VidkitError } from '../errors';
import { awsClients } from './aws-clients';
import { DEFAULT_STACK_NAME } from '../values/constants';

/** What `deployStack` leaves in the stack's Outputs: the names every other command needs. */
export interface StackOutputs {
  RenderBucketName: string;
  RenderStateMachineArn: string;
  RenderFunctionName: string;
}

/** Where a render goes: the bucket and state machine, as given or as read from the deployed stack. */
export interface RenderTarget {
  bucketName: string;
  stateMachineArn: string;
}

/** The stack's description (DescribeStacks), or undefined when no stack has that name in this account and region. */
export async function describeStack(stackName: string): Promise<Stack | undefined> {
  try {
    const got = await awsClients().cfn.send(new DescribeStacksCommand({ StackName: stackName }));
    return got.Stacks?.[0];
  } catch (err) {
    if (/does not exist/i.test((err as Error).message)) return undefined;
    throw err;
  }
}

export function outputsOf(stack: Stack): StackOutputs {
  const get = (key: keyof StackOutputs) => {
    const value = stack.Outputs?.find((o) => o.OutputKey === key)?.OutputValue;
    if (!value) throw new VidkitError(`stack ${stack.StackName} has no output ${key}: redeploy it with \`vidkit cloudfn deploy\``);
    return value;
  };
  return { RenderBucketName: get('RenderBucketName'), RenderStateMachineArn: get('RenderStateMachineArn'), RenderFunctionName: get('RenderFunctionName') };
}

/**
 * The outputs of the deployed stack `stackName`; when there is none, an error naming what is
 * missing (`missing`: "render bucket", "state machine") and what to pass or deploy.
 */
export async function stackOutputs(stackName: string = DEFAULT_STACK_NAME, missing = 'deployed stack'): Promise<StackOutputs> {
  const stack = await describeStack(stackName);
  if (!stack) {
    const region = (await awsClients().cfn.config.region()) ?? 'this region';
    throw new VidkitError(
      `no ${missing}: stack ${stackName} does not exist in ${region}; deploy it with \`vidkit cloudfn deploy\`, name another with --stack-name, or pass the names (--bucket, --state-machine-arn, or VIDKIT_BUCKET, VIDKIT_SFN_ARN)`,
      { exitCode: ExitCode.MissingDependency },
    );
  }
  return outputsOf(stack);
}

/**
 * The render bucket: `bucketName`, else VIDKIT_BUCKET, else the stack's RenderBucketName. The
 * stack is described only when neither is set.
 */
export async function resolveBucket(bucketName?: string, stackName?: string): Promise<string> {
  const given = bucketName ?? process.env.VIDKIT_BUCKET;
  return given || (await stackOutputs(stackName, 'render bucket')).RenderBucketName;
}

/** The state machine: `stateMachineArn`, else VIDKIT_SFN_ARN, else the stack's RenderStateMachineArn. */
export async function resolveStateMachine(stateMachineArn?: string, stackName?: string): Promise<string> {
  const given = stateMachineArn ?? process.env.VIDKIT_SFN_ARN;
  return given || (await stackOutputs(stackName, 'state machine')).RenderStateMachineArn;
}

/** Both names, describing the stack at most once. */
export async function resolveTarget(opts: { bucketName?: string; stateMachineArn?: string; stackName?: string }): Promise<RenderTarget> {
  const bucketName = opts.bucketName ?? process.env.VIDKIT_BUCKET;
  const stateMachineArn = opts.stateMachineArn ?? process.env.VIDKIT_SFN_ARN;
  if (bucketName && stateMachineArn) return { bucketName, stateMachineArn };
  const outputs = await stackOutputs(opts.stackName, bucketName ? 'state machine' : 'render bucket');
  return { bucketName: bucketName || outputs.RenderBucketName, stateMachineArn: stateMachineArn || outputs.RenderStateMachineArn };
}
