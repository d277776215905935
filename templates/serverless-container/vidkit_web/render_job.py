"""One render: `vidkit render` of the composition into the renders directory (the volume)."""

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Mapping, Sequence

from .process_tree import kill_process_tree

RENDER_NAME = re.compile(r"^[A-Za-z0-9-]+\.mp4$")

# Optional smaller, quicker renders (e.g. for tests): RENDER_WIDTH, RENDER_HEIGHT, RENDER_FPS.
_SIZE_FLAGS = (("RENDER_WIDTH", "--width"), ("RENDER_HEIGHT", "--height"), ("RENDER_FPS", "--fps"))


class RenderFailed(RuntimeError):
    pass


class RenderTimedOut(RuntimeError):
    """The render ran past RENDER_TIMEOUT_SECONDS and was stopped: answered 504."""

    def __init__(self, timeout_seconds: int) -> None:
        super().__init__(
            f"render timed out after {timeout_seconds} s (RENDER_TIMEOUT_SECONDS) and was stopped; "
            "render a shorter or smaller composition, or raise the limit"
        )


def size_args(env: Mapping[str, str]) -> list[str]:
    args: list[str] = []
    for name, flag in _SIZE_FLAGS:
        value = env.get(name, "")
        if not value:
            continue
        if not re.fullmatch(r"[1-9][0-9]*", value):
            raise ValueError(f'{name} must be a positive whole number, got "{value}"')
        args += [flag, value]
    return args


def render_to_directory(
    project_dir: Path, variables: dict, renders_dir: Path, name: str, cli: Sequence[str], env: Mapping[str, str], timeout_seconds: int
) -> str:
    """Renders into renders_dir/name, which appears only complete. The variables travel in a file:
    on the argument list a 64 KiB body can outgrow Linux's 128 KiB cap on one argument. Everything
    the render writes until it is done (the variables file, the output, vidkit's and the browser's
    temporary files, as TMPDIR) lives in one directory removed afterwards, also after a failure or
    a timeout."""
    if not RENDER_NAME.match(name):
        raise ValueError(f"bad render name {name!r}")
    renders_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="vidkit-template-render-") as work:
        variables_file = Path(work) / "variables.json"
        variables_file.write_text(json.dumps(variables), encoding="utf-8")
        output = Path(work) / "render.mp4"
        args = [*cli, "render", str(project_dir), "--output", str(output), "--variables-file", str(variables_file), "--strict-variables", *size_args(env)]
        # Its own session and process group, so a timeout can stop it and everything it started.
        child = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env={**os.environ, **env, "TMPDIR": work}, start_new_session=True,
        )
        try:
            _, stderr = child.communicate(timeout=timeout_seconds)
        except subprocess.TimeoutExpired:
            kill_process_tree(child.pid)
            child.communicate()
            raise RenderTimedOut(timeout_seconds) from None
        if child.returncode != 0:
            last = next((line for line in reversed(stderr.strip().splitlines()) if line.strip()), "")
            raise RenderFailed(f"render failed (exit {child.returncode}): {last}")
        partial = renders_dir / f".{name}.partial"
        shutil.copyfile(output, partial)
        os.replace(partial, renders_dir / name)
    return name
