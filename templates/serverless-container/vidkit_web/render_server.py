"""The `vidkit render-server` process that renders for this Python process: started with the first
render and kept, so every render after it reuses its warm browser instead of starting `vidkit
render`, a browser and the composition's page again. One request at a time, over its stdin and
stdout as JSON lines; restarted when it died."""

import collections
import itertools
import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Sequence

from .process_tree import kill_process_tree

# How long past its own timeout the server gets to stop a render and answer before it is killed:
# closing a browser takes a moment, a server that still has not answered is stuck.
ANSWER_GRACE_SECONDS = 15


class RenderFailed(RuntimeError):
    pass


class RenderTimedOut(RuntimeError):
    """The render ran past RENDER_TIMEOUT_SECONDS and was stopped: answered 504."""

    def __init__(self, timeout_seconds: int) -> None:
        super().__init__(
            f"render timed out after {timeout_seconds} s (RENDER_TIMEOUT_SECONDS) and was stopped; "
            "render a shorter or smaller composition, or raise the limit"
        )


class _Process:
    """One started server: its answers (None at the end of its stdout) and its last stderr lines."""

    def __init__(self, args: list[str]) -> None:
        # Its own session and process group, so a stuck server can be stopped with its browsers.
        self.child = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
            start_new_session=True,
        )
        self.answers: queue.Queue[str | None] = queue.Queue()
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=20)
        threading.Thread(target=self._read_answers, daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()

    def _read_answers(self) -> None:
        for line in self.child.stdout:
            self.answers.put(line)
        self.answers.put(None)

    def _read_stderr(self) -> None:
        # Its log lines join this process's; the last ones name why it ended.
        for line in self.child.stderr:
            self.stderr_tail.append(line.rstrip("\n"))
            sys.stderr.write(line)

    def ended(self) -> RenderFailed:
        code = self.child.wait()
        self._stderr_reader.join(timeout=5)
        last = next((line for line in reversed(self.stderr_tail) if line.strip()), "")
        return RenderFailed(f"render failed (exit {code}): {last}")


class RenderServer:
    """`cli render-server` (cli: the vidkit command, e.g. ["vidkit"]), started lazily in this
    process's environment (RENDER_WIDTH, RENDER_HEIGHT and RENDER_FPS set its size). It ends with
    this process: the end of its stdin closes its browsers and it exits."""

    def __init__(self, cli: Sequence[str]) -> None:
        self._args = [*cli, "render-server"]
        self._lock = threading.Lock()
        self._process: _Process | None = None
        self._ids = itertools.count(1)

    def render(self, project_dir: Path, variables: dict, output: Path, timeout_seconds: int) -> None:
        """Renders to output (absolute, .mp4), which appears only complete; raises RenderTimedOut
        or RenderFailed. The variables travel on the server's stdin, never on an argument list."""
        with self._lock:
            process = self._running()
            request_id = next(self._ids)
            request = {"id": request_id, "projectDir": str(project_dir), "variables": variables, "output": str(output), "timeoutSeconds": timeout_seconds}
            try:
                process.child.stdin.write(json.dumps(request) + "\n")
                process.child.stdin.flush()
            except OSError:
                raise self._forget().ended() from None
            deadline = time.monotonic() + timeout_seconds + ANSWER_GRACE_SECONDS
            while True:
                try:
                    line = process.answers.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    # Stuck past its own timeout: stopped with its browsers, started afresh next time.
                    kill_process_tree(self._forget().child.pid)
                    process.child.wait()
                    raise RenderTimedOut(timeout_seconds) from None
                if line is None:
                    raise self._forget().ended()
                answer = json.loads(line)
                if answer.get("id") == request_id:
                    break
        if answer["ok"]:
            return
        if answer["kind"] == "timeout":
            raise RenderTimedOut(timeout_seconds)
        raise RenderFailed(answer["error"])

    def _running(self) -> _Process:
        if self._process is None or self._process.child.poll() is not None:
            try:
                self._process = _Process(self._args)
            except OSError as err:
                raise RenderFailed(f"render failed: cannot start {' '.join(self._args)}: {err}") from None
        return self._process

    def _forget(self) -> _Process:
        process, self._process = self._process, None
        return process
