#!/usr/bin/env bash
# The test suite, in three tiers, each selectable: `bash scripts/test.sh [unit] [e2e] [cloud]`
# (all three when none is named).
#   unit   the checks of the Rust sources (the generated addon types are current, clippy, rustfmt),
#          cargo test for the Rust core, the type check of the tests, and the TypeScript unit tests:
#          they run on the sources (tsx), never dist/ nor a browser (both are refused here).
#   e2e    the end-to-end tests: the built CLI, SDK and player, real Chromium, real libav.
#   cloud  the tests that start the AWS emulator (MiniStack).
# Test files run in processes of their own, two at a time, each under a deadline
# (scripts/run-tests.mjs). Sets everything up first. Prints each tier's counts and wall time; the
# last line is the summary `tests: N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/.."

# The TypeScript unit tests (paths under src/). A test file not listed here, and not starting the
# AWS emulator, is end-to-end: a new test runs in the slower tier until someone moves it.
UNIT_TESTS=(
  composition/clip-lines.test.ts
  composition/composition.test.ts
  composition/css-scope.test.ts
  composition/render-request.test.ts
  composition/variables.test.ts
  docs/links.test.ts
  docs/schema-files.test.ts
  layers.test.ts
  lambda/chunk-errors.test.ts
  lambda/payload-version.test.ts
  lambda/site-media.test.ts
  native.test.ts
  preview/project-watcher.test.ts
  preview/rows-file.test.ts
  preview/source-patch.test.ts
  preview/studio-edits.test.ts
  preview/studio-jobs.test.ts
  preview/studio/timeline-model.test.ts
  values/formats.test.ts
  render/plan/frame-scheduler.test.ts
  render/serve/project-server.test.ts
  render/capture/redraw.test.ts
  render/serve/remote-assets.test.ts
  values/resolution-presets.test.ts
  render/plan/workers.test.ts
  runtime/wasm-modules.test.ts
  sdk/batch-file.test.ts
  sdk/batch-manifest.test.ts
  template-server/render-limits.test.ts
  template-server/render-queue.test.ts
  test-support/build.test.ts
)

usage() { echo "usage: bash scripts/test.sh [unit] [e2e] [cloud]" >&2; }
tiers=("$@")
[ ${#tiers[@]} -eq 0 ] && tiers=(unit e2e cloud)
for tier in "${tiers[@]}"; do
  case "$tier" in unit | e2e | cloud) ;; *) usage; echo "tests: 0 passed, 1 failed"; exit 2 ;; esac
done

bash scripts/setup.sh || { echo "tests: 0 passed, 1 failed"; exit 1; }
# cargo test and clippy build where setup built the addon (scripts/cargo-target.sh).
[ -n "${CARGO_TARGET_DIR:-}" ] || CARGO_TARGET_DIR=$(bash scripts/cargo-target.sh) || { echo "tests: 0 passed, 1 failed"; exit 1; }
export CARGO_TARGET_DIR

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

passed=0
failed=0
count() { # tier counts: passed, failed
  tier_passed=$((tier_passed + $1))
  tier_failed=$((tier_failed + $2))
}

# One check that is not a test runner (a type check, a lint): one passed or one failed test.
check() { # name, command...
  local name=$1
  shift
  if "$@" >"$logs/check.log" 2>&1; then
    echo "check $name: passed"
    count 1 0
  else
    cat "$logs/check.log"
    echo "check $name: FAILED"
    count 0 1
  fi
}

cargo_tests() {
  cargo test --workspace 2>&1 | tee "$logs/cargo.log"
  local status=${PIPESTATUS[0]} p f
  read -r p f < <(strip <"$logs/cargo.log" |
    awk '/^test result:/ { for (i = 1; i < NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } } END { print p+0, f+0 }')
  # A runner that crashed before its summary counts as a failure, never as zero tests.
  [ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  count "$p" "$f"
}

uvu_tests() { # test files, relative to src/
  [ $# -eq 0 ] && return
  node scripts/run-tests.mjs ${VIDKIT_TEST_RECORD:+--record} "$@" 2>&1 | tee "$logs/uvu.log"
  local status=${PIPESTATUS[0]} p f
  read -r p f < <(strip <"$logs/uvu.log" | sed -n 's/^uvu: \([0-9]\+\) passed, \([0-9]\+\) failed$/\1 \2/p' | tail -1)
  p=${p:-0} f=${f:-0}
  # A runner that crashed before its summary counts as a failure, never as zero tests.
  [ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  count "$p" "$f"
}

# Every test file under src/, relative to it, by tier.
all_tests=$(cd src && find . -name '*.test.ts' -not -path '*/node_modules/*' | sed 's|^\./||' | sort)
cloud_tests=$(cd src && grep -l 'startAwsEmulator(' $all_tests | sort)
e2e_tests=$(comm -23 <(echo "$all_tests") <(printf '%s\n' "${UNIT_TESTS[@]}" $cloud_tests | sort))

# Checks of the Rust sources, one test each. setup.sh has just rebuilt the addon, regenerating
# src/native-addon.d.ts from its #[napi] items.
rust_source_checks() {
  check 'addon types are current (scripts/check-addon-types.sh)' bash scripts/check-addon-types.sh
  check 'cargo clippy -D warnings' cargo clippy --workspace --all-targets --quiet -- -D warnings
  check 'cargo fmt --check' cargo fmt --all --check
}

unit_tier() {
  local missing=() file
  for file in "${UNIT_TESTS[@]}"; do
    if [ ! -f "src/$file" ]; then missing+=("$file")
    elif grep -q 'startAwsEmulator(' "src/$file"; then missing+=("$file (starts the AWS emulator: a cloud test)"); fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    printf 'scripts/test.sh lists as a unit test: %s\n' "${missing[@]}"
    count 0 ${#missing[@]}
  fi
  rust_source_checks
  cargo_tests
  check 'tests type-check (tsc -p tsconfig.test.json)' npx --no-install tsc -p tsconfig.test.json
  # The benches import the built API (dist/, built by setup): a renamed export breaks them here, not at bench time.
  check 'benches type-check (tsc -p benches/tsconfig.json)' npx --no-install tsc -p benches/tsconfig.json
  # A unit test that reaches dist/ (test-support refuses it) or launches a browser fails.
  printf '#!/bin/sh\necho "a unit test launched a browser: it belongs in the e2e tier (scripts/test.sh)" >&2\nexit 1\n' >"$logs/no-browser"
  chmod +x "$logs/no-browser"
  VIDKIT_TEST_TIER=unit VIDKIT_BROWSER="$logs/no-browser" uvu_tests --tier unit "${UNIT_TESTS[@]}"
}

summary=()
# Runs one tier's command, times it, adds its counts to the totals and its line to the summary.
run_tier() { # name, command...
  local name=$1 started=$SECONDS
  shift
  tier_passed=0 tier_failed=0
  echo "== tier $name"
  "$@"
  summary+=("tier $name: $tier_passed passed, $tier_failed failed in $((SECONDS - started)) s")
  passed=$((passed + tier_passed))
  failed=$((failed + tier_failed))
}

pool=() pooled=()
for tier in "${tiers[@]}"; do
  case "$tier" in
    unit) run_tier unit unit_tier ;;
    e2e) pool+=(--tier e2e $e2e_tests) pooled+=(e2e) ;;
    cloud) pool+=(--tier cloud $cloud_tests) pooled+=(cloud) ;;
  esac
done
# The end-to-end and cloud tiers share one pool of lanes, so neither waits for the other's last
# file; the runner counts them apart.
if [ ${#pool[@]} -gt 0 ]; then
  run_tier "${pooled[*]}" uvu_tests "${pool[@]}"
  mapfile -t lines < <(strip <"$logs/uvu.log" | grep -E '^tier (e2e|cloud): ')
  summary+=("${lines[@]}")
fi

printf '%s\n' "${summary[@]}"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
