// tier: unit
import * as os from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveWorkers, shouldAddWorker } from './workers';

test('auto starts one worker per core and may grow by one; a fixed count stays fixed', () => {
  const cores = os.availableParallelism();
  // Memory limits auto only below (cores + 1) x 600 MB free, far from any machine this suite runs on.
  assert.equal(resolveWorkers('auto', 3000), { initial: cores, max: cores + 1 });
  assert.equal(resolveWorkers(3, 3000), { initial: 3, max: 3 });
});

test('the frame count caps both: at least 30 frames a worker under auto, one frame under a fixed count', () => {
  assert.equal(resolveWorkers('auto', 45), { initial: 1, max: 1 });
  assert.equal(resolveWorkers(8, 5), { initial: 5, max: 5 });
});

test('a worker is added only while 15% or more of the CPU time sits idle', () => {
  assert.is(shouldAddWorker(0.28), true);
  assert.is(shouldAddWorker(0.15), true);
  assert.is(shouldAddWorker(0.05), false);
});

test.run();
