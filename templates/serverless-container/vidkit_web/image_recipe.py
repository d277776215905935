"""The image both Modal functions run on, as data: app.py builds the modal.Image from it, and the
template's image test (src/templates/serverless-container-image.test.ts) builds an equivalent root
filesystem from Debian's archive with the same packages and commands, then renders in it."""

# Debian's archive provides Node (20.19 in trixie; vidkit needs 20.17 or newer) and the headless browser.
BASE_IMAGE = "debian:trixie-slim"
PYTHON_VERSION = "3.12"
APT_PACKAGES = [
    "nodejs", "npm", "chromium-headless-shell",
    "fonts-dejavu-core", "fonts-liberation", "ca-certificates",
]
# The tarballs `deploy.sh` puts in vidkit-pack/ (packed from this checkout, or fetched from the npm
# registry with VIDKIT_VERSION), copied into the image and installed from there.
VIDKIT_PACK_DIR = "vidkit-pack"
VIDKIT_PACK_IN_IMAGE = "/tmp/vidkit-pack"
INSTALL_VIDKIT = f"npm install -g --no-audit --no-fund {VIDKIT_PACK_IN_IMAGE}/*.tgz && rm -rf {VIDKIT_PACK_IN_IMAGE} /root/.npm"
ENV = {"VIDKIT_BROWSER": "/usr/bin/chromium-headless-shell", "HOME": "/tmp", "XDG_CACHE_HOME": "/tmp/.cache"}
# Where the compositions, the static files and the vidkit_web package go.
REMOTE_ROOT = "/app"


def apt_install_command(packages: list[str]) -> str:
    return f"apt-get update && apt-get install -y --no-install-recommends {' '.join(packages)} && rm -rf /var/lib/apt/lists/*"
