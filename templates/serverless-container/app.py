"""The Modal app: the ASGI web endpoint and the spawned render function, sharing one image built
at deploy time (vidkit_web/image_recipe.py: Node, the headless browser and the vidkit CLI with
libav in its addon, installed from the tarballs in vidkit-pack/) and the vidkit-renders Volume.
Deploy with `./deploy.sh` (it fills vidkit-pack/, then runs `modal deploy app.py`); run without an
account with `python -m vidkit_web.local`."""

import os
from pathlib import Path

import modal

from vidkit_web import image_recipe, settings
from vidkit_web.limits import render_limits
from vidkit_web.render_job import render_to_directory
from vidkit_web.render_server import RenderServer

HERE = Path(__file__).resolve().parent
REMOTE_ROOT = image_recipe.REMOTE_ROOT

app = modal.App("vidkit-serverless-container")
volume = modal.Volume.from_name(settings.VOLUME_NAME, create_if_missing=True)

image = (
    modal.Image.from_registry(image_recipe.BASE_IMAGE, add_python=image_recipe.PYTHON_VERSION)
    .run_commands(image_recipe.apt_install_command(image_recipe.APT_PACKAGES))
    .pip_install_from_requirements(str(HERE / "requirements.txt"))
    # Last of the build steps: a new vidkit rebuilds only these layers.
    .add_local_dir(HERE / image_recipe.VIDKIT_PACK_DIR, image_recipe.VIDKIT_PACK_IN_IMAGE, copy=True)
    .run_commands(image_recipe.INSTALL_VIDKIT)
    .env({**image_recipe.ENV, "PREVIEW_COMPOSITION": settings.PREVIEW_COMPOSITION})
    .add_local_dir(HERE / "compositions", f"{REMOTE_ROOT}/compositions")
    .add_local_dir(HERE / "static", f"{REMOTE_ROOT}/static")
    .add_local_python_source("vidkit_web")
)


# Started by a render container's first call and kept by the container between calls: every later
# render there reuses its warm browser.
render_server = RenderServer(["vidkit"])


# The render runs up to 900 s; the web endpoint's 150 s request cap is why it is spawned.
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
