import { Command, Option } from 'clipanion';
import { CloudCommand } from './cloud-command';
import { BUCKET_DESCRIPTION } from './cloudfn-options';

export class CloudfnSitesCreateCommand extends CloudCommand {
  static paths = [['cloudfn', 'sites', 'create']];

  static usage = Command.Usage({
    category: 'Cloud',
    description: 'Upload a project to the render bucket once, under a content-addressed site id',
    details: `
      The site id is a hash of every file's path and bytes: the same project gives the same id, and
      uploading it again sends nothing. Pass the id to \`vidkit cloudfn render --site-id\`.
    `,
  });

  projectDir = Option.String({ required: true, name: 'projectDir' });
  bucket = Option.String('--bucket', { description: BUCKET_DESCRIPTION });
  json = Option.Boolean('--json', false, { description: 'Print the site as JSON on stdout' });

  protected async runCloud(): Promise<void> {
    const { deploySite } = await import('../sdk/site');
    const site = await deploySite({ projectDir: this.projectDir, bucketName: this.bucket });
    this.log(site.uploadedFiles === 0 ? `site ${site.siteId} is already in ${site.bucketName}: nothing uploaded` : `uploaded ${site.uploadedFiles} files to s3://${site.bucketName}/${site.prefix}`);
    if (this.json) this.context.stdout.write(`${JSON.stringify(site)}\n`);
    else this.context.stdout.write(`Site ID: ${site.siteId}\n`);
  }
}
