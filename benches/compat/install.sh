#!/usr/bin/env bash
# Installs the animation libraries the compatibility suite's compositions use (anime.js,
# lottie-web, three.js) into benches/compat/node_modules/ (git-ignored), pinned by package.json
# and package-lock.json beside this script. GSAP comes from the root's devDependencies.
#
# Idempotent: does nothing when the installed tree matches the lock file. Prints nothing on
# success, a message on stderr and a non-zero exit status on failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
stamp="$here/node_modules/.installed-from-package-lock.json"
cmp -s "$here/package-lock.json" "$stamp" 2>/dev/null && exit 0

command -v npm >/dev/null 2>&1 || { echo "benches/compat/install.sh: npm not found on PATH" >&2; exit 1; }
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! npm ci --prefix "$here" --no-audit --no-fund --loglevel=error --update-notifier=false >"$log" 2>&1; then
  cat "$log" >&2
  echo "benches/compat/install.sh: npm ci in $here failed" >&2
  exit 1
fi
cp "$here/package-lock.json" "$stamp"
