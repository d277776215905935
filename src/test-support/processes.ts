import { processTable } from '../render/browser/process-table';

/** Every process under `pid` (children, theirs, and so on). */
export function descendants(pid: number): number[] {
  const parents = new Map(processTable().map((p) => [p.pid, p.ppid]));
  const found = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, parent] of parents) {
      if (found.has(parent) && !found.has(child)) {
        found.add(child);
        grew = true;
      }
    }
  }
  found.delete(pid);
  return [...found];
}
