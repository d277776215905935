import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';

/**
 * The AWS SDK v3 clients, built once per process and endpoint. Credentials, region and endpoint come from the
 * SDK's usual sources (environment, shared config); `AWS_ENDPOINT_URL` points every client at a
 * local emulator, where S3 needs path-style addressing because bucket host names do not resolve.
 */
export interface AwsClients {
  s3: S3Client;
  sfn: SFNClient;
  cfn: CloudFormationClient;
  lambda: LambdaClient;
}

/** By endpoint: a process whose AWS_ENDPOINT_URL changes (a test per emulator) never reuses another's clients. */
const cached = new Map<string, AwsClients>();

/**
 * Attempts per Step Functions call under the SDK's standard retry mode: a throttled or failing
 * StartExecution (ThrottlingException, 5xx, a dropped connection) is retried with exponential backoff
 * and jitter, then fails with its error; a batch row then becomes failed-to-start.
 */
export const SFN_MAX_ATTEMPTS = 5;

// vidkit supports Node >= 20.17 (package.json engines); the SDK's multi-line notice about its own
// future Node 22 requirement would otherwise open every cloudfn command's stderr.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export function awsClients(): AwsClients {
  const endpoint = process.env.AWS_ENDPOINT_URL ?? '';
  let clients = cached.get(endpoint);
  if (!clients) {
    clients = {
      s3: new S3Client({ forcePathStyle: endpoint !== '' }),
      sfn: new SFNClient({ maxAttempts: SFN_MAX_ATTEMPTS }),
      cfn: new CloudFormationClient({}),
      lambda: new LambdaClient({}),
    };
    cached.set(endpoint, clients);
  }
  return clients;
}
