"""Where renders run and land: the platform's spawned function and volume, or, with local
adapters, a thread pool and a directory. Both answer the same questions for the web app."""

import re
import threading
import time
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol

from .limits import FIRST_RETRY_AFTER_SECONDS, QueueFull, retry_after_seconds
from .render_server import RenderTimedOut


@dataclass
class Running:
    pass


@dataclass
class Finished:
    name: str


@dataclass
class Failed:
    error: str


@dataclass
class TimedOut:
    error: str


@dataclass
class Unknown:
    pass


Status = Running | Finished | Failed | TimedOut | Unknown


class Backend(Protocol):
    def spawn(self, variables: dict, name: str) -> str:
        """Starts a render and returns its call id; raises QueueFull when the queue is full."""
        ...

    def status(self, call_id: str) -> Status: ...
    def render_path(self, name: str) -> Path: ...


class LocalBackend:
    """The local adapter: a spawned function is a job on a thread pool, the volume a directory.
    One render runs at a time and at most max_waiting wait for their turn."""

    def __init__(self, render: Callable[[dict, str], str], renders_dir: Path, max_waiting: int) -> None:
        self._render = render
        self._renders_dir = renders_dir
        self._max_waiting = max_waiting
        self._pool = ThreadPoolExecutor(max_workers=1)
        self._calls: dict[str, Future] = {}
        # Renders spawned and not finished (running or waiting), and how long the last one took;
        # jobs finish on the pool's thread.
        self._lock = threading.Lock()
        self._unfinished = 0
        self._last_seconds: float | None = None

    def spawn(self, variables: dict, name: str) -> str:
        with self._lock:
            if self._unfinished > self._max_waiting:
                raise QueueFull(retry_after_seconds(self._last_seconds), self._max_waiting)
            self._unfinished += 1
        call_id = f"local-{uuid.uuid4().hex}"
        self._calls[call_id] = self._pool.submit(self._timed_render, variables, name)
        return call_id

    def _timed_render(self, variables: dict, name: str) -> str:
        started = time.monotonic()
        try:
            return self._render(variables, name)
        finally:
            with self._lock:
                self._unfinished -= 1
                self._last_seconds = time.monotonic() - started

    def status(self, call_id: str) -> Status:
        future = self._calls.get(call_id)
        if future is None:
            return Unknown()
        if not future.done():
            return Running()
        error = future.exception()
        if isinstance(error, RenderTimedOut):
            return TimedOut(str(error))
        return Failed(str(error)) if error else Finished(future.result())

    def render_path(self, name: str) -> Path:
        return self._renders_dir / name


_CALL_ID = re.compile(r"^fc-[A-Za-z0-9]+$")


class ModalBackend:
    """The platform: `render` is the spawned Modal function, `volume` the vidkit-renders Volume."""

    def __init__(self, render_function, volume, mount_path: str, max_waiting: int) -> None:
        self._function = render_function
        self._volume = volume
        self._mount = Path(mount_path)
        self._max_waiting = max_waiting

    def spawn(self, variables: dict, name: str) -> str:
        # Each render container runs one render at a time; the backlog is what waits for one.
        if self._function.get_current_stats().backlog >= self._max_waiting:
            raise QueueFull(FIRST_RETRY_AFTER_SECONDS, self._max_waiting)
        return self._function.spawn(variables, name).object_id

    def status(self, call_id: str) -> Status:
        import modal
        import modal.exception

        if not _CALL_ID.match(call_id):
            return Unknown()
        try:
            return Finished(modal.FunctionCall.from_id(call_id).get(timeout=0))
        except (TimeoutError, modal.exception.TimeoutError):
            return Running()
        except (modal.exception.NotFoundError, modal.exception.InvalidError):
            return Unknown()
        except RenderTimedOut as err:  # raised by the render server in the function
            return TimedOut(str(err))
        except Exception as err:  # the render's own failure, re-raised by get()
            return Failed(str(err))

    def render_path(self, name: str) -> Path:
        # The function committed the file; a reload makes it visible in this container.
        self._volume.reload()
        return self._mount / name
