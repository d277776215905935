#!/usr/bin/env bash
# Deploys the template to Modal: puts the vidkit tarballs in vidkit-pack/ (packed from the vidkit
# checkout this template lives in, or fetched from the npm registry with VIDKIT_VERSION=<version>;
# ../vidkit-pack.mjs), installs the player, ui-3d-reveal and the request contracts from that same
# vidkit, then runs `modal deploy app.py`, which builds the image (vidkit_web/image_recipe.py) on
# Modal and installs vidkit there from vidkit-pack/. Needs Node 20.17+, npm, and this folder's
# .venv with requirements.txt and a `modal setup` done. MODAL names another modal CLI.
set -euo pipefail
cd "$(dirname "$0")"
node ../vidkit-pack.mjs vidkit-pack --assets static/vidkit-player.js compositions
exec "${MODAL:-.venv/bin/modal}" deploy app.py
