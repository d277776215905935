"""The Modal app: the ASGI web endpoint and the spawned render function, sharing one image built
at deploy time (Node, the headless browser, libav and the vidkit CLI) and the vidkit-renders
Volume. Deploy with `modal deploy app.py`; run without an account with `python -m vidkit_web.local`."""

import os
from pathlib import Path

import modal

from vidkit_web import settings
from vidkit_web.limits import render_limits
from vidkit_web.render_job import render_to_directory
from vidkit_web.render_server import RenderServer

HERE = Path(__file__).resolve().parent
REMOTE_ROOT = "/app"

app = modal.App("vidkit-serverless-container")
volume = modal.Volume.from_name(settings.VOLUME_NAME, create_if_missing=True)

image = (
    modal.Image.from_registry("node:20-bookworm-slim", add_python="3.11")
    .apt_install(
        "chromium-headless-shell",
        "fonts-dejavu-core", "fonts-liberation", "ca-certificates",
    )
    .run_commands("npm install -g vidkit")
    .pip_install_from_requirements(str(HERE / "requirements.txt"))
    .env({"VIDKIT_BROWSER": "/usr/bin/chromium-headless-shell", "XDG_CACHE_HOME": "/tmp/.cache", "PREVIEW_COMPOSITION": settings.PREVIEW_COMPOSITION})
    .add_local_dir(HERE / "compositions", f"{REMOTE_ROOT}/compositions")
    .add_local_dir(HERE / "static", f"{REMOTE_ROOT}/static")
    .add_local_python_source("vidkit_web")
)


# Started by a render container's first call and kept by the container between calls: every later
# render there reuses its warm browser.
render_server = RenderServer(["vidkit"])


# The render runs up to 900 s; the web endpoint's 150 s request cap is why it is spawned (SPEC.md 8).
# RENDER_TIMEOUT_SECONDS (default 600) stops the render itself first, so it fails with its own 504.
@app.function(image=image, volumes={settings.VOLUME_PATH: volume}, timeout=900, cpu=4.0, memory=8192)
def render(variables: dict, name: str) -> str:
    project_dir = Path(REMOTE_ROOT) / "compositions" / settings.PREVIEW_COMPOSITION
    timeout = render_limits(os.environ).timeout_seconds
    render_to_directory(render_server, project_dir, variables, Path(settings.VOLUME_PATH), name, timeout)
    volume.commit()
    return name


@app.function(image=image, volumes={settings.VOLUME_PATH: volume})
@modal.asgi_app()
def web():
    from vidkit_web.backends import ModalBackend
    from vidkit_web.server import create_app

    backend = ModalBackend(render, volume, settings.VOLUME_PATH, render_limits(os.environ).max_waiting)
    return create_app(backend, Path(REMOTE_ROOT) / "compositions", Path(REMOTE_ROOT) / "static")
