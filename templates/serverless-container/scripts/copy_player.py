"""Copies <vidkit-player> (vidkit's dist/player/vidkit-player.js) into static/ so the preview page
can load it; run at setup and before deploy, never committed.

    python scripts/copy_player.py [path/to/vidkit-player.js]   (default: this repository's build)
"""

import shutil
import sys
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parent.parent
source = Path(sys.argv[1]) if len(sys.argv) > 1 else TEMPLATE.parent.parent / "dist" / "player" / "vidkit-player.js"
if not source.is_file():
    sys.exit(f"copy_player: error: {source} is missing; build vidkit (npm run build:ts) or pass the player's path")
shutil.copyfile(source, TEMPLATE / "static" / "vidkit-player.js")
