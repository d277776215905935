import { Command, Option } from 'clipanion';
import { badInput } from '../errors';
import { cliOption } from '../options/cli-options';
import { describeMissingGlyphs } from '../render/capture/missing-glyphs';
import { columns, latestRowPerLine, readManifest, writeLines } from '../sdk/batch-manifest';
import type { RenderProgress } from '../sdk/progress';
import { CloudCommand } from './cloud-command';
import { CLOUD_EXIT_CODES } from './cloudfn-options';

/** One line for a log: status, chunks, frames, percent. */
export function progressLine(p: RenderProgress): string {
  return `${p.status}: ${p.chunks.done}/${p.chunks.total} chunks, ${p.frames.rendered}/${p.frames.total} frames (${p.percent}%)`;
}

export class CloudfnProgressCommand extends CloudCommand {
  static paths = [['cloudfn', 'progress']];

  static usage = Command.Usage({
    category: 'Cloud',
    description: 'Report the progress of a cloud render (by render id or execution ARN) or of a whole batch',
    details: `
      Status is planning, rendering, assembling, done, failed, timed-out or aborted. Also: chunks
      done of total, frames rendered of total, overall percent (100 only once the output exists),
      the output location when done and the error when the execution failed, and text that no font
      could draw (each element with its characters), as the chunks report it once drawn. A render id needs the
      state machine (--state-machine-arn, else VIDKIT_SFN_ARN, else the deployed stack's,
      --stack-name); an execution ARN does not.

      With --batch-manifest <file> (the .manifest.jsonl that render-batch wrote), every render of
      the batch: a summary line (done, running, failed, percent) and one row per batch line, a row
      whose video has text no font could draw flagged with its characters. When
      the file holds several runs, each line's latest row counts. A row a crash cut off is skipped
      with a warning.
    `,
  });

  static exitCodes = CLOUD_EXIT_CODES;

  id = Option.String({ required: false, name: 'renderId or executionArn' });
  batchManifest = Option.String('--batch-manifest', { description: 'Report every render of a batch, from the manifest render-batch wrote' });
  stateMachineArn = cliOption('stateMachineArn');
  stackName = cliOption('stackName');
  json = Option.Boolean('--json', false, { description: 'Print the progress as JSON' });

  protected async runCloud(): Promise<void> {
    if (this.batchManifest !== undefined) {
      if (this.id !== undefined) throw badInput('pass either a render id / execution ARN or --batch-manifest, not both');
      return this.reportBatch(this.batchManifest);
    }
    if (this.id === undefined) throw badInput('pass a render id or execution ARN (or --batch-manifest <file>)');
    const arn = this.id.startsWith('arn:');
    const { getRenderProgress } = await import('../sdk/progress');
    const p = await getRenderProgress({ renderId: arn ? undefined : this.id, executionArn: arn ? this.id : undefined, stateMachineArn: this.stateMachineArn, stackName: this.stackName });
    if (this.json) {
      this.context.stdout.write(`${JSON.stringify(p)}\n`);
      return;
    }
    const lines = [
      `Render ID: ${p.renderId}`,
      `Execution ARN: ${p.executionArn}`,
      `Status: ${p.status}`,
      `Chunks: ${p.chunks.done}/${p.chunks.total} done`,
      `Frames: ${p.frames.rendered}/${p.frames.total} rendered`,
      `Progress: ${p.percent}%`,
    ];
    if (p.output) lines.push(`Output: ${p.output.url}`);
    if (p.error) lines.push(`Error: ${p.error}`);
    for (const m of p.missingGlyphs ?? []) lines.push(`Missing glyphs: ${describeMissingGlyphs(m)}`);
    this.context.stdout.write(`${lines.join('\n')}\n`);
  }

  private async reportBatch(file: string): Promise<void> {
    const { getBatchProgress } = await import('../sdk/batch-progress');
    const rows = latestRowPerLine(readManifest(file, (message) => this.warn(message)));
    const batch = await getBatchProgress(rows, this.stateMachineArn);
    if (this.json) {
      this.context.stdout.write(`${JSON.stringify(batch)}\n`);
      return;
    }
    const summary = `${batch.total} renders: ${batch.done} done, ${batch.running} running, ${batch.failed} failed (${batch.percent}%)`;
    const table = columns(['line', 'outputKey', 'state', 'percent', 'renderId', 'output or error'], batch.rows, (r) => [
      String(r.line),
      r.outputKey ?? '-',
      r.state,
      `${r.percent}%`,
      r.renderId ?? '-',
      [r.output ?? r.error ?? '', ...(r.missingGlyphs ?? []).map((m) => `no font has ${m.characters.join('')} (<${m.element}>)`)].filter(Boolean).join('; '),
    ]);
    this.context.stdout.write(`${summary}\n`);
    writeLines(this.context.stdout, table);
  }
}
