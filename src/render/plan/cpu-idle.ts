import * as os from 'node:os';

/** Starts a measurement; the returned function gives the share of all cores' time idle since. */
export function measureIdle(): () => number {
  const before = cpuTimes();
  return () => {
    const after = cpuTimes();
    const total = after.total - before.total;
    return total > 0 ? (after.idle - before.idle) / total : 0;
  };
}

function cpuTimes(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const { times } of os.cpus()) {
    idle += times.idle;
    total += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { idle, total };
}
