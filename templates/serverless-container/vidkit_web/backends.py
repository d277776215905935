"""Where renders run and land: the platform's spawned function and volume, or, with local
adapters, a thread pool and a directory. Both answer the same questions for the web app."""

import re
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol


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
class Unknown:
    pass


Status = Running | Finished | Failed | Unknown


class Backend(Protocol):
    def spawn(self, variables: dict, name: str) -> str: ...
    def status(self, call_id: str) -> Status: ...
    def render_path(self, name: str) -> Path: ...


class LocalBackend:
    """The local adapter: a spawned function is a job on a thread pool, the volume a directory."""

    def __init__(self, render: Callable[[dict, str], str], renders_dir: Path, workers: int = 1) -> None:
        self._render = render
        self._renders_dir = renders_dir
        self._pool = ThreadPoolExecutor(max_workers=workers)
        self._calls: dict[str, Future] = {}

    def spawn(self, variables: dict, name: str) -> str:
        call_id = f"local-{uuid.uuid4().hex}"
        self._calls[call_id] = self._pool.submit(self._render, variables, name)
        return call_id

    def status(self, call_id: str) -> Status:
        future = self._calls.get(call_id)
        if future is None:
            return Unknown()
        if not future.done():
            return Running()
        error = future.exception()
        return Failed(str(error)) if error else Finished(future.result())

    def render_path(self, name: str) -> Path:
        return self._renders_dir / name


_CALL_ID = re.compile(r"^fc-[A-Za-z0-9]+$")


class ModalBackend:
    """The platform: `render` is the spawned Modal function, `volume` the vidkit-renders Volume."""

    def __init__(self, render_function, volume, mount_path: str) -> None:
        self._function = render_function
        self._volume = volume
        self._mount = Path(mount_path)

    def spawn(self, variables: dict, name: str) -> str:
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
        except Exception as err:  # the render's own failure, re-raised by get()
            return Failed(str(err))

    def render_path(self, name: str) -> Path:
        # The function committed the file; a reload makes it visible in this container.
        self._volume.reload()
        return self._mount / name
