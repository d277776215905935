"""Runs the template without a platform account: the web app under uvicorn, renders on a local
thread pool, each by the one `render-server` of the vidkit CLI (VIDKIT_CLI) this process keeps,
the volume a directory (VIDKIT_LOCAL_STORE_DIR), RENDER_MAX_WAITING and RENDER_TIMEOUT_SECONDS as
on the platform.

    python -m vidkit_web.local --port 8000
"""

import argparse
import os
import shlex
from pathlib import Path

import uvicorn

from . import settings
from .backends import LocalBackend
from .limits import render_limits
from .render_job import render_to_directory
from .render_server import RenderServer
from .server import create_app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    renders_dir = Path(os.environ.get("VIDKIT_LOCAL_STORE_DIR", ".vidkit-local/renders")).resolve()
    limits = render_limits(os.environ)
    render_server = RenderServer(shlex.split(os.environ.get("VIDKIT_CLI", "vidkit")))

    def render(variables: dict, name: str) -> str:
        return render_to_directory(render_server, settings.composition_dir(), variables, renders_dir, name, limits.timeout_seconds)

    backend = LocalBackend(render, renders_dir, limits.max_waiting)
    uvicorn.run(create_app(backend), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
