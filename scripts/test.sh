#!/usr/bin/env bash
# The whole test suite: checks of the sources (the generated addon types are current, clippy,
# rustfmt), cargo test for the Rust core, uvu for the TypeScript (real Chromium, real libav). Sets
# everything up first. The last line is the summary `tests: N passed, N failed`, each check one test.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh || { echo "tests: 0 passed, 1 failed"; exit 1; }

# The tests run as on a new user's machine: an empty home and cache of their own, so no browser
# probe or other cache left by an earlier run can hide a failure. Rust and its crates stay where
# rustup and cargo put them, and npm keeps its cache (the package test installs the packed tarballs
# with their dependencies from it).
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
export npm_config_cache="${npm_config_cache:-$HOME/.npm}"
logs=$(mktemp -d)
export HOME="$logs/home" XDG_CACHE_HOME="$logs/cache"
mkdir -p "$HOME" "$XDG_CACHE_HOME"
trap 'rm -rf "$logs"' EXIT
strip() { sed -e 's/\x1b\[[0-9;]*m//g'; }

# Each check counts as one test; its output is shown only when it fails.
checks_passed=0 checks_failed=0
check() { # name, command...
  local name=$1
  shift
  if "$@" >"$logs/check.log" 2>&1; then
    echo "check $name: passed"
    checks_passed=$((checks_passed + 1))
  else
    cat "$logs/check.log"
    echo "check $name: FAILED"
    checks_failed=$((checks_failed + 1))
  fi
}
# setup.sh has just rebuilt the addon, regenerating src/native-addon.d.ts from the Rust sources.
check "addon types are current" bash scripts/check-addon-types.sh
check "cargo clippy" cargo clippy --workspace --all-targets --quiet -- -D warnings
check "cargo fmt" cargo fmt --all --check

cargo test --workspace 2>&1 | tee "$logs/cargo.log"
cargo_status=${PIPESTATUS[0]}
read -r cargo_passed cargo_failed < <(strip <"$logs/cargo.log" |
  awk '/^test result:/ { for (i = 1; i < NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } } END { print p+0, f+0 }')

NO_COLOR=1 npx --no-install uvu -r tsx/cjs src '\.test\.ts$' 2>&1 | tee "$logs/uvu.log"
uvu_status=${PIPESTATUS[0]}
uvu_total=$(strip <"$logs/uvu.log" | sed -n 's/^ *Total: *\([0-9]\+\).*/\1/p' | tail -1)
uvu_passed=$(strip <"$logs/uvu.log" | sed -n 's/^ *Passed: *\([0-9]\+\).*/\1/p' | tail -1)

passed=$(( checks_passed + ${cargo_passed:-0} + ${uvu_passed:-0} ))
failed=$(( checks_failed + ${cargo_failed:-0} + ${uvu_total:-0} - ${uvu_passed:-0} ))
# A runner that crashed before its summary counts as a failure, never as zero tests.
[ "$cargo_status" -ne 0 ] && [ "${cargo_failed:-0}" -eq 0 ] && failed=$((failed + 1))
[ "$uvu_status" -ne 0 ] && [ "${uvu_total:-0}" -eq "${uvu_passed:-0}" ] && failed=$((failed + 1))

echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
