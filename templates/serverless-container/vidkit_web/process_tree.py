"""Stops a render and everything it started (the same as the JavaScript templates' process-tree.ts)."""

import os
import signal
from pathlib import Path


def _process_table() -> dict[int, tuple[int, int]]:
    """Process id -> (parent id, process group id) of every process /proc shows."""
    table: dict[int, tuple[int, int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
        _state, ppid, pgrp = stat[stat.rindex(")") + 2 :].split(" ")[:3]
        table[int(entry.name)] = (int(ppid), int(pgrp))
    return table


def _signal(send, target: int, sig: int) -> None:
    try:
        send(target, sig)
    except OSError:
        pass  # already gone


def kill_process_tree(leader: int) -> None:
    """SIGKILLs a process started as its own group leader (start_new_session), every process below
    it and every process group they lead: the browser a render starts leads a group of its own and
    would outlive the render. The group is stopped first so nothing new starts meanwhile."""
    _signal(os.killpg, leader, signal.SIGSTOP)
    table = _process_table()
    tree = {leader}
    grew = True
    while grew:
        grew = False
        for pid, (ppid, _group) in table.items():
            if ppid in tree and pid not in tree:
                tree.add(pid)
                grew = True
    # Only groups led by a process of the tree: never the group of whoever started the render.
    groups = {table.get(pid, (0, pid))[1] for pid in tree} & tree
    for group in groups:
        _signal(os.killpg, group, signal.SIGKILL)
    for pid in tree:
        _signal(os.kill, pid, signal.SIGKILL)
