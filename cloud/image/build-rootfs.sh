#!/usr/bin/env bash
# Builds the render image's root filesystem without Docker: Debian 13 (trixie) from Debian's archive
# with mmdebstrap (Node.js, chromium-headless-shell, fonts), plus vidkit under /app (dist/,
# production node_modules, package.json, the self-contained native addon, cloud/handler.js) and the
# Lambda runtime interface client under /app/lambda-runtime. cloud/image/Dockerfile turns the
# tarball into the images; docs/guide/cloud.md has the commands.
#
# Usage: cloud/image/build-rootfs.sh [--addon <vidkit.linux-x64-gnu.node>] <out.tar | out-dir>
#   out.tar   a tarball for `docker import` or the Dockerfile's `ADD rootfs.tar /`
#   out-dir   the same tree unpacked (no /dev nodes), for bubblewrap or chroot
# The addon defaults to native/vidkit.linux-x64-gnu.node; dist/ must be built (npm run build:ts).
# Needs mmdebstrap and root (or unprivileged user namespaces with newuidmap); the runtime client
# is compiled here once (cmake, autoconf, automake, libtool, make, g++).
#
# Cache: ${VIDKIT_IMAGE_CACHE:-/var/tmp/vidkit-image-cache}, outside the repository so that it
# survives clean checkouts and tests run with an empty HOME. The Debian base (cloud/image/debian-base.sh)
# is keyed by suite, mirrors and package list, the npm trees by their manifests, lockfiles and npm
# options; delete the directory to take in Debian's latest updates.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
# The Debian base (mirrors, cache, mmdebstrap): shared with the web templates' image tests.
source "$REPO/cloud/image/debian-base.sh"
SUITE=trixie
PACKAGES=(
  nodejs                               # Node 20.19 (vidkit needs 20.17 or newer)
  chromium-headless-shell              # the browser, with HeadlessExperimental.beginFrame
  fonts-dejavu-core fonts-liberation   # default fonts, as scripts/setup.sh installs them
  ca-certificates                      # TLS to S3 and to remote media
)

log() { printf 'build-rootfs: %s\n' "$*" >&2; }
fail() { log "error: $*"; exit 1; }

addon=$REPO/native/vidkit.linux-x64-gnu.node
out=
while [ $# -gt 0 ]; do
  case "$1" in
    --addon) addon=${2:?--addon needs a file}; shift 2 ;;
    -*) fail "unknown option $1; usage: build-rootfs.sh [--addon <file.node>] <out.tar | out-dir>" ;;
    *) [ -z "$out" ] || fail "one output only (got $out and $1)"; out=$1; shift ;;
  esac
done
[ -n "$out" ] || fail "usage: build-rootfs.sh [--addon <file.node>] <out.tar | out-dir>"
[ -f "$addon" ] || fail "no native addon at $addon: build it (npm run build:native) or pass --addon <file.node>"
[ -f "$REPO/package-lock.json" ] || fail "$REPO has no package-lock.json: run this script from a vidkit checkout"
[ -f "$REPO/dist/lambda/handler.js" ] || fail "no $REPO/dist/lambda/handler.js: run npm run build:ts first"
# The render function runs on x86_64, and mmdebstrap builds for this machine's architecture.
[ "$(dpkg --print-architecture)" = amd64 ] || fail "the render image is x86_64 (amd64): build it on an amd64 machine"

# 1. The Debian base, cached as the tarball mmdebstrap writes, with its file list beside it.
base=$(debian_base render-image "$SUITE" essential "${PACKAGES[@]}")

# The addon is loaded by the image's Node: every library it links must be in the base.
missing=()
for lib in $(readelf -d "$addon" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
  grep -qxF -e "./usr/lib/x86_64-linux-gnu/$lib" -e "./usr/lib/$lib" "$base.files" || missing+=("$lib")
done
[ ${#missing[@]} -eq 0 ] || fail "the addon $addon links ${missing[*]}, not in Debian $SUITE: the image needs the self-contained addon (libav built in); pass it with --addon <file.node>"

# 2. npm trees, each installed once per lockfile and options: vidkit's production dependencies and the runtime client.
npm_tree() { # source dir with package.json and package-lock.json, cache name, npm command...
  local src=$1 name=$2; shift 2
  local dir=$CACHE/$name-$({ echo "$*"; cat "$src/package.json" "$src/package-lock.json"; } | hash_of)
  if [ ! -d "$dir/node_modules" ]; then
    log "installing $name (npm $*)"
    rm -rf "$dir.partial" && mkdir -p "$dir.partial"
    cp "$src/package.json" "$src/package-lock.json" "$dir.partial/"
    (cd "$dir.partial" && npm_config_cache=$CACHE/npm npm --no-audit --no-fund "$@" >&2)
    mv "$dir.partial" "$dir"
    drop_others "$name" "$dir"
  fi
  echo "$dir/node_modules"
}
# `install`, not `ci`: the repository's lockfile lacks entries for some dev tools' optional
# platform packages, which `npm ci` refuses even when they are omitted. No optional ones: the addon
# package is never fetched from the registry, the image carries the addon given here.
deps=$(npm_tree "$REPO" vidkit-deps install --omit=dev --omit=optional --ignore-scripts --no-save)
# node-gyp compiles the runtime client against this Node's headers instead of downloading them;
# Node-API keeps the result loadable by the image's Node.
node_prefix=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")
[ ! -f "$node_prefix/include/node/node_api.h" ] || export npm_config_nodedir=$node_prefix
ric=$(npm_tree "$REPO/cloud/image/lambda-runtime" lambda-runtime ci --omit=dev)

# 3. /app, then the output: the base plus /app.
stage=$(mktemp -d "$CACHE/stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
app=$stage/app
mkdir -p "$app/native" "$app/cloud" "$app/lambda-runtime"
cp "$REPO/package.json" "$app/"
cp -r "$REPO/dist" "$app/dist"
cp -r "$deps" "$app/node_modules"
cp "$addon" "$app/native/vidkit.linux-x64-gnu.node"
cp "$REPO/cloud/handler.js" "$app/cloud/"
# The client's compiled sources (deps/) are not needed to run it.
tar -C "$(dirname "$ric")" --exclude=node_modules/aws-lambda-ric/deps -cf - node_modules | tar -C "$app/lambda-runtime" -xf -
# Lambda runs the function as an unprivileged user.
chmod -R a+rX,go-w "$app"

rm -rf "$out.partial"
case "$out" in
  *.tar)
    cp "$base" "$out.partial"
    tar -C "$stage" --owner=0 --group=0 --numeric-owner -rf "$out.partial" ./app
    ;;
  *)
    mkdir -p "$out.partial"
    tar -C "$out.partial" --exclude='./dev/*' -xf "$base"
    mv "$app" "$out.partial/app"
    rm -rf "$out"
    ;;
esac
mv "$out.partial" "$out"
log "wrote $out ($(du -sh "$out" | cut -f1))"
