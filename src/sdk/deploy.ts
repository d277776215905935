import * as fs from 'node:fs';
import * as path from 'node:path';
import { CreateStackCommand, Parameter, Stack, UpdateStackCommand } from '@aws-sdk/client-cloudformation';
import { ExitCode, VidkitError, badInput } from '../errors';
import { PACKAGE_ROOT } from '../package-info';
import { awsClients } from './aws-clients';
import { MAX_MEMORY_MB } from './defaults';
import { DEFAULT_STACK_NAME } from '../values/constants';
import { StackOutputs, describeStack as describe, outputsOf } from './stack';

export { DEFAULT_STACK_NAME, MAX_MEMORY_MB };
const POLL_MS = 1000;

export interface DeployOptions {
  /** One stack per account and region; default `vidkit-render`. */
  stackName?: string;
  /** The render function's image (cloud/image: the root filesystem with the Dockerfile's target cloudfn, pushed to ECR). Kept from the last deploy when omitted. */
  imageUri?: string;
  /** MB; default and maximum 10240. */
  memory?: number;
  /** Reserved concurrency of the render function; none when omitted. */
  concurrency?: number;
  onStatus?: (status: string) => void;
}

export interface DeployResult {
  stackName: string;
  /** `created`, `updated`, or `unchanged` when nothing differed from the deployed stack. */
  action: 'created' | 'updated' | 'unchanged';
  outputs: StackOutputs;
}

/** cloud/template.json with the state machine of cloud/state-machine.asl.json as its Definition. */
export function stackTemplate(): Record<string, any> {
  const read = (file: string) => JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'cloud', file), 'utf8'));
  const template = read('template.json');
  template.Resources.RenderStateMachine.Properties.Definition = read('state-machine.asl.json');
  return template;
}

export function checkDeployOptions(opts: DeployOptions): void {
  if (opts.memory !== undefined && !(Number.isInteger(opts.memory) && opts.memory >= 2048 && opts.memory <= MAX_MEMORY_MB)) {
    throw badInput(`--memory must be a whole number of MB from 2048 to ${MAX_MEMORY_MB} (the function maximum, and the default), got ${opts.memory}`);
  }
  if (opts.concurrency !== undefined && !(Number.isInteger(opts.concurrency) && opts.concurrency >= 1)) {
    throw badInput(`--concurrency must be a whole number of at least 1, got ${opts.concurrency}`);
  }
}

/** Creates or updates the stack (CloudFormation through the AWS SDK) and waits for it to settle. */
export async function deployStack(opts: DeployOptions): Promise<DeployResult> {
  checkDeployOptions(opts);
  const stackName = opts.stackName ?? DEFAULT_STACK_NAME;
  const { cfn } = awsClients();
  const existing = await describe(stackName);
  if (!existing && !opts.imageUri) {
    throw new VidkitError(
      'the first deploy needs the render image: build it from a vidkit checkout with cloud/image/build-rootfs.sh and the target cloudfn of cloud/image/Dockerfile (docs/guide/cloud.md), push it to ECR and pass --image-uri <uri>',
      { exitCode: ExitCode.MissingDependency },
    );
  }
  const parameters: Parameter[] = [
    opts.imageUri ? { ParameterKey: 'ImageUri', ParameterValue: opts.imageUri } : { ParameterKey: 'ImageUri', UsePreviousValue: true },
    { ParameterKey: 'MemorySize', ParameterValue: String(opts.memory ?? MAX_MEMORY_MB) },
    { ParameterKey: 'ReservedConcurrency', ParameterValue: String(opts.concurrency ?? -1) },
  ];
  const common = { StackName: stackName, TemplateBody: JSON.stringify(stackTemplate()), Parameters: parameters, Capabilities: ['CAPABILITY_IAM' as const] };
  let action: DeployResult['action'];
  if (!existing || existing.StackStatus === 'REVIEW_IN_PROGRESS') {
    await cfn.send(new CreateStackCommand(common));
    action = 'created';
  } else {
    try {
      await cfn.send(new UpdateStackCommand(common));
      action = 'updated';
    } catch (err) {
      if (!/No updates are to be performed/i.test((err as Error).message)) throw err;
      action = 'unchanged';
    }
  }
  const stack = action === 'unchanged' ? existing! : await settle(stackName, opts.onStatus);
  return { stackName, action, outputs: outputsOf(stack) };
}

async function settle(stackName: string, onStatus?: (status: string) => void): Promise<Stack> {
  let last = '';
  for (;;) {
    const stack = await describe(stackName);
    const status = stack?.StackStatus ?? 'DELETED';
    if (status !== last) onStatus?.(status);
    last = status;
    if (status === 'CREATE_COMPLETE' || status === 'UPDATE_COMPLETE') return stack!;
    if (!status.endsWith('_IN_PROGRESS')) {
      throw new VidkitError(`stack ${stackName} ended in ${status}${stack?.StackStatusReason ? `: ${stack.StackStatusReason}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
