"""Configuration constants of the template. Swap the composition by copying a project into
compositions/<name>/ and changing PREVIEW_COMPOSITION (or setting it in the environment)."""

import os
from pathlib import Path

PREVIEW_COMPOSITION = os.environ.get("PREVIEW_COMPOSITION", "ui-3d-reveal")

TEMPLATE_ROOT = Path(__file__).resolve().parent.parent
COMPOSITIONS_DIR = TEMPLATE_ROOT / "compositions"
STATIC_DIR = TEMPLATE_ROOT / "static"

# The volume the spawned function writes renders to, and where it is mounted.
VOLUME_NAME = "vidkit-renders"
VOLUME_PATH = "/renders"


def composition_dir(compositions_dir: Path = COMPOSITIONS_DIR) -> Path:
    return compositions_dir / PREVIEW_COMPOSITION
