#!/usr/bin/env bash
# Loads the native addon inside a minimal Debian 13 (trixie) root filesystem, which has no FFmpeg,
# and encodes a picture in each output format (scripts/addon-smoke.cjs): the addon must carry its
# own libav. The host's node runs there, bind-mounted, under bubblewrap with a read-only root.
# The root filesystem (mmdebstrap --variant=minbase, from the Debian mirror apt uses) is cached as
# a tarball beside the libav prefix that `.libav` points at, keyed by this script.
#
# Usage: scripts/check-addon-portable.sh [addon inside the repository]
# Prints the smoke script's lines; exits non-zero when the addon does not load or encode there.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
script="$repo/scripts/check-addon-portable.sh"

log() { printf 'check-addon-portable: %s\n' "$*" >&2; }
fail() { log "error: $*"; exit 1; }

case $(uname -m) in
  x86_64) platform=linux-x64-gnu ;;
  aarch64) platform=linux-arm64-gnu ;;
  *) fail "no native addon is built for $(uname -m)" ;;
esac
addon=${1:-native/vidkit.$platform.node}
[ -f "$repo/$addon" ] || fail "$repo/$addon does not exist; run npm run build:native"
for tool in mmdebstrap bwrap; do
  command -v "$tool" >/dev/null || fail "$tool is required (apt-get install mmdebstrap bubblewrap)"
done

if [ -e "$repo/.libav" ]; then
  cache=$(dirname "$(readlink -f "$repo/.libav")")
else
  cache="${VIDKIT_LIBAV_CACHE:-/var/tmp/vidkit-libav-cache}"
fi
key=$(sha256sum "$script" | cut -c1-16)
tarball="$cache/rootfs-trixie-$key.tar"
if [ ! -f "$tarball" ]; then
  mirror=$(apt-get indextargets --format '$(REPO_URI)' 'Identifier: Packages' 'Origin: Debian' 2>/dev/null |
    grep -v security | head -1 || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  log "making a Debian 13 root filesystem from $mirror (once): $tarball"
  mkdir -p "$cache"
  mmdebstrap --quiet --variant=minbase --format=tar trixie "$tarball.partial" "$mirror" >&2
  mv "$tarball.partial" "$tarball"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir "$root"
# /dev comes from bubblewrap; its device nodes need not (and unprivileged, cannot) be unpacked.
tar -C "$root" --exclude='./dev/*' -xf "$tarball"
if found=$(find "$root" -name 'libavcodec.so*' | head -1) && [ -n "$found" ]; then
  fail "the root filesystem has FFmpeg (${found#"$root"}), so it proves nothing"
fi
# Mount points for the read-only root.
mkdir -p "$root/repo"
touch "$root/usr/local/bin/node"

node=$(readlink -f "$(command -v node)")
bwrap --ro-bind "$root" / --ro-bind "$repo" /repo --ro-bind "$node" /usr/local/bin/node \
  --proc /proc --dev /dev --tmpfs /tmp --unshare-all --die-with-parent \
  --clearenv --setenv PATH /usr/local/bin:/usr/bin:/bin --setenv HOME /tmp \
  /usr/local/bin/node /repo/scripts/addon-smoke.cjs "/repo/$addon"
