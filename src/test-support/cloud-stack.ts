import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CreateFunctionCommand, DeleteFunctionCommand, GetFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { AwsEmulator, TEST_CREDENTIALS } from './aws-emulator';
import { cloudHandler } from './build';
import { REPO_ROOT, vidkit } from './cli';

// As in src/sdk/aws-clients.ts: no multi-line Node 22 notice from the test's own SDK clients.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** What `cloudfn deploy --image-uri` is given in tests: the emulator never pulls it (see registerZipHandler). */
export const TEST_IMAGE = '000000000000.dkr.ecr.us-east-1.amazonaws.com/vidkit:test';
/** The render function the deployed stack creates. */
export const RENDER_FUNCTION = 'vidkit-render-render';

export interface TestAws {
  s3: S3Client;
  sfn: SFNClient;
  cfn: CloudFormationClient;
  lambda: LambdaClient;
}

/** SDK clients of the test itself (not vidkit's), talking straight to the emulator. */
export function testAwsClients(emu: AwsEmulator): TestAws {
  const config = { endpoint: emu.endpoint, region: TEST_CREDENTIALS.AWS_REGION, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };
  return { s3: new S3Client({ ...config, forcePathStyle: true }), sfn: new SFNClient(config), cfn: new CloudFormationClient(config), lambda: new LambdaClient(config) };
}

/**
 * `vidkit cloudfn deploy` of the stack into the emulator, as a user deploys it: the render bucket
 * and state machine its output names. Throws with the deploy's and the emulator's log if it fails.
 */
export function deployTestStack(emu: AwsEmulator): { bucket: string; machine: string } {
  const deployed = vidkit(['cloudfn', 'deploy', '--image-uri', TEST_IMAGE], { env: emu.env });
  if (deployed.status !== 0) throw new Error(`cloudfn deploy exited ${deployed.status}: ${deployed.stderr}${emu.log()}`);
  const field = (name: string) => deployed.stdout.split('\n').find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2) ?? '';
  return { bucket: field('RenderBucketName'), machine: field('RenderStateMachineArn') };
}

/**
 * MiniStack runs container-image functions only through Docker, which this machine lacks. So after
 * deploying the real template (image function), the test registers the same handler as a zip
 * function under the same name and ARN: a provided.al2023 function whose bootstrap serves
 * cloud/handler.js (the image's entry) over the Lambda Runtime API through
 * src/test-support/lambda-runtime-client.js, the test's stand-in for the image's aws-lambda-ric.
 * `env` adds variables to the function (the fault injection).
 */
export async function registerZipHandler(aws: TestAws, opts: { bucket: string; workDir: string; env?: Record<string, string> }): Promise<void> {
  const current = (await aws.lambda.send(new GetFunctionCommand({ FunctionName: RENDER_FUNCTION }))).Configuration!;
  const client = path.join(REPO_ROOT, 'src', 'test-support', 'lambda-runtime-client.js');
  const bootstrap = `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(client)} ${JSON.stringify(cloudHandler())} handler\n`;
  const zip = bootstrapZip(opts.workDir, bootstrap);
  await aws.lambda.send(new DeleteFunctionCommand({ FunctionName: RENDER_FUNCTION }));
  await aws.lambda.send(
    new CreateFunctionCommand({
      FunctionName: RENDER_FUNCTION,
      Runtime: 'provided.al2023',
      Handler: 'handler.handler',
      Role: current.Role!,
      Timeout: current.Timeout,
      MemorySize: current.MemorySize,
      Code: { ZipFile: zip },
      Environment: { Variables: { VIDKIT_BUCKET: opts.bucket, ...opts.env } },
    }),
  );
}

/** The code of a provided.al2023 zip function: one executable `bootstrap` script (written in workDir). */
export function bootstrapZip(workDir: string, bootstrap: string): Buffer {
  const zip = path.join(workDir, 'bootstrap.zip');
  const script = 'import sys, zipfile\ninfo = zipfile.ZipInfo("bootstrap")\ninfo.external_attr = 0o100755 << 16\nwith zipfile.ZipFile(sys.argv[1], "w") as z: z.writestr(info, sys.argv[2])';
  execFileSync(path.join(REPO_ROOT, '.venv', 'bin', 'python'), ['-c', script, zip, bootstrap]);
  return fs.readFileSync(zip);
}

export async function downloadObject(aws: TestAws, bucket: string, key: string, file: string): Promise<void> {
  const got = await aws.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  fs.writeFileSync(file, await got.Body!.transformToByteArray());
}

export async function keysUnder(aws: TestAws, bucket: string, prefix: string): Promise<string[]> {
  const listed = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (listed.Contents ?? []).map((o) => o.Key!);
}
