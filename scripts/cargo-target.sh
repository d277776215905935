#!/usr/bin/env bash
# Prints the cargo target directory the builds of every checkout on this machine share, so a new
# clone compiles only vidkit's own crates and the libav bindings, not the 70 crates they depend
# on (a clean clone's release build, clippy and test build: 154 s cold, 62 s from this cache).
# One directory per set of inputs that decide what the dependencies compile to: Cargo.lock, the
# Rust toolchain and the static libav the checkout links (.libav, made by scripts/build-libav.sh,
# so run this after it). It lives under /var/tmp beside the libav cache, which outlives a HOME and
# a reboot; directories unused for 30 days are removed.
#   VIDKIT_CARGO_CACHE  the cache directory (default /var/tmp/vidkit-cargo-target)
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${VIDKIT_CARGO_CACHE:-/var/tmp/vidkit-cargo-target}"
key=$({ cat Cargo.lock; rustc -vV; readlink -f .libav; } | sha256sum | cut -c1-16)
dir="$cache/target-$key"
mkdir -p "$dir"
touch "$dir"
find "$cache" -mindepth 1 -maxdepth 1 -name 'target-*' -mtime +30 -exec rm -rf {} + 2>/dev/null || true
printf '%s\n' "$dir"
