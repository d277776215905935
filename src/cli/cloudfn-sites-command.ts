import { Command, Option } from 'clipanion';
import { columns, writeLines } from '../sdk/batch-manifest';
import { cliOption } from '../options/cli-options';
import { CloudCommand } from './cloud-command';
import { CLOUD_EXIT_CODES } from './cloudfn-options';

export class CloudfnSitesCreateCommand extends CloudCommand {
  static paths = [['cloudfn', 'sites', 'create']];

  static usage = Command.Usage({
    category: 'Cloud',
    description: 'Upload a project to the render bucket once, under a content-addressed site id',
    details: `
      The site id is a hash of every file's path and bytes: the same project gives the same id, and
      uploading it again sends nothing. Pass the id to \`vidkit cloudfn render --site-id\`. The
      bucket is --bucket, else VIDKIT_BUCKET, else the deployed stack's (--stack-name).
    `,
  });

  static exitCodes = CLOUD_EXIT_CODES;

  projectDir = Option.String({ required: true, name: 'projectDir' });
  bucket = cliOption('bucket');
  stackName = cliOption('stackName');
  json = Option.Boolean('--json', false, { description: 'Print the site as JSON on stdout' });

  protected async runCloud(): Promise<void> {
    const { deploySite } = await import('../sdk/site');
    const site = await deploySite({ projectDir: this.projectDir, bucketName: this.bucket, stackName: this.stackName });
    this.log(site.uploadedFiles === 0 ? `site ${site.siteId} is already in ${site.bucketName}: nothing uploaded` : `uploaded ${site.uploadedFiles} files to s3://${site.bucketName}/${site.prefix}`);
    if (this.json) this.context.stdout.write(`${JSON.stringify(site)}\n`);
    else this.context.stdout.write(`Site ID: ${site.siteId}\n`);
  }
}

export class CloudfnSitesLsCommand extends CloudCommand {
  static paths = [['cloudfn', 'sites', 'ls']];

  static usage = Command.Usage({
    category: 'Cloud',
    description: 'List the sites in the render bucket: id, composition, files, size, upload time',
    details: `
      One row per site under sites/ in the bucket, oldest first: its id, the composition's id, its
      files and bytes, when it was last written, and "incomplete" for an upload cut off before its
      manifest (\`sites create\` uploads it again). The bucket is --bucket, else VIDKIT_BUCKET, else
      the deployed stack's (--stack-name).
    `,
  });

  static exitCodes = CLOUD_EXIT_CODES;

  bucket = cliOption('bucket');
  stackName = cliOption('stackName');
  json = Option.Boolean('--json', false, { description: 'Print the sites as a JSON array' });

  protected async runCloud(): Promise<void> {
    const { listSites } = await import('../sdk/site');
    const sites = await listSites({ bucketName: this.bucket, stackName: this.stackName });
    if (this.json) {
      this.context.stdout.write(`${JSON.stringify(sites)}\n`);
      return;
    }
    writeLines(
      this.context.stdout,
      columns(['siteId', 'composition', 'files', 'bytes', 'lastModified', 'state'], sites, (s) => [
        s.siteId,
        s.compositionId ?? '-',
        String(s.files),
        String(s.bytes),
        s.lastModified ?? '-',
        s.complete ? 'complete' : 'incomplete',
      ]),
    );
  }
}

export class CloudfnSitesRmCommand extends CloudCommand {
  static paths = [['cloudfn', 'sites', 'rm']];

  static usage = Command.Usage({
    category: 'Cloud',
    description: 'Delete sites from the render bucket',
    details: `
      Deletes every object of each site named (ids as \`sites ls\` lists them). Renders already
      started from a site fail once it is gone; outputs stay. An id not in the bucket is an error
      (exit 2) and the sites named after it are left alone. The bucket is --bucket, else
      VIDKIT_BUCKET, else the deployed stack's (--stack-name).
    `,
  });

  static exitCodes = CLOUD_EXIT_CODES;

  siteIds = Option.Rest({ required: 1, name: 'siteId' });
  bucket = cliOption('bucket');
  stackName = cliOption('stackName');

  protected async runCloud(): Promise<void> {
    const [{ deleteSite }, { resolveBucket }] = await Promise.all([import('../sdk/site'), import('../sdk/stack')]);
    const bucketName = await resolveBucket(this.bucket, this.stackName);
    for (const siteId of this.siteIds) {
      const deleted = await deleteSite(siteId, { bucketName });
      this.context.stdout.write(`Deleted site ${siteId} (${deleted} objects)\n`);
    }
  }
}
