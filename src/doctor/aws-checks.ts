import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { errorMessage } from '../errors';
import { withDeadline } from '../render/browser/deadline';
import { awsClients } from '../sdk/aws-clients';
import { awsError } from '../sdk/aws-errors';
import { DEFAULT_STACK_NAME } from '../values/constants';
import { CheckResult, ok, problem, skipped } from './check';

/**
 * Milliseconds for the credential chain and for the stack lookup each. The chain asks the EC2
 * instance metadata service last, which off EC2 only times out; a network that drops packets would
 * otherwise hold doctor for the SDK's own retries.
 */
export const AWS_DEADLINE_MS = 5_000;

const CREDENTIALS_FIX = 'set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and AWS_REGION (only `vidkit cloudfn` needs them)';

/**
 * AWS credentials and region from the SDK's usual sources, and the render stack `stackName` in that
 * account and region. Both are optional: only `vidkit cloudfn` needs them, so they warn.
 */
export async function awsChecks(stackName: string): Promise<CheckResult[]> {
  const { cfn } = awsClients();
  let region: string;
  let identity: string;
  try {
    region = await withDeadline(cfn.config.region(), AWS_DEADLINE_MS, () => 'no region in time');
    const credentials = await withDeadline(cfn.config.credentials(), AWS_DEADLINE_MS, () => `no credentials within ${AWS_DEADLINE_MS / 1000} s`);
    identity = `access key …${credentials.accessKeyId.slice(-4)}`;
  } catch (err) {
    return [problem('aws', false, errorMessage(awsError(err)), CREDENTIALS_FIX), skipped('stack', false, `needs AWS credentials and a region`)];
  }
  const endpoint = process.env.AWS_ENDPOINT_URL ? ` at ${process.env.AWS_ENDPOINT_URL}` : '';
  const credentials = ok('aws', false, `${identity}, region ${region}${endpoint}`);
  try {
    const abort = new AbortController();
    const found = await withDeadline(cfn.send(new DescribeStacksCommand({ StackName: stackName }), { abortSignal: abort.signal }), AWS_DEADLINE_MS, () => {
      abort.abort();
      return `CloudFormation${endpoint} did not answer within ${AWS_DEADLINE_MS / 1000} s`;
    });
    const stack = found.Stacks?.[0];
    const status = stack?.StackStatus ?? 'UNKNOWN';
    const outputs = Object.fromEntries((stack?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
    if (!/_COMPLETE$/.test(status) || /ROLLBACK|DELETE/.test(status)) {
      return [credentials, problem('stack', false, `stack ${stackName} is ${status}`, `see its events in the CloudFormation console, then vidkit cloudfn deploy --stack-name ${stackName} again`)];
    }
    return [credentials, ok('stack', false, `${stackName} ${status}: bucket ${outputs.RenderBucketName ?? '?'}, state machine ${outputs.RenderStateMachineArn ?? '?'}`)];
  } catch (err) {
    if (/does not exist/i.test(errorMessage(err))) {
      return [credentials, problem('stack', false, `no stack ${stackName} in ${region}`, `vidkit cloudfn deploy --image-uri <ecr image>${stackName === DEFAULT_STACK_NAME ? '' : ` --stack-name ${stackName}`} (docs/guide/cloud.md)`)];
    }
    return [credentials, problem('stack', false, errorMessage(awsError(err)), 'check the network, AWS_ENDPOINT_URL and the credentials\' permission for cloudformation:DescribeStacks')];
  }
}
