#!/usr/bin/env bash
# A Debian root filesystem from Debian's archive with mmdebstrap, cached as the tarball mmdebstrap
# writes (its file list beside it, as <tar>.files), keyed by suite, variant, mirrors, packages and
# dpkg options. Shared by the render image (cloud/image/build-rootfs.sh) and the tests that build
# the web templates' images from their recipes (src/test-support/template-images.ts).
#
# Usage: cloud/image/debian-base.sh [--path-only] <name> <suite> <variant> [<package>...]
#   prints the tarball's path, built first unless it is cached (--path-only: never built)
#   or, sourced: debian_base <name> <suite> <variant> [<package>...]   (the same, as a function)
# <name> names the cache entry: a new key replaces the entry of the same name.
#
# Cache: ${VIDKIT_IMAGE_CACHE:-/var/tmp/vidkit-image-cache}, outside the repository so that it
# survives clean checkouts and tests run with an empty HOME; delete it to take in Debian's latest
# updates. Needs mmdebstrap and root (or unprivileged user namespaces with newuidmap).
set -euo pipefail

CACHE=${VIDKIT_IMAGE_CACHE:-/var/tmp/vidkit-image-cache}
# Manuals, docs (copyright files kept) and translations: nothing in the images reads them.
DPKG_OPTS=(
  'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/info/*' 'path-exclude=/usr/share/locale/*'
  'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright'
)

log() { printf '%s: %s\n' "$(basename "$0" .sh)" "$*" >&2; }
fail() { log "error: $*"; exit 1; }
hash_of() { sha256sum | cut -c1-16; }
# Once a new cache entry is in place, the entries it replaces (other keys, same name) go.
drop_others() { find "$CACHE" -maxdepth 1 -name "$1-*" ! -name "$(basename "$2")*" -exec rm -rf {} +; }

# The mirror apt uses on this machine (Debian's archive is the registry we reach), else deb.debian.org.
mirror_of() {
  apt-get indextargets --format '$(REPO_URI)' 2>/dev/null | grep -m1 "/$1/\$" || echo "http://deb.debian.org/$1/"
}

debian_base() { # name, suite, variant (essential, minbase, ...), packages (none: the variant alone)...
  local name=debian-$1 suite=$2 variant=$3; shift 3
  command -v mmdebstrap >/dev/null || fail "mmdebstrap is not installed: apt-get install mmdebstrap"
  local sources=(
    "deb $(mirror_of debian) $suite main"
    "deb $(mirror_of debian) $suite-updates main"
    "deb $(mirror_of debian-security) $suite-security main"
  )
  local key tar
  key=$(printf '%s\n' "$suite" "$variant" "${sources[@]}" "$@" "${DPKG_OPTS[@]}" | hash_of)
  tar=$CACHE/$name-$key.tar
  if [ ! -f "$tar" ] && [ -z "${PATH_ONLY:-}" ]; then
    mkdir -p "$CACHE"
    log "building a Debian $suite root filesystem with mmdebstrap ($variant${*:+ + $*})"
    local started=$SECONDS
    mmdebstrap --quiet --variant="$variant" --format=tar ${*:+--include="$(IFS=,; echo "$*")"} \
      "${DPKG_OPTS[@]/#/--dpkgopt=}" "$suite" "$tar.partial" "${sources[@]}" >&2
    tar -tf "$tar.partial" >"$tar.files"
    mv "$tar.partial" "$tar"
    drop_others "$name" "$tar"
    log "built in $((SECONDS - started)) s: $tar"
  fi
  echo "$tar"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  if [ "${1:-}" = --path-only ]; then PATH_ONLY=1; shift; fi
  [ $# -ge 3 ] || fail "usage: debian-base.sh <name> <suite> <variant> [<package>...]"
  debian_base "$@"
fi
