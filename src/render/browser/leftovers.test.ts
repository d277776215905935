// tier: unit
import { spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { killGroup, killGroupAndWait } from './leftovers';
import { processTable } from './process-table';

// A process group like a browser's: a leader and its children. Right after a SIGKILL some of them
// are still running until the kernel schedules them (on 2 cores, in about a third of tries).
const liveIn = (group: number) => processTable().filter((p) => p.pgrp === group && p.state !== 'Z' && p.state !== 'X');

test('killGroupAndWait returns once no process of the group runs', async () => {
  for (let i = 0; i < 10; i++) {
    const leader = spawn('sh', ['-c', 'sleep 30 & sleep 30 & wait'], { detached: true, stdio: 'ignore' });
    try {
      await delay(100);
      assert.is(liveIn(leader.pid!).length, 3, 'the group did not start');
      await killGroupAndWait(leader, 3000);
      assert.equal(liveIn(leader.pid!), [], `try ${i + 1}: the group still runs`);
    } finally {
      // A failed try leaves no sleeper to hold this file's process open.
      killGroup(leader);
    }
  }
});

test.run();
