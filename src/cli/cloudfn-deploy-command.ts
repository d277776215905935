import { Command, Option } from 'clipanion';
import { MAX_MEMORY_MB } from '../sdk/defaults';
import { cliOption } from '../options/cli-options';
import { DEFAULT_STACK_NAME } from '../values/constants';
import { CloudCommand } from './cloud-command';
import { wholeNumber } from './cloudfn-options';

export class CloudfnDeployCommand extends CloudCommand {
  static paths = [['cloudfn', 'deploy']];

  static usage = Command.Usage({
    category: 'Cloud',
    description: 'Create or update the render stack in this AWS account and region',
    details: `
      One CloudFormation stack per account and region: the render bucket, the render function (a
      container image), the Standard state machine (plan, Map over chunks, assemble) and their roles
      and log groups. Prints RenderBucketName and RenderStateMachineArn (export them as
      VIDKIT_BUCKET and VIDKIT_SFN_ARN). Running it again with nothing changed leaves the stack as it
      is and says so.

      The first deploy needs --image-uri; later ones keep the deployed image unless given a new one.
      The image is made from a root filesystem assembled from Debian's archive, no base image pulled,
      and pushed to ECR from a vidkit checkout:
        bash cloud/image/build-rootfs.sh image/rootfs.tar
        docker build --target cloudfn -t <ecr-uri> -f cloud/image/Dockerfile image && docker push <ecr-uri>
      or, with the same configuration and no Dockerfile, \`docker import\` of image/rootfs.tar with
      ENTRYPOINT ["/app/lambda-runtime/node_modules/.bin/aws-lambda-ric"], CMD ["handler.handler"],
      WORKDIR /app/cloud and the Dockerfile's ENV (docs/guide/cloud.md).
    `,
    examples: [['Deploy with 64 reserved executions', '$0 cloudfn deploy --image-uri 123456789012.dkr.ecr.us-east-1.amazonaws.com/vidkit:1 --concurrency=64']],
  });

  concurrency = Option.String('--concurrency', { description: 'Reserved concurrency of the render function (default: none reserved)' });
  memory = Option.String('--memory', { description: `Render function memory in MB, at most ${MAX_MEMORY_MB} (the default)` });
  imageUri = Option.String('--image-uri', { description: 'Image of the render function in ECR (required on the first deploy)' });
  stackName = cliOption('stackName', { cliDefault: DEFAULT_STACK_NAME, description: `Stack name (default ${DEFAULT_STACK_NAME})` });
  json = Option.Boolean('--json', false, { description: 'Print the result as JSON on stdout' });

  protected async runCloud(): Promise<void> {
    const { deployStack } = await import('../sdk/deploy');
    const result = await deployStack({
      stackName: this.stackName,
      imageUri: this.imageUri,
      memory: wholeNumber(this.memory, '--memory'),
      concurrency: wholeNumber(this.concurrency, '--concurrency'),
      onStatus: (s) => this.log(`stack ${this.stackName}: ${s}`),
    });
    if (this.json) {
      this.context.stdout.write(`${JSON.stringify(result)}\n`);
      return;
    }
    this.log(result.action === 'unchanged' ? `stack ${result.stackName} is up to date: nothing changed` : `stack ${result.stackName} ${result.action}`);
    this.context.stdout.write(`RenderBucketName: ${result.outputs.RenderBucketName}\nRenderStateMachineArn: ${result.outputs.RenderStateMachineArn}\n`);
  }
}
