import * as fs from 'node:fs';

/** Process id → [parent id, process group id] of every process /proc shows. */
function processTable(): Map<number, [number, number]> {
  const table = new Map<number, [number, number]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after the last ')'.
    const [, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    table.set(Number(entry), [Number(ppid), Number(pgrp)]);
  }
  return table;
}

function signal(target: number, sig: NodeJS.Signals): void {
  try {
    process.kill(target, sig);
  } catch {
    // already gone
  }
}

/**
 * SIGKILLs a process started as its own group leader (`detached`), every process below it and
 * every process group they lead. Killing the group alone is not enough: the browser a render
 * starts leads a group of its own, and would outlive the render. The group is stopped first so
 * nothing new is started between reading the tree and killing it.
 */
export function killProcessTree(leader: number): void {
  signal(-leader, 'SIGSTOP');
  const table = processTable();
  const tree = new Set([leader]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, [ppid]] of table) {
      if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  // Only groups led by a process of the tree: never the group of whoever started the render.
  const groups = new Set([...tree].map((pid) => table.get(pid)?.[1] ?? pid).filter((group) => tree.has(group)));
  for (const group of groups) signal(-group, 'SIGKILL');
  for (const pid of tree) signal(pid, 'SIGKILL');
}
