#!/usr/bin/env bash
# Installs everything vidkit needs on Debian 12 and builds it: apt packages, npm and cargo
# dependencies, the native addon and the TypeScript. Safe to run again; it skips what is done.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  chromium-headless-shell              # the browser, with HeadlessExperimental.beginFrame
  dpkg-dev nasm cmake g++ make meson ninja-build  # scripts/build-libav.sh: the static libav in the addon
  clang libclang-dev pkg-config        # bindgen, used by ffmpeg-sys-next
  ffmpeg                               # ffprobe/ffmpeg: the tests' independent check of outputs
  fonts-dejavu-core fonts-liberation   # default fonts for compositions
  python3 python3-venv                 # venvs: the cloud tests' emulator and cfn-lint, the Python template
  bubblewrap                           # the tests' Lambda-shaped sandbox (read-only root, writable /tmp)
  util-linux iproute2                  # unshare (root runs Chromium's sandbox in a user namespace); the security tests' private network namespace (ip)
  mmdebstrap                           # Debian 13 root filesystems: the render image (cloud/image/build-rootfs.sh), the addon's portability check
  autoconf automake libtool            # the image's Lambda runtime client (aws-lambda-ric), compiled once
  ca-certificates
)

log() { printf 'setup: %s\n' "$*" >&2; }

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing apt packages: ${missing[*]}"
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

need_version() { # name, found, wanted major.minor, hint
  if [ -z "$2" ] || ! printf '%s\n%s\n' "$3" "$2" | sort -V -C; then
    log "error: $1 $3 or newer is required (found: ${2:-none}). $4"
    exit 3
  fi
}
need_version node "$(node --version 2>/dev/null | tr -d v)" 20.17 "Install Node.js 20 LTS or newer."
need_version cargo "$(cargo --version 2>/dev/null | awk '{print $2}')" 1.90 "Install Rust with rustup (Debian's rustc is too old)."

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm dependencies"
  npm install --no-audit --no-fund >&2
fi

# The cloud tests' tools, in a gitignored venv: the MiniStack AWS emulator and cfn-lint.
PY_PACKAGES=(ministack==1.5.33 cfn-lint==1.58.0)
if [ ! -x .venv/bin/ministack ] || [ ! -x .venv/bin/cfn-lint ]; then
  log "installing ${PY_PACKAGES[*]} into .venv"
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check "${PY_PACKAGES[@]}" >&2
fi

log "building the static libav for the native core (cached; the first build takes a while)"
bash scripts/build-libav.sh >/dev/null
# Unless the caller chose a target directory, cargo builds into the machine's shared one.
[ -n "${CARGO_TARGET_DIR:-}" ] || CARGO_TARGET_DIR=$(bash scripts/cargo-target.sh)
export CARGO_TARGET_DIR
log "building the native core (cargo, release, in $CARGO_TARGET_DIR)"
npm run --silent build:native >&2
# dist/ records the fingerprint of what it was built from (scripts/source-hash.ts): a checkout
# whose sources did not change since its last build is not built again.
if npx --no-install tsx scripts/source-hash.ts current; then
  log "the TypeScript build is current"
else
  log "building the TypeScript"
  npm run --silent build:ts >&2
fi

# The web templates (templates/*): each app's own dependencies, and what each serves from vidkit
# (the player, the bundled composition, the request contracts) installed.
npm_install_in() {
  if [ ! -d "$1/node_modules" ] || [ "$1/package-lock.json" -nt "$1/node_modules/.package-lock.json" ]; then
    log "installing npm dependencies of $1"
    (cd "$1" && npm install --no-audit --no-fund >&2)
  fi
}
for app in templates/edge-container templates/edge-container/container; do
  npm_install_in "$app"
done
# sandbox-platform installs vidkit from the tarballs in its vidkit-pack/, as its deploy does: this
# checkout's, packed anew (it is built above).
log "packing vidkit into templates/sandbox-platform/vidkit-pack and installing the app's dependencies"
(cd templates/sandbox-platform && VIDKIT_BUILT=1 node ../vidkit-pack.mjs vidkit-pack >/dev/null && npm install --no-audit --no-fund --prefer-offline >&2)
(cd templates/sandbox-platform && npm run --silent assets)
(cd templates/edge-container && npm run --silent assets)
venv=templates/serverless-container/.venv
if [ ! -x "$venv/bin/python" ] || [ templates/serverless-container/requirements.txt -nt "$venv/.installed" ]; then
  log "installing the serverless-container template's Python requirements"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r templates/serverless-container/requirements.txt >&2
  touch "$venv/.installed"
fi
node dist/template-assets.js templates/serverless-container/static/vidkit-player.js templates/serverless-container/compositions

log "ready: node dist/cli/main.js render <projectDir>"
