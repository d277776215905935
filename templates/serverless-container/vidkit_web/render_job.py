"""One render: the composition rendered by the render server into the renders directory (the volume)."""

import re
from pathlib import Path

from .render_server import RenderServer

RENDER_NAME = re.compile(r"^[A-Za-z0-9-]+\.mp4$")


def render_to_directory(server: RenderServer, project_dir: Path, variables: dict, renders_dir: Path, name: str, timeout_seconds: int) -> str:
    """Renders into renders_dir/name, which appears only complete: the server writes a partial file
    beside it and renames it, and removes it after a failure or a timeout."""
    if not RENDER_NAME.match(name):
        raise ValueError(f"bad render name {name!r}")
    renders_dir.mkdir(parents=True, exist_ok=True)
    server.render(project_dir.resolve(), variables, renders_dir.resolve() / name, timeout_seconds)
    return name
