// tier: unit
import { S3ServiceException } from '@aws-sdk/client-s3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { badInput, VidkitError } from '../errors';
import { BrowserFailure } from '../render/capture/capture-session';
import { DeadlineError } from '../render/browser/deadline';
import { REPO_ROOT } from '../test-support/cli';
import { classifyChunkError } from './chunk-errors';

const test = suite('chunk failures as the state machine sees them');

const s3Error = (name: string, status: number) =>
  new S3ServiceException({ name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status }, message: `${name} (${status})` });

/** The error names RenderChunk's Retry matches (cloud/state-machine.asl.json). */
function retried(): string[] {
  const definition = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'cloud', 'state-machine.asl.json'), 'utf8'));
  return definition.States.RenderChunks.ItemProcessor.States.RenderChunk.Retry.flatMap((r: { ErrorEquals: string[] }) => r.ErrorEquals);
}

test('a crashed or silent browser, a deadline, S3 throttling, a 5xx and a dropped connection are retried', () => {
  const transient = [
    new BrowserFailure('the browser was killed (SIGKILL) at frame 12'),
    new DeadlineError('frame 12 did not seek and draw within the frame timeout of 30 s'),
    s3Error('SlowDown', 503),
    s3Error('InternalError', 500),
    s3Error('ThrottlingException', 400),
    Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
  ];
  for (const err of transient) {
    const classified = classifyChunkError(err);
    assert.is(classified.name, 'TransientChunkError', err.message);
    assert.is(classified.message, err.message);
    assert.ok(retried().includes(classified.name));
  }
});

test('bad input is not retried, and neither is a script error of the page', () => {
  const bad = classifyChunkError(badInput('--width must be an even whole number of pixels from 2 to 16384, got 3'));
  assert.is(bad.name, 'BadInput');
  assert.not.ok(retried().includes(bad.name));
  const pageError = classifyChunkError(new VidkitError('a script in the composition threw at frame 3: boom'));
  assert.is(pageError.name, 'VidkitError');
  assert.not.ok(retried().includes(pageError.name));
  assert.is(classifyChunkError(s3Error('AccessDenied', 403)).name, 'AccessDenied');
});

test.run();
