"""One render: `vidkit render` of the composition into the renders directory (the volume)."""

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Mapping, Sequence

RENDER_NAME = re.compile(r"^[A-Za-z0-9-]+\.mp4$")

# Optional smaller, quicker renders (e.g. for tests): RENDER_WIDTH, RENDER_HEIGHT, RENDER_FPS.
_SIZE_FLAGS = (("RENDER_WIDTH", "--width"), ("RENDER_HEIGHT", "--height"), ("RENDER_FPS", "--fps"))


class RenderFailed(RuntimeError):
    pass


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


def render_to_directory(project_dir: Path, variables: dict, renders_dir: Path, name: str, cli: Sequence[str], env: Mapping[str, str]) -> str:
    """Renders into renders_dir/name; vidkit writes a temporary file and renames it when complete."""
    if not RENDER_NAME.match(name):
        raise ValueError(f"bad render name {name!r}")
    renders_dir.mkdir(parents=True, exist_ok=True)
    args = [*cli, "render", str(project_dir), "--output", str(renders_dir / name), "--variables", json.dumps(variables), "--strict-variables", *size_args(env)]
    done = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env={**os.environ, **env})
    if done.returncode != 0:
        last = next((line for line in reversed(done.stderr.strip().splitlines()) if line.strip()), "")
        raise RenderFailed(f"render failed (exit {done.returncode}): {last}")
    return name
